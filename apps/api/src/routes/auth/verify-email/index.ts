import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { verifyEmailWithToken } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { MeResponse, TokenBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { publicUser } from '../session-cookie.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: 'Verify the e-mail address with the token from the verification e-mail (single use, 24 h)',
        body: TokenBody,
        response: {
          200: MeResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'INVALID_TOKEN', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => {
      const user = await verifyEmailWithToken(app.db, app.secrets.hash(request.body.token));
      if (!user) throw new AppError('INVALID_TOKEN');
      request.log.info({ userId: user.id }, 'e-mail verified');
      return { user: publicUser(user) };
    },
  );
}
