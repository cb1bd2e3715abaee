import { AppError } from '@webpush/errors';
import { safeEqual } from '@webpush/secrets';
import type { onRequestAsyncHookHandler } from 'fastify';
import { sendError } from './error-handler.js';

const BASIC = /^Basic ([A-Za-z0-9+/=]+)$/i;

/**
 * HTTP basic auth for the operations surfaces (Bull Board, metrics). Both halves are compared in
 * constant time, and both are always compared, so timing tells nothing about which one was wrong.
 * The refusal is sent from here rather than thrown: Bull Board installs an error handler of its own
 * in its context, which would not answer with the contract's body.
 */
export function opsBasicAuth(
  credentials: { username: string; password: string },
  publicUrl: string,
): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const match = BASIC.exec(request.headers.authorization?.trim() ?? '');
    const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const separator = decoded.indexOf(':');
    const username = separator >= 0 ? decoded.slice(0, separator) : '';
    const password = separator >= 0 ? decoded.slice(separator + 1) : '';
    const userOk = safeEqual(username, credentials.username);
    const passwordOk = safeEqual(password, credentials.password);
    if (separator >= 0 && userOk && passwordOk) return;
    const refusal = new AppError('UNAUTHORIZED', {
      headers: { 'WWW-Authenticate': 'Basic realm="webpush ops", charset="UTF-8"' },
    });
    return sendError(reply, refusal, publicUrl);
  };
}
