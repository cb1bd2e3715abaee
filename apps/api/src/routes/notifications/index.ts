import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  acceptNotification,
  findIdempotentResponse,
  findNotification,
  findSubscriptionsByEndpoints,
  type NotificationPayload,
  type NotificationTarget,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { fanOutJobId, jobNames } from '@webpush/queue';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyPrincipal } from '../../plugins/app/auth.js';
import { toAppError } from '../../plugins/app/error-handler.js';
import { errorResponses } from '../../schemas/common.js';
import {
  DEFAULT_TTL_SECONDS,
  IdempotencyHeaders,
  MAX_BATCH_ENDPOINTS,
  MAX_PAYLOAD_BYTES,
  NotificationIdParams,
  NotificationResponse,
  NotifyBatchBody,
  NotifyBatchResponse,
  NotifyBody,
  NotifyResponse,
} from '../../schemas/notifications.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'INSUFFICIENT_SCOPE', 'RATE_LIMITED'] as const;
const sendErrors = [
  'MISSING_FIELDS',
  'INVALID_URL',
  'INVALID_ENDPOINT',
  'INVALID_INPUT',
  ...authErrors,
  'PAYLOAD_TOO_LARGE',
  'MONTHLY_LIMIT_EXCEEDED',
  'CONFIG_ERROR',
] as const;

/** What the browser receives: the present fields among title, body, url, icon, badge, in that order. */
function payloadOf(body: NotifyBody | NotifyBatchBody): NotificationPayload {
  const payload: NotificationPayload = { title: body.title, body: body.body };
  if (body.url !== undefined) payload.url = body.url;
  if (body.icon !== undefined) payload.icon = body.icon;
  if (body.badge !== undefined) payload.badge = body.badge;
  return payload;
}

/** CONTRACT "Sending": UTF-8 bytes of `JSON.stringify` of the payload fields, escapes included. */
function assertPayloadSize(payload: NotificationPayload): void {
  if (Buffer.byteLength(JSON.stringify(payload), 'utf8') > MAX_PAYLOAD_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
}

const isMissing = (value: unknown) => value === undefined || value === null || value === '';

/**
 * The endpoint count, decided before the per-endpoint checks. An empty list is MISSING_FIELDS (AJV
 * would call it INVALID_INPUT). More than 100 is TOO_MANY_ENDPOINTS, without validating a thousand
 * endpoints to refuse them all, but after missing fields, which come first in the contract's order:
 * with title or body missing, validation runs and answers MISSING_FIELDS.
 */
async function checkEndpointCount(request: FastifyRequest) {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray(body.endpoints)) return;
  if (body.endpoints.length === 0) throw new AppError('MISSING_FIELDS');
  if (body.endpoints.length <= MAX_BATCH_ENDPOINTS || isMissing(body.title) || isMissing(body.body)) return;
  throw new AppError('TOO_MANY_ENDPOINTS');
}

// Plain-object views of the schemas for `serializeInput`, made once so Fastify's compile cache holds.
const notifyAnswer: Record<string, unknown> = { ...NotifyResponse };
const batchAnswer: Record<string, unknown> = { ...NotifyBatchResponse };

/**
 * The first answer to an `Idempotency-Key`, byte for byte: serialized with the schema of the route
 * that gave it, so a key first used on the other sending route replays that answer instead of failing
 * (or trimming it to) this route's response schema.
 */
const sendReplay = (reply: FastifyReply, response: Record<string, unknown>) =>
  reply
    .code(202)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(reply.serializeInput(response, 'unknownEndpoints' in response ? batchAnswer : notifyAnswer));

/** Sending routes (CONTRACT "Sending"), authenticated by an API key of scope `notify` or `full`. */
export default async function notificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'notify' })];

  app.addHook('onError', async (request, _reply, error) => {
    if (request.method !== 'POST') return;
    app.metrics.notificationsRefused.inc({ code: toAppError(error, request)?.code ?? 'INTERNAL_ERROR' });
  });

  /** Queues the fan-out after the notification is committed; if Redis fails now, the reconciler re-queues it. */
  async function queueFanOut(notificationId: string, log: FastifyBaseLogger) {
    try {
      await app.queues.fanOut.add(jobNames.fanOut, { notificationId }, { jobId: fanOutJobId(notificationId) });
    } catch (error) {
      log.error({ err: error, notificationId }, 'could not queue the fan-out; the worker reconciler will pick it up');
    }
  }

  /** Answers a request with an `Idempotency-Key` seen before, or returns false. */
  async function replayed(request: FastifyRequest, reply: FastifyReply, key: string | undefined) {
    if (key === undefined) return false;
    const response = await findIdempotentResponse(app.db, apiKeyPrincipal(request).appId, key);
    if (response === null) return false;
    await sendReplay(reply, response);
    return true;
  }

  async function accept<R extends Record<string, unknown>>(
    request: FastifyRequest,
    reply: FastifyReply,
    body: NotifyBody | NotifyBatchBody,
    target: NotificationTarget,
    respond: (accepted: { id: string; targets: number }) => R,
  ) {
    const principal = apiKeyPrincipal(request);
    const idempotencyKey = request.headers['idempotency-key'];
    const result = await acceptNotification(
      app.db,
      principal.userId,
      principal.appId,
      {
        payload: payloadOf(body),
        ttl: body.ttl ?? DEFAULT_TTL_SECONDS,
        urgency: body.urgency ?? 'normal',
        topic: body.topic ?? null,
        target,
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
      },
      limitsFor(principal.plan).sendsPerMonth,
      respond,
    );
    if (result.kind === 'limit') throw new AppError('MONTHLY_LIMIT_EXCEEDED');
    if (result.kind === 'replay') return sendReplay(reply, result.response);

    const { notification } = result;
    if (notification.status === 'queued') await queueFanOut(notification.id, request.log);
    app.metrics.notificationsAccepted.inc({ route: target.kind === 'batch' ? 'batch' : 'notify' });
    app.metrics.sendsAccepted.inc(notification.targets);
    request.log.info(
      { notificationId: notification.id, appId: principal.appId, targets: notification.targets },
      'notification accepted',
    );
    return reply.code(202).send(result.response);
  }

  /** The VAPID keys are sealed under ENCRYPTION_KEY: without it nothing can be sent. */
  const requireEncryptionKey = () => {
    if (!app.config.encryptionKey) throw new AppError('CONFIG_ERROR');
  };

  app.post(
    '/notify',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['sending'],
        summary: 'Send to every active subscriber of the app, or to one endpoint',
        security: keySecurity,
        headers: IdempotencyHeaders,
        body: NotifyBody,
        response: {
          202: NotifyResponse,
          ...errorResponses(...sendErrors, 'NOT_FOUND', 'SUBSCRIPTION_EXPIRED'),
        },
      },
    },
    async (request, reply) => {
      if (await replayed(request, reply, request.headers['idempotency-key'])) return reply;
      requireEncryptionKey();
      const { body } = request;
      assertPayloadSize(payloadOf(body));

      let target: NotificationTarget = { kind: 'all' };
      if (body.endpoint !== undefined) {
        const [match] = await findSubscriptionsByEndpoints(app.db, apiKeyPrincipal(request).appId, [body.endpoint]);
        if (!match) throw new AppError('NOT_FOUND');
        if (match.status !== 'active') throw new AppError('SUBSCRIPTION_EXPIRED');
        target = { kind: 'endpoint', subscriptionIds: [match.id] };
      }
      return accept(request, reply, body, target, ({ id, targets }) => ({
        notification: { id, status: 'queued' as const, targets },
      }));
    },
  );

  app.post(
    '/notify/batch',
    {
      onRequest: keyAuth,
      preValidation: checkEndpointCount,
      schema: {
        tags: ['sending'],
        summary: `Send to a list of up to ${MAX_BATCH_ENDPOINTS} endpoints of the app`,
        security: keySecurity,
        headers: IdempotencyHeaders,
        body: NotifyBatchBody,
        response: { 202: NotifyBatchResponse, ...errorResponses(...sendErrors, 'TOO_MANY_ENDPOINTS') },
      },
    },
    async (request, reply) => {
      if (await replayed(request, reply, request.headers['idempotency-key'])) return reply;
      requireEncryptionKey();
      const { body } = request;
      assertPayloadSize(payloadOf(body));

      const endpoints = [...new Set(body.endpoints)];
      const matches = await findSubscriptionsByEndpoints(app.db, apiKeyPrincipal(request).appId, endpoints);
      const byEndpoint = new Map(matches.map((match) => [match.endpoint, match]));
      const unknownEndpoints = endpoints.filter((endpoint) => !byEndpoint.has(endpoint));
      const expiredEndpoints = matches.filter((match) => match.status !== 'active').map((match) => match.endpoint);
      const subscriptionIds = matches.filter((match) => match.status === 'active').map((match) => match.id);
      return accept(request, reply, body, { kind: 'batch', subscriptionIds }, ({ id, targets }) => ({
        notification: { id, status: 'queued' as const, targets },
        unknownEndpoints,
        expiredEndpoints,
      }));
    },
  );

  app.get(
    '/notifications/:id',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['sending'],
        summary: 'Progress of a notification of the API key’s app',
        security: keySecurity,
        params: NotificationIdParams,
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const { id } = request.params;
      const found = await findNotification(app.db, apiKeyPrincipal(request).appId, id);
      if (!found) throw new AppError('NOT_FOUND');
      return {
        notification: {
          id: found.id,
          status: found.status,
          targets: found.targets,
          sent: found.sent,
          failed: found.failed,
          expired: found.expired,
          createdAt: found.createdAt.toISOString(),
          completedAt: found.completedAt?.toISOString() ?? null,
        },
      };
    },
  );
}
