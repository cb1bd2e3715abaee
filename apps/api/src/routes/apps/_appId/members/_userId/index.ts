import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { changeMemberRole, removeMember } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { ChangeRoleBody, MemberParams, MemberResponse } from '#schemas/members.js';
import { publicMember } from '../public-member.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.patch(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['members'],
        summary: 'Give a member another role; it holds from their next request, on every API instance',
        description: 'The owner is not a member: their role does not change (404 NOT_FOUND).',
        security: sessionSecurity,
        params: MemberParams,
        body: ChangeRoleBody,
        response: {
          200: MemberResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const { appId, userId } = request.params;
      const member = await changeMemberRole(app.db, appId, userId, request.body.role, auditContext(request));
      if (!member) throw new AppError('NOT_FOUND');
      request.log.info(
        { userId: sessionUser(request).id, appId, memberId: userId, role: member.role },
        'member role changed',
      );
      return { member: publicMember(member) };
    },
  );

  app.delete(
    '/',
    {
      // Anyone may leave an app: their own membership needs no role beyond having one.
      config: { appRole: 'admin', appRoleWaivedForSelf: true },
      schema: {
        tags: ['members'],
        summary: 'Remove a member (or leave the app yourself); their access ends at their next request',
        security: sessionSecurity,
        params: MemberParams,
        response: {
          204: { type: 'null', description: 'Removed' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const { appId, userId } = request.params;
      const removed = await removeMember(app.db, appId, userId, auditContext(request));
      if (!removed) throw new AppError('NOT_FOUND');
      request.log.info({ userId: sessionUser(request).id, appId, memberId: userId }, 'member removed');
      return reply.code(204).send(null);
    },
  );
}
