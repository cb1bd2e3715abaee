import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createInvitation, listMembers } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { generateToken } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { validEmail } from '#routes/auth/email.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { InvitationResponse, InviteMemberBody, MemberListResponse } from '#schemas/members.js';
import { sendInvitationEmail } from './invitation-mail.js';
import { publicInvitation, publicMember } from './public-member.js';

/** docs/accounts.md: an invitation link works once, within seven days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A prefix only tells a reader what the token is for; the row it hashes to decides. */
const INVITATION_PREFIX = 'wpi_';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['members'],
        summary: "The app's people (the owner with role `owner`, then its members) and its pending invitations",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: MemberListResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const { members, invitations } = await listMembers(app.db, request.ownedApp.id);
      return { members: members.map(publicMember), invitations: invitations.map(publicInvitation) };
    },
  );

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      onRequest: [app.limiters.mail],
      schema: {
        tags: ['members'],
        summary: 'Invite someone to the app with a role; they get an e-mail with a link valid for 7 days',
        description:
          'An address that is already the owner’s or a member’s is 400 INVALID_INPUT, and nothing is sent. Inviting an address again withdraws its earlier link.',
        security: sessionSecurity,
        params: AppIdParams,
        body: InviteMemberBody,
        response: {
          201: InvitationResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_EMAIL',
            'INVALID_INPUT',
            ...authErrors,
            'FORBIDDEN',
            'NOT_FOUND',
            'RATE_LIMITED',
          ),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const email = validEmail(request.body.email);
      const { role } = request.body;
      const owned = request.ownedApp;
      const token = generateToken(INVITATION_PREFIX);
      const invitation = await createInvitation(
        app.db,
        {
          appId: owned.id,
          email,
          role,
          tokenHash: app.secrets.hash(token),
          invitedBy: user.id,
          expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
        },
        auditContext(request),
      );
      if (invitation === 'member') throw new AppError('INVALID_INPUT', { detail: 'ALREADY_A_MEMBER' });
      sendInvitationEmail(app, email, user.language, { inviter: user.email, appName: owned.name, role }, token);
      request.log.info({ userId: user.id, appId: owned.id, invitationId: invitation.id, role }, 'member invited');
      return reply.code(201).send({ invitation: publicInvitation(invitation) });
    },
  );
}
