import type { FastifyInstance } from 'fastify';

/** /auth/tokens/**: a dashboard session only: neither an API key nor a token manages tokens. */
export default async function tokensHooks(app: FastifyInstance) {
  app.addHook('onRequest', app.authenticate({ session: true }));
}
