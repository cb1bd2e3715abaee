import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAuditLog } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { cursorPosition, integerQuery } from '#plugins/app/validation.js';
import { AuditLogQuery, AuditLogResponse } from '#schemas/audit-log.js';
import {
  AppIdParams,
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
      config: { appRole: 'admin' },
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['audit log'],
        summary: "The app's audit log: who changed what, newest first, a page at a time (keyset pagination)",
        description:
          'Entries are written with the change they record and kept at least 365 days; nothing in the API changes or deletes them.',
        security: sessionSecurity,
        params: AppIdParams,
        querystring: AuditLogQuery,
        response: {
          200: AuditLogResponse,
          ...errorResponses('INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const { limit, cursor, action, actor } = request.query;
      const page = await listAuditLog(
        app.db,
        { appId: request.ownedApp.id },
        { limit: limit ?? DEFAULT_PAGE_SIZE, after: cursorPosition(cursor) },
        { action, actorId: actor },
      );
      return { entries: page.items.map(publicAuditEntry), nextCursor: page.nextCursor };
    },
  );
}
