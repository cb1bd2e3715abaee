import { errorBody } from '@webpush/errors';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { mountMetrics } from '../../site/metrics.js';
import { mountBullBoard } from '../external/bull-board.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** `/metrics` and `/admin/queues` on a listener of their own (OPS_HOST:OPS_PORT); null: on the API's port. */
    opsServer: FastifyInstance | null;
  }
}

/**
 * With OPS_PORT, the operations surfaces leave the public port and origin: a second Fastify server
 * in the same process, on OPS_HOST (loopback by default) and OPS_PORT, serves only `/metrics` and
 * Bull Board, behind the same basic auth. `server.ts` listens on it; closing the API closes it.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { ops, opsListener, publicUrl } = app.config;
    if (!ops || !opsListener) {
      app.decorate('opsServer', null);
      return;
    }
    const server = Fastify({ loggerInstance: app.log.child({ listener: 'ops' }) });
    server.setNotFoundHandler((_request, reply) =>
      reply.code(404).type('application/json; charset=utf-8').send(errorBody('NOT_FOUND', publicUrl)),
    );
    mountMetrics(server, app);
    await mountBullBoard(server, app);
    app.decorate('opsServer', server);
    app.addHook('onClose', async () => {
      await server.close();
    });
  },
  { name: 'ops-listener', dependencies: ['config', 'queues', 'coordination', 'metrics'] },
);
