import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { acceptInvitation } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { publicApp } from '#routes/apps/public-app.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { AcceptInvitationBody, AcceptInvitationResponse } from '#schemas/members.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      // Guessing tokens is limited like guessing passwords (the login counter, per IP).
      onRequest: [app.limiters.login, app.authenticate({ session: true })],
      schema: {
        tags: ['members'],
        summary: 'Accept an invitation to an app with the token of its e-mail (single use, 7 days)',
        description:
          'The signed-in account’s e-mail must be verified and be the invited address, else 403 FORBIDDEN and the invitation stays usable. The answer is the app, with the role it gives.',
        security: sessionSecurity,
        body: AcceptInvitationBody,
        response: {
          200: AcceptInvitationResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            'INVALID_TOKEN',
            'UNAUTHORIZED',
            'INVALID_SESSION',
            'FORBIDDEN',
            'RATE_LIMITED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const accepted = await acceptInvitation(app.db, app.secrets.hash(request.body.token), user, request.ip);
      if (accepted === 'invalid') throw new AppError('INVALID_TOKEN');
      if (accepted === 'forbidden') throw new AppError('FORBIDDEN');
      request.log.info({ userId: user.id, appId: accepted.app.id, role: accepted.role }, 'invitation accepted');
      return { app: publicApp(accepted.app, accepted.role) };
    },
  );
}
