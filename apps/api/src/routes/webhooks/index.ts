import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  deleteWebhook,
  findWebhook,
  isUuid,
  listWebhookAttempts,
  putWebhook,
  resendWebhookAttempt,
  setWebhookSecret,
  type Webhook,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { queueWebhookMessage } from '@webpush/queue';
import { webhookSecretContext } from '@webpush/secrets';
import { checkWebhookUrl, createNameResolver, generateWebhookSecret } from '@webpush/webhooks';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '../../plugins/app/auth.js';
import { integerQuery } from '../../plugins/app/validation.js';
import { AppIdParams, errorResponses } from '../../schemas/common.js';
import {
  PutWebhookBody,
  ResendResponse,
  RotatedSecretResponse,
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
  WebhookDeliveryParams,
  WebhookResponse,
  WebhookWithSecretResponse,
} from '../../schemas/webhooks.js';
import { ownedApp } from '../apps/owned-app.js';

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

const publicWebhook = (webhook: Webhook) => ({ url: webhook.url, events: webhook.events });

/** The app's webhook endpoint (Standard Webhooks), for its owner's session: mounted at /apps/:appId/webhook. */
export default async function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));
  const settings = app.config.webhooks;
  // c-ares on the event loop: a name server that never answers cannot take the thread pool argon2 needs.
  const resolve = createNameResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs });

  app.put(
    '/',
    {
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
            'NOT_FOUND',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = await ownedApp(app.db, user.id, request.params.appId);
      const { url, events } = request.body;
      const check = await checkWebhookUrl(url, settings, { resolve, timeoutMs: settings.dnsTimeoutMs });
      if (!check.ok) throw new AppError('INVALID_URL');
      const context = webhookSecretContext(owned.id);
      const existing = await findWebhook(app.db, owned.id);
      const secret = existing ? app.secrets.open(existing.secretSealed, context) : generateWebhookSecret();
      const saved = await putWebhook(app.db, owned.id, {
        url,
        events,
        secretSealed: existing?.secretSealed ?? app.secrets.seal(secret, context),
      });
      request.log.info({ userId: user.id, appId: owned.id, events, created: !existing }, 'webhook set');
      return { webhook: { ...publicWebhook(saved), secret } };
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['webhooks'],
        summary: "The app's webhook, without its secret",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: WebhookResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      const webhook = await findWebhook(app.db, owned.id);
      if (!webhook) throw new AppError('NOT_FOUND');
      return { webhook: publicWebhook(webhook) };
    },
  );

  app.delete(
    '/',
    {
      schema: {
        tags: ['webhooks'],
        summary: "Remove the app's webhook; events not yet delivered are dropped",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const owned = await ownedApp(app.db, user.id, request.params.appId);
      if (!(await deleteWebhook(app.db, owned.id))) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook removed');
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/rotate-secret',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Replace the signing secret; the new one is shown only in this answer',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: RotatedSecretResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'CONFIG_ERROR') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = await ownedApp(app.db, user.id, request.params.appId);
      const secret = generateWebhookSecret();
      const webhook = await setWebhookSecret(
        app.db,
        owned.id,
        app.secrets.seal(secret, webhookSecretContext(owned.id)),
      );
      if (!webhook) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook secret rotated');
      return { webhook: { ...publicWebhook(webhook), secret } };
    },
  );

  app.get(
    '/deliveries',
    {
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['webhooks'],
        summary: 'Recent delivery attempts, newest first: status, duration, the first bytes of the answer',
        security: sessionSecurity,
        params: AppIdParams,
        querystring: WebhookDeliveriesQuery,
        response: { 200: WebhookDeliveriesResponse, ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      const attempts = await listWebhookAttempts(app.db, owned.id, request.query.limit ?? 50);
      return {
        deliveries: attempts.map((attempt) => ({ ...attempt, createdAt: attempt.createdAt.toISOString() })),
      };
    },
  );

  app.post(
    '/deliveries/:deliveryId/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'Send again: the event of this attempt goes out now, with the same webhook-id and a fresh set of retries',
        security: sessionSecurity,
        params: WebhookDeliveryParams,
        response: { 202: ResendResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'RATE_LIMITED') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const owned = await ownedApp(app.db, user.id, request.params.appId);
      // Each one sends a request to the customer's receiver: bounded per app (fails open with Redis).
      const { windowSeconds, webhookResendMax } = app.config.rateLimit;
      const budget = await app.withinBudget(`webhook-resend:${owned.id}`, webhookResendMax, windowSeconds * 1000);
      if (budget === false) throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(windowSeconds) } });
      const { deliveryId } = request.params;
      const messageId = isUuid(deliveryId) ? await resendWebhookAttempt(app.db, owned.id, deliveryId) : null;
      if (messageId === null) throw new AppError('NOT_FOUND');
      // Should Redis be down, the event is pending in PostgreSQL: the worker's relay queues it later.
      await queueWebhookMessage(app.queues.webhooks, messageId, settings, { replaceWaiting: true }).catch(
        (error: unknown) => request.log.warn({ err: error, messageId }, 'send again not queued; the relay will'),
      );
      request.log.info({ userId: user.id, appId: owned.id, messageId }, 'webhook event sent again');
      return reply.code(202).send({ delivery: { messageId, status: 'pending' as const } });
    },
  );
}
