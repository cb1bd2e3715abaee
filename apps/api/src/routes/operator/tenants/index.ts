import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listTenants } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { integerQuery } from '#plugins/app/validation.js';
import { DEFAULT_PAGE_SIZE, errorResponses, sessionSecurity } from '#schemas/common.js';
import { TenantListQuery, TenantListResponse } from '#schemas/operator.js';
import { decodeTenantCursor, encodeTenantCursor, publicTenant } from '../public-views.js';

/** GET /operator/tenants: every account, in e-mail order, a page at a time (operators only). */
export default async function tenantListRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['operator'],
        summary: 'Every account with its plan, apps, subscribers and sends this month (operators only)',
        description:
          'In e-mail order, keyset-paginated; `q` keeps the accounts whose e-mail starts with it. A session of a user without the operator role is 403 FORBIDDEN.',
        security: sessionSecurity,
        querystring: TenantListQuery,
        response: {
          200: TenantListResponse,
          ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'INVALID_SESSION', 'FORBIDDEN'),
        },
      },
    },
    async (request) => {
      const { limit, cursor, q } = request.query;
      const after = cursor === undefined ? null : decodeTenantCursor(cursor);
      if (after === null && cursor !== undefined) throw new AppError('INVALID_INPUT');
      const page = await listTenants(app.db, { limit: limit ?? DEFAULT_PAGE_SIZE, after, search: q ?? null });
      return {
        tenants: page.tenants.map(publicTenant),
        nextCursor: page.nextCursor === null ? null : encodeTenantCursor(page.nextCursor),
      };
    },
  );
}
