/**
 * iOS and iPadOS (16.4+) offer web push only to a web app added to the Home Screen: in a Safari tab
 * `PushManager` is absent (https://webkit.org/blog/13878/web-push-for-web-apps-on-ios-and-ipados/).
 * iPadOS Safari calls itself a Mac, so a touch screen on a "Macintosh" counts as an iPad.
 */
export function needsHomeScreen(): boolean {
  if (typeof navigator === 'undefined' || typeof PushManager !== 'undefined') return false;
  const agent = navigator.userAgent;
  const apple = /iPhone|iPad|iPod/.test(agent) || (/Macintosh/.test(agent) && navigator.maxTouchPoints > 1);
  if (!apple) return false;
  const standalone =
    (navigator as { standalone?: boolean }).standalone === true ||
    (typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches);
  return !standalone;
}
