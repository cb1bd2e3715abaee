import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findSubscriptionsByEndpoints } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses } from '#schemas/common.js';
import {
  IdempotencyHeaders,
  MAX_BATCH_ENDPOINTS,
  NotifyBatchBody,
  NotifyBatchResponse,
} from '#schemas/notifications.js';
import { assertPayload, keySender, notificationAcceptor, payloadOf, sendErrors } from '#sending/accept.js';

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

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sending = notificationAcceptor(app);

  app.post(
    '/',
    {
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
}
