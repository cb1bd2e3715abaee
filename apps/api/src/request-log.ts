import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { loggedPath } from './log-options.js';

/**
 * Fastify's request logging, in one line per answered request at `info` (LOG_REQUESTS=line, the
 * default) instead of two ("incoming request" and "request completed") plus one for an unknown
 * route: method, the path without its query string (`loggedPath`: e-mail links and the GitHub
 * callback carry credentials there), status, time in ms, and the request id the logger binds to
 * every line of the request. LOG_REQUESTS=off: none. Errors are logged by the error handler either way.
 */
export class OneLineLogController extends Fastify.LogController {
  constructor(private readonly mode: 'line' | 'off') {
    super({ disableRequestLogging: mode === 'off' });
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.mode === 'off') return;
    // Nothing to build when the line would not be written (LOG_LEVEL above info, no error).
    if (!error && (reply.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === false)
      return;
    const line = {
      method: request.method,
      url: loggedPath(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
