import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { opsBasicAuth } from '../app/ops-auth.js';

export const BULL_BOARD_PATH = '/admin/queues';

/** Bull Board for operators, behind basic auth; not mounted at all unless OPS_USERNAME and OPS_PASSWORD are set. */
export default fp(
  async (app: FastifyInstance) => {
    const { ops } = app.config;
    if (!ops) return;
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(BULL_BOARD_PATH);
    createBullBoard({ queues: app.queues.all().map((queue) => new BullMQAdapter(queue)), serverAdapter });
    await app.register(async (board) => {
      board.addHook('onRequest', opsBasicAuth(app));
      await board.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
    });
  },
  { name: 'bull-board', dependencies: ['config', 'queues', 'redis'] },
);
