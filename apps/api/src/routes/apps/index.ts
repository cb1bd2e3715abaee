import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  type App,
  appStats,
  createAppWithinLimit,
  deleteApp,
  isUuid,
  listApps,
  rotateVapidKey,
  storeIdentitySecret,
  updateApp,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { identitySecretContext, vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import webpush from 'web-push';
import { sessionUser } from '../../plugins/app/auth.js';
import {
  AppListResponse,
  AppResponse,
  AppWithStatsResponse,
  CreateAppBody,
  IdentitySecretResponse,
  UpdateAppBody,
} from '../../schemas/apps.js';
import { AppIdParams, errorResponses } from '../../schemas/common.js';
import { normaliseAllowedOrigins } from './allowed-origins.js';
import { generateIdentitySecret } from './identity-secret.js';
import { ownedApp } from './owned-app.js';

export const publicApp = (app: App) => ({
  id: app.id,
  name: app.name,
  vapidPublicKey: app.vapidPublicKey,
  createdAt: app.createdAt.toISOString(),
  allowedOrigins: app.allowedOrigins,
  requireSignedTags: app.requireSignedTags,
  signaturesExpire: app.signaturesExpire,
  pushFormat: app.pushFormat,
  defaultUrl: app.defaultUrl,
});

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

export default async function appRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

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
      const found = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      return { app: { ...publicApp(found), stats: await appStats(app.db, found.id) } };
    },
  );

  app.patch(
    '/:appId',
    {
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
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const { name, allowedOrigins, requireSignedTags, signaturesExpire, pushFormat, defaultUrl } = request.body;
      const changes = {
        ...(name === undefined ? {} : { name: name.trim() || name }),
        ...(allowedOrigins === undefined ? {} : { allowedOrigins: normaliseAllowedOrigins(allowedOrigins) }),
        ...(requireSignedTags === undefined ? {} : { requireSignedTags }),
        ...(signaturesExpire === undefined ? {} : { signaturesExpire }),
        ...(pushFormat === undefined ? {} : { pushFormat }),
        ...(defaultUrl === undefined ? {} : { defaultUrl }),
      };
      const updated = isUuid(request.params.appId)
        ? await updateApp(app.db, user.id, request.params.appId, changes)
        : null;
      if (!updated) throw new AppError('NOT_FOUND');
      // CONTRACT 1.2: a declarative app needs the page its clicks open when a send has no url.
      if (updated === 'needs_default_url') throw new AppError('MISSING_FIELDS');
      await app.apiKeyPrincipals.changed({ appId: updated.id });
      request.log.info({ userId: user.id, appId: updated.id, changes: Object.keys(changes) }, 'app updated');
      return { app: publicApp(updated) };
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
      await app.apiKeyPrincipals.changed({ appId: request.params.appId });
      request.log.info({ userId: user.id, appId: request.params.appId }, 'app deleted');
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/:appId/identity-secret',
    {
      schema: {
        tags: ['apps'],
        summary: 'Create or replace the identity secret your server signs uids with (uidSignature)',
        description:
          'Shown only in this answer and stored encrypted. Replacing it invalidates every signature made with the old one for new subscribes.',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 201: IdentitySecretResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'CONFIG_ERROR') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const secret = generateIdentitySecret();
      const stored =
        isUuid(request.params.appId) &&
        (await storeIdentitySecret(
          app.db,
          user.id,
          request.params.appId,
          app.secrets.seal(secret, identitySecretContext(request.params.appId)),
        ));
      if (!stored) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: request.params.appId }, 'identity secret replaced');
      return reply.code(201).send({ secret });
    },
  );

  app.post(
    '/:appId/vapid-key/rotate',
    {
      schema: {
        tags: ['apps'],
        summary: 'Replace the app’s VAPID key pair with a new one',
        description:
          'The app object and GET /vapid-public-key give the new key from now on; new subscriptions are made with it. Existing subscriptions keep being pushed with the key they were made with (the earlier private keys are kept, encrypted) until the browser subscribes again; the SDK does that by itself.',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: AppResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'CONFIG_ERROR') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const { appId } = request.params;
      const keys = webpush.generateVAPIDKeys();
      const rotated =
        isUuid(appId) &&
        (await rotateVapidKey(app.db, user.id, appId, {
          vapidPublicKey: keys.publicKey,
          vapidPrivateKeySealed: app.secrets.seal(keys.privateKey, vapidKeyContext(appId)),
        }));
      if (!rotated) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ appId });
      request.log.info({ userId: user.id, appId, version: rotated.vapidKeyVersion }, 'VAPID key rotated');
      return { app: publicApp(rotated) };
    },
  );
}
