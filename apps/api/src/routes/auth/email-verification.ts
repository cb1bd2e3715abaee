import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { verifyEmailWithToken } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sessionUser } from '../../plugins/app/auth.js';
import { MeResponse, TokenBody } from '../../schemas/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { sendVerificationEmail } from './account-mail.js';
import { publicUser } from './session-cookie.js';

/** The link of the verification e-mail (`${PUBLIC_URL}/verify-email?token=…`) lands on a page that calls these. */
export default async function emailVerificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/verify-email',
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

  app.post(
    '/verify-email/resend',
    {
      onRequest: [app.limiters.mail, app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'Send the verification e-mail again (nothing is sent when the e-mail is already verified)',
        security: [{ session: [] }, { sessionCookie: [] }],
        response: {
          202: Type.Object({}, { description: 'Accepted: the e-mail is on its way' }),
          ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION', 'RATE_LIMITED'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      if (!user.emailVerified) sendVerificationEmail(app, user);
      return reply.code(202).send({});
    },
  );
}
