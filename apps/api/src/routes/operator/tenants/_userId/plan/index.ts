import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { setTenantPlan } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { operatorAuditContext, sessionUser } from '#plugins/app/auth.js';
import { publicTenant } from '#routes/operator/public-views.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { TenantParams, TenantPlanBody, TenantResponse } from '#schemas/operator.js';

/** PATCH /operator/tenants/:userId/plan: moves an account to another plan (operators only). */
export default async function tenantPlanRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.patch(
    '/',
    {
      schema: {
        tags: ['operator'],
        summary: 'Move an account to another plan (operators only)',
        description: 'The new limits hold from the next request on. An unknown account is 404 NOT_FOUND.',
        security: sessionSecurity,
        params: TenantParams,
        body: TenantPlanBody,
        response: {
          200: TenantResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_SESSION',
            'FORBIDDEN',
            'NOT_FOUND',
          ),
        },
      },
    },
    async (request) => {
      const tenant = await setTenantPlan(
        app.db,
        request.params.userId,
        request.body.plan,
        operatorAuditContext(request),
      );
      if (!tenant) throw new AppError('NOT_FOUND');
      // Cached API-key principals carry the plan: every API instance drops this account's now.
      await app.apiKeyPrincipals.changed({ userId: tenant.id });
      request.log.info(
        { operatorId: sessionUser(request).id, userId: tenant.id, plan: tenant.plan },
        'plan changed by an operator',
      );
      return { tenant: publicTenant(tenant) };
    },
  );
}
