import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '@webpush/errors';
import type { PushOptions } from '@webpush/push';
import { vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { AppIdParams, errorResponses } from '#schemas/common.js';
import { flattenKeys } from '#schemas/subscriptions.js';
import { TestNotificationBody, TestNotificationResponse } from '#schemas/test-notification.js';

/** The fixed message of every test notification. */
export const TEST_NOTIFICATION = { title: 'テスト通知', body: 'プッシュ通知は正しく設定されています。' } as const;

/** Someone is watching for it now: deliver at once, and not at all if the browser is away for long. */
export const TEST_NOTIFICATION_OPTIONS: PushOptions = { ttl: 300, urgency: 'high' };

/** The app to send as is the session user's (404 for anyone else's) or the key's own: request.ownedApp. */
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }, { sessionCookie: [] }];

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      // Sessions and `full` API keys alike: the route authenticates itself (see ../../autohooks.ts).
      config: { authenticatesItself: true, appRole: 'editor' },
      onRequest: [app.limiters.apiKey, app.authenticate({ apiKey: 'full', session: true, accessToken: true })],
      // Both subscription shapes, like /subscribe.
      preValidation: async (request) =>
        flattenKeys((request.body as { subscription?: unknown } | undefined)?.subscription),
      schema: {
        tags: ['sending'],
        summary: 'Send the fixed test notification to a subscription, synchronously; nothing is stored or counted',
        description:
          'The push service answering 404 or 410 gives 410 SUBSCRIPTION_EXPIRED; any other failure ' +
          '(refusal, rate limit, server error, timeout, malformed keys) gives 502 PUSH_FAILED.',
        security,
        params: AppIdParams,
        body: TestNotificationBody,
        response: {
          200: TestNotificationResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_API_KEY',
            'INVALID_SESSION',
            'INSUFFICIENT_SCOPE',
            'APP_MISMATCH',
            'FORBIDDEN',
            'NOT_FOUND',
            'SUBSCRIPTION_EXPIRED',
            'RATE_LIMITED',
            'PUSH_FAILED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request) => {
      const target = request.ownedApp;
      const outcome = await app.pushSender.send(
        request.body.subscription,
        JSON.stringify({ ...TEST_NOTIFICATION, id: 'test' }),
        {
          cacheKey: target.id,
          publicKey: target.vapidPublicKey,
          privateKey: app.secrets.open(target.vapidPrivateKeySealed, vapidKeyContext(target.id)),
          subject: app.config.vapidSubject,
        },
        TEST_NOTIFICATION_OPTIONS,
      );
      request.log.info({ appId: target.id, outcome }, 'test notification');
      if (outcome.kind === 'sent') return { ok: true as const };
      if (outcome.kind === 'expired') throw new AppError('SUBSCRIPTION_EXPIRED');
      throw new AppError('PUSH_FAILED', { cause: new Error(outcome.reason) });
    },
  );
}
