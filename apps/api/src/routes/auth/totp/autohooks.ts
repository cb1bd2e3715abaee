import type { FastifyInstance } from 'fastify';

/** /auth/totp/**: a dashboard session only: neither an API key nor an access token changes sign-in. */
export default async function totpHooks(app: FastifyInstance) {
  app.addHook('onRequest', app.authenticate({ session: true }));
}
