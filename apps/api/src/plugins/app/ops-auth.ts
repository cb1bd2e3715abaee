import { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '@webpush/errors';
import { basicAuthMatches } from '@webpush/secrets';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { sendError } from './error-handler.js';

/**
 * HTTP basic auth for the operations surfaces (Bull Board, metrics), which exist only when
 * OPS_USERNAME and OPS_PASSWORD are set. Failed attempts are counted per client IP (IPv6: per
 * network) in the coordination (Redis: shared by every API instance): after `RATE_LIMIT_LOGIN_MAX` failures in a
 * window, further wrong attempts from there get 429 RATE_LIMITED, unchecked, until the window ends.
 * The right credentials always pass and are never counted, so a guesser cannot lock the operator
 * out; OPS_PASSWORD's minimum length (production) is what keeps guessing hopeless. The refusal is sent from here rather than
 * thrown: Bull Board installs an error handler of its own in its context, which would not answer
 * with the contract's body.
 */
export function opsBasicAuth(app: FastifyInstance): onRequestAsyncHookHandler {
  const { ops, publicUrl, redisKeyPrefix, rateLimit } = app.config;
  if (!ops) throw new Error('opsBasicAuth needs OPS_USERNAME and OPS_PASSWORD');
  const failuresKey = (ip: string) => `${redisKeyPrefix}:ops-auth-failures:${ip}`;

  return async (request, reply) => {
    // The right credentials always pass, and are never counted (a Prometheus scrape every few seconds).
    if (basicAuthMatches(request.headers.authorization, ops)) return;
    const key = failuresKey(normalizeIP(request.ip, rateLimit.ipv6Prefix));
    const failures = (await app.coordination.read(key).catch(() => null))?.count ?? 0;
    if (failures >= rateLimit.loginMax) {
      const limited = new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(rateLimit.windowSeconds) } });
      return sendError(reply, limited, publicUrl);
    }
    // A Redis outage must not lock operators out: the attempt is refused, just not counted.
    await app.coordination
      .increment(key, rateLimit.windowSeconds * 1000)
      .catch((error: unknown) => request.log.warn({ err: error }, 'could not count a failed ops login'));
    if (failures + 1 >= rateLimit.loginMax)
      request.log.warn({ ip: request.ip }, 'ops login locked for failed attempts after repeated failures');
    const refusal = new AppError('UNAUTHORIZED', {
      headers: { 'WWW-Authenticate': 'Basic realm="webpush ops", charset="UTF-8"' },
    });
    return sendError(reply, refusal, publicUrl);
  };
}
