import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sessionUser } from '#plugins/app/auth.js';
import { errorResponses } from '#schemas/common.js';
import { sendVerificationEmail } from '../../account-mail.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
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
