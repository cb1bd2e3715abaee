import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createAppWithinLimit, listAppsWithCounts } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { checkVapidKeyPair } from '@webpush/push';
import { vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import webpush from 'web-push';
import { sessionUser } from '#plugins/app/auth.js';
import { AppListResponse, AppResponse, CreateAppBody } from '#schemas/apps.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { publicApp } from './public-app.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['apps'],
        summary: 'Create an app (with a new VAPID key pair, or the one you bring)',
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
      const given = request.body.vapidKeys;
      const keys = given === undefined ? webpush.generateVAPIDKeys() : checkVapidKeyPair(given);
      if (keys === null) throw new AppError('INVALID_INPUT');
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
      return reply.code(201).send({ app: publicApp(created, 'owner') });
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['apps'],
        summary:
          'List the apps you own or are a member of, each with your role, its active subscribers and this month’s sends',
        security: sessionSecurity,
        response: { 200: AppListResponse, ...errorResponses(...authErrors) },
      },
    },
    async (request) => ({
      apps: (await listAppsWithCounts(app.db, sessionUser(request).id)).map((found) => ({
        ...publicApp(found, found.role),
        stats: { activeSubscribers: found.activeSubscribers, sendsThisMonth: found.sendsThisMonth },
      })),
    }),
  );
}
