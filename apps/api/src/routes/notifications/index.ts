import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findNotification, findSubscriptionsByEndpoints } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiKeyPrincipal } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  IdempotencyHeaders,
  MAX_BATCH_ENDPOINTS,
  NotificationIdParams,
  NotificationResponse,
  NotifyBatchBody,
  NotifyBatchResponse,
  NotifyBody,
  NotifyResponse,
} from '../../schemas/notifications.js';
import {
  assertPayload,
  countRefusedSends,
  notificationAcceptor,
  payloadOf,
  type Sender,
  sendErrors,
} from './accept.js';
import { cancelNotification, publicNotification } from './public-notification.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'INSUFFICIENT_SCOPE', 'RATE_LIMITED'] as const;

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

/** The key's app, its owner and the owner's plan. */
const keySender = (request: FastifyRequest): Sender => {
  const principal = apiKeyPrincipal(request);
  return { appId: principal.appId, userId: principal.userId, plan: principal.plan, pushFormat: principal.pushFormat };
};

/** Sending routes (CONTRACT "Sending"), authenticated by an API key of scope `notify` or `full`. */
export default async function notificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'notify' })];
  const sending = notificationAcceptor(app);
  countRefusedSends(app);

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
          ...errorResponses(...sendErrors, ...authErrors, 'NOT_FOUND', 'SUBSCRIPTION_EXPIRED'),
        },
      },
    },
    async (request, reply) => sending.sendNotify(request, reply, keySender(request), request.body),
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
        response: { 202: NotifyBatchResponse, ...errorResponses(...sendErrors, ...authErrors, 'TOO_MANY_ENDPOINTS') },
      },
    },
    async (request, reply) => {
      const sender = keySender(request);
      const { body } = request;
      const checked = await sending.checkedOrReplayed(request, reply, sender, async () => {
        sending.requireEncryptionKey();
        assertPayload(payloadOf(body), sender.pushFormat, sending.clickLinkBase);
        const endpoints = [...new Set(body.endpoints)];
        return { endpoints, matches: await findSubscriptionsByEndpoints(app.db, sender.appId, endpoints) };
      });
      if (checked.replayed) return reply;
      const { endpoints, matches } = checked.value;
      const byEndpoint = new Map(matches.map((match) => [match.endpoint, match]));
      const unknownEndpoints = endpoints.filter((endpoint) => !byEndpoint.has(endpoint));
      const expiredEndpoints = matches.filter((match) => match.status !== 'active').map((match) => match.endpoint);
      const subscriptionIds = matches.filter((match) => match.status === 'active').map((match) => match.id);
      return sending.accept(
        request,
        reply,
        sender,
        'batch',
        body,
        { kind: 'batch', subscriptionIds },
        ({ id, targets }) => ({
          notification: { id, status: 'queued' as const, targets },
          unknownEndpoints,
          expiredEndpoints,
        }),
      );
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
      return { notification: publicNotification(found) };
    },
  );

  app.delete(
    '/notifications/:id',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['sending'],
        summary: 'Cancel a scheduled send of the API key’s app',
        description: 'Only a notification still `scheduled` can be canceled; any other is 409 NOT_CANCELABLE.',
        security: keySecurity,
        params: NotificationIdParams,
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'NOT_CANCELABLE') },
      },
    },
    async (request) => ({
      notification: await cancelNotification(app.db, apiKeyPrincipal(request).appId, request.params.id),
    }),
  );
}
