import type { FastifyRequest, FastifyServerOptions } from 'fastify';

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

/**
 * Bearer secrets the service hands out, by prefix: API keys, session tokens, e-mail link tokens
 * (verification, password reset), identity secrets and webhook signing secrets. Base64url after the
 * `wp*_` and `wis_` prefixes, base64 after `whsec_`.
 */
const PREFIXED_SECRET = /\b(wpk|wps|wpv|wpr|wis)_[A-Za-z0-9_-]+|\bwhsec_[A-Za-z0-9+/=]+/g;
/** A query parameter that carries a credential, whatever its value looks like (OAuth `code`, `state`). */
const SECRET_PARAMETER = /([?&](?:[A-Za-z_]*token|code|state|secret|key|signature)=)[^&\s"\\]*/gi;
export const REDACTED = '[redacted]';

/** Every secret of a known shape in `text` replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  return text
    .replace(PREFIXED_SECRET, (_match, prefix: string | undefined) => `${prefix ?? 'whsec'}_${REDACTED}`)
    .replace(SECRET_PARAMETER, `$1${REDACTED}`);
}

/**
 * The path a request log line shows: no query string (e-mail links carry `?token=`, the GitHub
 * callback `?code=&state=`), and no click-link token (`/c/<token>`).
 */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  return path.startsWith('/c/') ? `/c/${REDACTED}` : path;
}

/**
 * The API's logger: requests are logged by method and path only, credential headers are redacted
 * wherever a header object is logged, and every line passes a last scrub for secrets of a known
 * shape before it is written (a token inside an error message, an e-mail text, a URL).
 */
export function logOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedPath(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        'headers.authorization',
        'headers.cookie',
        'headers["set-cookie"]',
        '*.headers.authorization',
        '*.headers.cookie',
        '*.headers["set-cookie"]',
      ],
      censor: REDACTED,
    },
    hooks: { streamWrite: scrubSecrets },
  };
}
