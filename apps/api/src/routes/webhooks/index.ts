import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  deleteWebhook,
  findWebhook,
  isUuid,
  listWebhookAttempts,
  putWebhook,
  resendWebhookMessage,
  setWebhookSecret,
  type Webhook,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { jobNames, webhookJobOptions } from '@webpush/queue';
import { checkWebhookUrl, generateWebhookSecret } from '@webpush/webhooks';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '../../plugins/app/auth.js';
import { integerQuery } from '../../plugins/app/validation.js';
import { AppIdParams, errorResponses } from '../../schemas/common.js';
import {
  PutWebhookBody,
  ResendResponse,
  SecretResponse,
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
  WebhookMessageParams,
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
  const policy = { allowedHosts: app.config.webhooks.allowedHosts };

  app.put(
    '/',
    {
      schema: {
        tags: ['webhooks'],
        summary: "Set the app's webhook (creates the signing secret the first time; shown only then)",
        description:
          'The URL must be https:// and resolve to a public address (no loopback, private, link-local, CGNAT, ' +
          'multicast or metadata addresses, IPv4 or IPv6): otherwise 400 INVALID_URL. The address is checked ' +
          'again at every connection. Replacing an existing webhook keeps its secret; the answer then repeats it.',
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
      const check = await checkWebhookUrl(url, policy);
      if (!check.ok) throw new AppError('INVALID_URL');
      const existing = await findWebhook(app.db, owned.id);
      const secret = existing ? app.secrets.open(existing.secretSealed) : generateWebhookSecret();
      const saved = await putWebhook(app.db, owned.id, { url, events, secretSealed: app.secrets.seal(secret) });
      request.log.info({ userId: user.id, appId: owned.id, events }, 'webhook set');
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
        summary: "Remove the app's webhook; pending deliveries are dropped",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      if (!(await deleteWebhook(app.db, owned.id))) throw new AppError('NOT_FOUND');
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
        response: { 200: SecretResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'CONFIG_ERROR') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = await ownedApp(app.db, user.id, request.params.appId);
      const webhook = await findWebhook(app.db, owned.id);
      if (!webhook) throw new AppError('NOT_FOUND');
      const secret = generateWebhookSecret();
      if (!(await setWebhookSecret(app.db, owned.id, app.secrets.seal(secret)))) throw new AppError('NOT_FOUND');
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
    '/deliveries/:messageId/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a message again now ("send again"), with the same webhook-id',
        security: sessionSecurity,
        params: WebhookMessageParams,
        response: { 202: ResendResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      const { messageId } = request.params;
      if (!isUuid(messageId) || !(await resendWebhookMessage(app.db, owned.id, messageId))) {
        throw new AppError('NOT_FOUND');
      }
      // A finished job with this id would make `add` a no-op: remove it first. Should this fail
      // (Redis down), the worker's sweep queues the pending message later anyway.
      const { webhooks: queue } = app.queues;
      const settings = app.config.webhooks;
      try {
        await (await queue.getJob(messageId))?.remove();
        await queue.add(
          jobNames.deliverWebhook,
          { messageId },
          { ...webhookJobOptions(settings.maxAttempts, settings.backoffMs), jobId: messageId },
        );
      } catch (error) {
        request.log.warn({ err: error, messageId }, 'resend not queued; the sweep will');
      }
      return reply.code(202).send({ message: { id: messageId, status: 'pending' as const } });
    },
  );
}
