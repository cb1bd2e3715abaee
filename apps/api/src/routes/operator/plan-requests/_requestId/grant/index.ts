import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findTenant, grantPlanRequest } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { operatorAuditContext, sessionUser } from '#plugins/app/auth.js';
import { operatorPlanRequest, publicTenant } from '#routes/operator/public-views.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { GrantedPlanRequestResponse, PlanRequestParams } from '#schemas/operator.js';

/** POST /operator/plan-requests/:requestId/grant: one click moves the account and closes the request. */
export default async function grantPlanRequestRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['operator'],
        summary:
          'Grant a plan request: the account moves to the plan asked for, and the request is done (operators only)',
        description: 'A request that is not open (already granted, or unknown) is 404 NOT_FOUND, and nothing changes.',
        security: sessionSecurity,
        params: PlanRequestParams,
        response: {
          200: GrantedPlanRequestResponse,
          ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION', 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const operator = sessionUser(request);
      const granted = await grantPlanRequest(
        app.db,
        request.params.requestId,
        operator.id,
        operatorAuditContext(request),
      );
      // Already granted (a second click, another operator) or unknown: there is no open request to grant.
      if (granted === null || granted === 'not_open') throw new AppError('NOT_FOUND');
      const tenant = await findTenant(app.db, granted.userId);
      if (!tenant) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ userId: tenant.id }); // the plan cached API-key principals carry
      request.log.info(
        { operatorId: operator.id, userId: granted.userId, plan: granted.plan, requestId: granted.id },
        'plan request granted',
      );
      return { planRequest: operatorPlanRequest(granted), tenant: publicTenant(tenant) };
    },
  );
}
