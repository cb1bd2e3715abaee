import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { rotateVapidKey } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import webpush from 'web-push';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { publicApp } from '#routes/apps/public-app.js';
import { AppResponse } from '#schemas/apps.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['apps'],
        summary: 'Replace the app’s VAPID key pair with a new one',
        description:
          'The app object and GET /vapid-public-key give the new key from now on; new subscriptions are made with it. Existing subscriptions keep being pushed with the key they were made with (the earlier private keys are kept, encrypted) until the browser subscribes again; the SDK does that by itself.',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: AppResponse, ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND', 'CONFIG_ERROR') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const appId = request.ownedApp.id;
      const keys = webpush.generateVAPIDKeys();
      const rotated = await rotateVapidKey(
        app.db,
        request.ownedApp.userId,
        appId,
        {
          vapidPublicKey: keys.publicKey,
          vapidPrivateKeySealed: app.secrets.seal(keys.privateKey, vapidKeyContext(appId)),
        },
        auditContext(request),
      );
      if (!rotated) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ appId });
      request.log.info({ userId: user.id, appId, version: rotated.vapidKeyVersion }, 'VAPID key rotated');
      return { app: publicApp(rotated, request.appAccess.role) };
    },
  );
}
