import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { setTenantSuspended } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { operatorAuditContext, sessionUser } from '#plugins/app/auth.js';
import { publicTenant } from '#routes/operator/public-views.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { TenantParams, TenantResponse } from '#schemas/operator.js';

const errors = errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'INVALID_SESSION', 'FORBIDDEN', 'NOT_FOUND');

/**
 * PUT /operator/tenants/:userId/suspension suspends an account, DELETE resumes it (operators
 * only). Nothing is deleted either way.
 */
export default async function tenantSuspensionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const change = async (request: FastifyRequest<{ Params: { userId: string } }>, suspended: boolean) => {
    const operator = sessionUser(request);
    // An operator suspending themself would lock the console's only door.
    if (suspended && request.params.userId === operator.id) throw new AppError('INVALID_INPUT');
    const tenant = await setTenantSuspended(app.db, request.params.userId, suspended, operatorAuditContext(request));
    if (!tenant) throw new AppError('NOT_FOUND');
    // A suspended account's keys must fail on every API instance at once, not when a cached entry expires.
    await app.apiKeyPrincipals.changed({ userId: tenant.id });
    request.log.info({ operatorId: operator.id, userId: tenant.id, suspended }, 'account suspension changed');
    return { tenant: publicTenant(tenant) };
  };

  app.put(
    '/',
    {
      schema: {
        tags: ['operator'],
        summary: 'Suspend an account (operators only)',
        description:
          'From the next request on, its API keys answer 401 INVALID_API_KEY and its sessions 401 INVALID_SESSION. Its apps, keys, sessions and subscribers are kept. Suspending your own account is 400 INVALID_INPUT.',
        security: sessionSecurity,
        params: TenantParams,
        response: { 200: TenantResponse, ...errors },
      },
    },
    (request) => change(request, true),
  );

  app.delete(
    '/',
    {
      schema: {
        tags: ['operator'],
        summary: 'Resume a suspended account (operators only)',
        description: 'Its API keys and unexpired sessions work again.',
        security: sessionSecurity,
        params: TenantParams,
        response: { 200: TenantResponse, ...errors },
      },
    },
    (request) => change(request, false),
  );
}
