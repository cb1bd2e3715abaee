import type { FastifyInstance } from 'fastify';
import { githubClient } from '#plugins/app/github-oauth.js';
import { errorResponses } from '#schemas/common.js';

/** GET /auth/github: starts GitHub sign-in (the client is registered by plugins/app/github-oauth). */
export default async function routes(app: FastifyInstance) {
  app.get(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: "Start GitHub sign-in: 302 to GitHub's authorize page",
        response: {
          302: { type: 'null', description: 'Redirect to GitHub' },
          ...errorResponses('OAUTH_NOT_CONFIGURED', 'RATE_LIMITED'),
        },
      },
    },
    async (request, reply) => {
      const uri = await githubClient(app).generateAuthorizationUri(request, reply);
      return reply.redirect(uri, 302);
    },
  );
}
