import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { opsBasicAuth } from '../app/ops-auth.js';

export const BULL_BOARD_PATH = '/admin/queues';

/** Mounts Bull Board for `app`'s queues on `target`: the API itself, or the ops listener (OPS_PORT). */
export async function mountBullBoard(target: FastifyInstance, app: FastifyInstance): Promise<void> {
  // Imported only when mounted (OPS_USERNAME and OPS_PASSWORD set): Bull Board, its adapter and
  // @fastify/static are loaded at every start otherwise, for a page most starts never serve.
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
  ]);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: app.queues.all().map((queue) => new BullMQAdapter(queue)), serverAdapter });
  await target.register(async (board) => {
    board.addHook('onRequest', opsBasicAuth(app));
    await board.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  });
}

/**
 * Bull Board for operators, behind basic auth; not mounted at all unless OPS_USERNAME and
 * OPS_PASSWORD are set, and not on the public port when OPS_PORT gives it a listener of its own.
 */
export default fp(
  async (app: FastifyInstance) => {
    if (!app.config.ops || app.config.opsListener) return;
    await mountBullBoard(app, app);
  },
  { name: 'bull-board', dependencies: ['config', 'queues', 'coordination'] },
);
