import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type App, appStats, createAppWithinLimit, deleteApp, findApp, listApps } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import webpush from 'web-push';
import { sessionUser } from '../../plugins/app/auth.js';
import { AppListResponse, AppResponse, AppWithStatsResponse, CreateAppBody } from '../../schemas/apps.js';
import { AppIdParams, errorResponses } from '../../schemas/common.js';

export const publicApp = (app: App) => ({
  id: app.id,
  name: app.name,
  vapidPublicKey: app.vapidPublicKey,
  createdAt: app.createdAt.toISOString(),
});

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

export default async function appRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

  /** The caller's app, or 404 — also for another user's app, so tenants never learn of each other. */
  const ownedApp = async (userId: string, appId: string): Promise<App> => {
    const found = await findApp(app.db, userId, appId);
    if (!found) throw new AppError('NOT_FOUND');
    return found;
  };

  app.post(
    '/',
    {
      schema: {
        tags: ['apps'],
        summary: 'Create an app (with its own VAPID key pair)',
        security: sessionSecurity,
        body: CreateAppBody,
        response: {
          201: AppResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'PLAN_LIMIT_EXCEEDED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      // A name of only white space is no name: missing, like an empty one (the schema's minLength).
      const name = request.body.name.trim();
      if (name === '') throw new AppError('MISSING_FIELDS');
      const keys = webpush.generateVAPIDKeys();
      const id = randomUUID(); // chosen here: the sealed private key is bound to it
      const created = await createAppWithinLimit(
        app.db,
        user.id,
        {
          id,
          name,
          vapidPublicKey: keys.publicKey,
          vapidPrivateKeySealed: app.secrets.seal(keys.privateKey, vapidKeyContext(id)),
        },
        limitsFor(user.plan).apps,
      );
      if (created === 'limit') throw new AppError('PLAN_LIMIT_EXCEEDED');
      request.log.info({ userId: user.id, appId: created.id }, 'app created');
      return reply.code(201).send({ app: publicApp(created) });
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['apps'],
        summary: 'List your apps',
        security: sessionSecurity,
        response: { 200: AppListResponse, ...errorResponses(...authErrors) },
      },
    },
    async (request) => ({ apps: (await listApps(app.db, sessionUser(request).id)).map(publicApp) }),
  );

  app.get(
    '/:appId',
    {
      schema: {
        tags: ['apps'],
        summary: 'One app, with its subscriber and send counts',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: AppWithStatsResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const found = await ownedApp(sessionUser(request).id, request.params.appId);
      return { app: { ...publicApp(found), stats: await appStats(app.db, found.id) } };
    },
  );

  app.delete(
    '/:appId',
    {
      schema: {
        tags: ['apps'],
        summary: 'Delete an app with its keys and subscriptions',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const deleted = await deleteApp(app.db, user.id, request.params.appId);
      if (!deleted) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: request.params.appId }, 'app deleted');
      return reply.code(204).send(null);
    },
  );
}
