import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteWebhook, findWebhook, putWebhook } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { webhookSecretContext } from '@webpush/secrets';
import { checkWebhookUrl, createNameResolver, generateWebhookSecret } from '@webpush/webhooks';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { PutWebhookBody, WebhookOrNoneResponse, WebhookWithSecretResponse } from '#schemas/webhooks.js';
import { publicWebhook } from './public-webhook.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const settings = app.config.webhooks;
  const resolve = createNameResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs });

  app.put(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: "Set the app's webhook URL and events; the answer carries the signing secret",
        description:
          'The URL must be https:// and resolve to a public address (no loopback, private, link-local, CGNAT, ' +
          'multicast or cloud-metadata address, IPv4 or IPv6, IPv4-mapped included): otherwise 400 INVALID_URL. ' +
          'The address is checked again at every connection. The first PUT creates the secret (`whsec_…`); ' +
          'a later one keeps it (rotate it with rotate-secret).',
        security: sessionSecurity,
        params: AppIdParams,
        body: PutWebhookBody,
        response: {
          200: WebhookWithSecretResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_INPUT',
            ...authErrors,
            'FORBIDDEN',
            'NOT_FOUND',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      const { url, events } = request.body;
      const check = await checkWebhookUrl(url, settings, { resolve, timeoutMs: settings.dnsTimeoutMs });
      if (!check.ok) throw new AppError('INVALID_URL');
      const context = webhookSecretContext(owned.id);
      const existing = await findWebhook(app.db, owned.id);
      const secret = existing ? app.secrets.open(existing.secretSealed, context) : generateWebhookSecret();
      const saved = await putWebhook(
        app.db,
        owned.id,
        {
          url,
          events,
          secretSealed: existing?.secretSealed ?? app.secrets.seal(secret, context),
        },
        auditContext(request),
      );
      request.log.info({ userId: user.id, appId: owned.id, events, created: !existing }, 'webhook set');
      return { webhook: { ...publicWebhook(saved), secret } };
    },
  );

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['webhooks'],
        summary: "The app's webhook, without its secret; `{webhook: null}` when it has none",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: WebhookOrNoneResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      // An app without a webhook is the usual case, not an error: the dashboard asks on every app page.
      const webhook = await findWebhook(app.db, owned.id);
      return { webhook: webhook ? publicWebhook(webhook) : null };
    },
  );

  app.delete(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: "Remove the app's webhook; events not yet delivered are dropped",
        security: sessionSecurity,
        params: AppIdParams,
        response: {
          204: { type: 'null', description: 'Removed' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      if (!(await deleteWebhook(app.db, owned.id, auditContext(request)))) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook removed');
      return reply.code(204).send(null);
    },
  );
}
