/**
 * Why Apple's push service (web.push.apple.com) would refuse a VAPID `sub`, or null when it would
 * not. Apple documents "403 BadJwtToken" for a JWT whose subject claim isn't a URL or `mailto:`
 * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers),
 * and in practice also refuses a well-formed subject at a host nobody can reach: `localhost`, a
 * `.local` name, an example domain (web-push-libs/web-push#947, pywebpush#175, web-push-php#406).
 */
export function vapidSubjectProblem(subject: string): string | null {
  let host: string;
  if (subject.startsWith('mailto:')) {
    const at = subject.lastIndexOf('@');
    if (at < 0 || /\s|[<>]/.test(subject)) return 'is not a plain mailto:name@domain address';
    host = subject.slice(at + 1);
  } else if (subject.startsWith('https:') && URL.canParse(subject)) {
    host = new URL(subject).hostname;
  } else {
    return 'is neither a mailto: address nor an https: URL';
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'is at localhost';
  if (/^[\d.]+$/.test(name) || name.startsWith('[')) return 'is at an IP address, not a domain';
  if (!name.includes('.')) return 'has no domain ending';
  if (/\.(local|internal|lan|home|test|invalid|example)$/.test(name)) return 'is at a domain nobody outside can reach';
  if (/(^|\.)example\.(com|net|org)$/.test(name)) return 'is at an example domain';
  return null;
}

/** Whether the service's own address says it runs on this machine (a local trial, whatever NODE_ENV says). */
export function isLocalUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]';
}
