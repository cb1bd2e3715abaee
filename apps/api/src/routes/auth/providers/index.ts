import type { FastifyInstance } from 'fastify';
import { ProvidersResponse } from '#schemas/auth.js';

export default async function routes(app: FastifyInstance) {
  app.get(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'The sign-in methods this server offers besides e-mail and password',
        security: [],
        response: { 200: ProvidersResponse },
      },
    },
    async () => ({ github: app.config.github.clientId !== null && app.config.github.clientSecret !== null }),
  );
}
