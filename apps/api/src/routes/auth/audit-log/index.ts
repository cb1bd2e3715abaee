import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAuditLog } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { cursorPosition, integerQuery } from '#plugins/app/validation.js';
import { AuditLogQuery, AuditLogResponse } from '#schemas/audit-log.js';
import {
  sessionAuthErrors as authErrors,
  DEFAULT_PAGE_SIZE,
  errorResponses,
  sessionSecurity,
} from '#schemas/common.js';
import { publicAuditEntry } from '#src/audit-entries.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      onRequest: [app.authenticate({ session: true })],
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['audit log'],
        summary:
          "Your account's own audit log (sign-ins, password and two-factor changes, access tokens, an operator's changes), newest first",
        security: sessionSecurity,
        querystring: AuditLogQuery,
        response: { 200: AuditLogResponse, ...errorResponses('INVALID_INPUT', ...authErrors) },
      },
    },
    async (request) => {
      const { limit, cursor, action, actor } = request.query;
      const page = await listAuditLog(
        app.db,
        { userId: sessionUser(request).id },
        { limit: limit ?? DEFAULT_PAGE_SIZE, after: cursorPosition(cursor) },
        { action, actorId: actor },
      );
      return { entries: page.items.map(publicAuditEntry), nextCursor: page.nextCursor };
    },
  );
}
