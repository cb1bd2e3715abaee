import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loggedPath } from '../../log-options.js';

/**
 * One line per answered request at `info` (LOG_REQUESTS=line, the default), in place of Fastify's
 * two ("incoming request" and "request completed"): method, the path without its query string
 * (`loggedPath`: e-mail links and the GitHub callback carry credentials there), status, time in ms,
 * and the request id the logger binds to every line of the request. LOG_REQUESTS=off: none.
 */
export default fp(
  async (app: FastifyInstance) => {
    if (app.config.logRequests === 'off') return;
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          url: loggedPath(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
      done();
    });
  },
  { name: 'request-log', dependencies: ['config'] },
);
