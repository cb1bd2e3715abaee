import type { FastifyInstance } from 'fastify';

/** /auth/sessions/**: a dashboard session only, never an API key. */
export default async function sessionsHooks(app: FastifyInstance) {
  app.addHook('onRequest', app.authenticate({ session: true }));
}
