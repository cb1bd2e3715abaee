import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { appStats, deleteApp, updateApp } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppResponse, AppWithStatsResponse, UpdateAppBody } from '#schemas/apps.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { canonicalTimeZone } from '#src/time-zone.js';
import { publicApp } from '../public-app.js';
import { normaliseAllowedOrigins } from './allowed-origins.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['apps'],
        summary: 'One app, with its subscriber and send counts',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: AppWithStatsResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const found = request.ownedApp;
      return { app: { ...publicApp(found, request.appAccess.role), stats: await appStats(app.db, found.id) } };
    },
  );

  app.patch(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['apps'],
        summary:
          'Rename an app, set the origins its subscribe_only keys work from, its push format and default url, and what signatures its audiences need',
        description:
          '`pushFormat: "declarative"` needs a `defaultUrl` (given now or before): without one, 400 MISSING_FIELDS and nothing changes.',
        security: sessionSecurity,
        params: AppIdParams,
        body: UpdateAppBody,
        response: {
          200: AppResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const { name, allowedOrigins, requireSignedTags, signaturesExpire, pushFormat, defaultUrl, frequencyCap } =
        request.body;
      const timeZone = request.body.timeZone === undefined ? undefined : canonicalTimeZone(request.body.timeZone);
      const changes = {
        ...(name === undefined ? {} : { name: name.trim() || name }),
        ...(allowedOrigins === undefined ? {} : { allowedOrigins: normaliseAllowedOrigins(allowedOrigins) }),
        ...(requireSignedTags === undefined ? {} : { requireSignedTags }),
        ...(signaturesExpire === undefined ? {} : { signaturesExpire }),
        ...(pushFormat === undefined ? {} : { pushFormat }),
        ...(defaultUrl === undefined ? {} : { defaultUrl }),
        ...(timeZone === undefined ? {} : { timeZone }),
        ...(frequencyCap === undefined ? {} : { frequencyCap }),
      };
      const updated = await updateApp(
        app.db,
        request.ownedApp.userId,
        request.ownedApp.id,
        changes,
        auditContext(request),
      );
      if (!updated) throw new AppError('NOT_FOUND');
      // docs/sending.md: a declarative app needs the page its clicks open when a send has no url.
      if (updated === 'needs_default_url') throw new AppError('MISSING_FIELDS');
      await app.apiKeyPrincipals.changed({ appId: updated.id });
      request.log.info({ userId: user.id, appId: updated.id, changes: Object.keys(changes) }, 'app updated');
      return { app: publicApp(updated, request.appAccess.role) };
    },
  );

  app.delete(
    '/',
    {
      config: { appRole: 'owner' },
      schema: {
        tags: ['apps'],
        summary: 'Delete an app with its keys and subscriptions',
        security: sessionSecurity,
        params: AppIdParams,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const deleted = await deleteApp(app.db, request.ownedApp.userId, request.ownedApp.id);
      if (!deleted) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ appId: request.ownedApp.id });
      request.log.info({ userId: user.id, appId: request.params.appId }, 'app deleted');
      return reply.code(204).send(null);
    },
  );
}
