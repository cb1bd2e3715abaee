import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findApp, notificationAppId, notificationReport, type ReportRow } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csvRecord } from '#routes/apps/_appId/subscribers/export/csv.js';
import { errorResponses, sessionSecurity } from '#schemas/common.js';
import { NotificationIdParams } from '#schemas/notifications.js';

const REPORT_HEADER = [
  'subscriptionId',
  'uid',
  'variant',
  'outcome',
  'failureReason',
  'shown',
  'clicked',
  'actions',
  'converted',
  'conversionValue',
];

const flag = (value: boolean) => (value ? 'true' : 'false');

async function* csvChunks(batches: AsyncIterable<ReportRow[]>) {
  yield csvRecord(REPORT_HEADER);
  for await (const rows of batches) {
    let chunk = '';
    for (const row of rows) {
      chunk += csvRecord([
        row.subscriptionId,
        row.uid,
        row.variant,
        row.outcome,
        row.failureReason,
        flag(row.shown),
        flag(row.clicked),
        row.actions,
        flag(row.converted),
        row.conversionValue,
      ]);
    }
    yield chunk;
  }
}

/**
 * The notification's app when the caller may read it: a `full` key of that app, or a user who has
 * the app. Anything else is 404, as for a notification that does not exist.
 */
async function readableNotificationApp(app: FastifyInstance, request: FastifyRequest, id: string): Promise<string> {
  const appId = await notificationAppId(app.db, id);
  const { principal } = request;
  if (appId !== null) {
    if (principal?.kind === 'apiKey' && principal.apiKey.appId === appId) return appId;
    if (
      (principal?.kind === 'session' || principal?.kind === 'accessToken') &&
      (await findApp(app.db, principal.user.id, appId))
    )
      return appId;
  }
  throw new AppError('NOT_FOUND');
}

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      onRequest: [app.limiters.apiKey, app.authenticate({ apiKey: 'full', session: true, accessToken: true })],
      schema: {
        tags: ['sending'],
        summary: 'What became of each target of a notification, as CSV',
        description:
          'Streamed, in subscription id order, one row per subscription the send was planned for: header `subscriptionId,uid,variant,outcome,failureReason,shown,clicked,actions,converted,conversionValue`, quoted as RFC 4180 says. `outcome` is `sent`, `failed` (with the push service’s answer in `failureReason` when it is known), `expired`, `skipped` or `pending` (still being sent); `variant` is the A/B letter the subscription received; `actions` the buttons it clicked, space-separated. A notification removed by retention (docs/operations.md) is 404, like another app’s.',
        security: [{ apiKey: [] }, ...sessionSecurity],
        params: NotificationIdParams,
        response: {
          200: { description: 'The report, streamed', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...errorResponses(
            'UNAUTHORIZED',
            'INVALID_API_KEY',
            'INVALID_SESSION',
            'INSUFFICIENT_SCOPE',
            'RATE_LIMITED',
            'NOT_FOUND',
          ),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await readableNotificationApp(app, request, id);
      const stream = Readable.from(csvChunks(notificationReport(app.db, id)), { highWaterMark: 2 });
      return (reply as FastifyReply)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="notification-${id}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );
}
