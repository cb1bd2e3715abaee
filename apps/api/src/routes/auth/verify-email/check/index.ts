import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { verificationLinkUsed } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { TokenBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  // A verification link opened a second time answers INVALID_TOKEN (single use, by contract); the
  // page then asks this, so a signed-out person is told they are verified instead of "invalid".
  app.post(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: 'Whether a verification link was already used by an account that is now verified',
        description:
          'What the verification page asks when POST /auth/verify-email answers INVALID_TOKEN: `alreadyVerified` is true when the link was used before and its account is verified, so the page can say so and offer to sign in. It changes nothing.',
        body: TokenBody,
        response: {
          200: Type.Object({ alreadyVerified: Type.Boolean() }),
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => ({
      alreadyVerified: await verificationLinkUsed(app.db, app.secrets.hash(request.body.token)),
    }),
  );
}
