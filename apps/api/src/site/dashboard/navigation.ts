/**
 * Which unknown paths the dashboard answers (docs/dashboard.md): only a
 * browser navigating (GET, Accept includes text/html), never under the API or the service's other
 * surfaces, so API clients and scripts keep the JSON 404 NOT_FOUND.
 */
const RESERVED_PREFIXES = ['/api/', '/assets/', '/sdk/', '/docs/', '/admin/', '/c/'];
const RESERVED_PATHS = new Set(['/api', '/docs', '/demo', '/healthz', '/readyz', '/metrics', '/admin', '/sdk', '/c']);

export function isBrowserNavigation(method: string, url: string, accept: string | undefined): boolean {
  if (method !== 'GET') return false;
  if (!accept || !/(^|[\s,])text\/html(\s*[;,]|\s*$)/i.test(accept)) return false;
  const path = url.split('?', 1)[0] ?? '/';
  if (RESERVED_PATHS.has(path) || RESERVED_PREFIXES.some((prefix) => path.startsWith(prefix))) return false;
  return true;
}

/**
 * The dashboard's pages load only their own files: no inline script (Vite's output has none: its
 * modulepreload polyfill is off), no inline style attribute (React's `style` props set CSSOM
 * properties, which CSP does not govern). Notification icons in the send preview may be any https URL.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
