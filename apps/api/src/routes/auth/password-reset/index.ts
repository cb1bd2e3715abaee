import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PasswordResetBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { sendPasswordResetEmail } from '../account-mail.js';
import { normaliseEmail } from '../email.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      onRequest: [app.limiters.mail],
      schema: {
        tags: ['auth'],
        summary: 'Ask for a password-reset e-mail; 202 whether or not the address has an account',
        body: PasswordResetBody,
        response: {
          202: Type.Object({}, { description: 'Accepted: a known address gets a link valid for one hour' }),
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      app.secrets.hash(''); // CONFIG_ERROR now, for known and unknown addresses alike, not a silent failure later
      sendPasswordResetEmail(app, normaliseEmail(request.body.email));
      return reply.code(202).send({});
    },
  );
}
