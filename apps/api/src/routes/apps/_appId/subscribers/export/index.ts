import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type ExportedSubscription, exportSubscriptionKeys, exportSubscriptions, recordAudit } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { ExportQuery } from '#schemas/subscribers.js';
import { csvRecord } from './csv.js';

const CSV_HEADER = ['id', 'endpoint', 'status', 'uid', 'tags', 'language', 'timeZone', 'createdAt'];

/**
 * Exports this process streams at once: each holds a database connection for as long as its client
 * reads, so a few slow downloads must not take the pool from every other request.
 */
const MAX_CONCURRENT_EXPORTS = 2;

async function* csvChunks(batches: AsyncIterable<ExportedSubscription[]>) {
  yield csvRecord(CSV_HEADER);
  for await (const rows of batches) {
    let chunk = '';
    for (const row of rows) {
      chunk += csvRecord([
        row.id,
        row.endpoint,
        row.status,
        row.uid,
        JSON.stringify(row.tags),
        row.language,
        row.timeZone,
        row.createdAt,
      ]);
    }
    yield chunk;
  }
}

async function* jsonLines(batches: ReturnType<typeof exportSubscriptionKeys>) {
  for await (const rows of batches) {
    let chunk = '';
    for (const row of rows) {
      chunk += `${JSON.stringify({
        endpoint: row.endpoint,
        keys: { p256dh: row.p256dh, auth: row.auth },
        ...(row.uid === null ? {} : { uid: row.uid }),
        tags: row.tags,
        vapidPublicKey: row.vapidPublicKey,
        createdAt: row.createdAt,
      })}\n`;
    }
    yield chunk;
  }
}

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  let running = 0;

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['subscribers'],
        summary: "The app's subscribers as a file: CSV, or JSON lines with their keys (sensitive)",
        description:
          'Streamed, oldest first, whatever the number of subscriptions. CSV (`text/csv`): one row per subscription, header `id,endpoint,status,uid,tags,language,timeZone,createdAt`, tags as JSON, quoted as RFC 4180 says. `format=jsonl` (`application/x-ndjson`): each active subscription with its keys, as POST /apps/{appId}/subscribers/import takes it, for moving to another instance; owner only, recorded in the app’s audit log as `subscribers.keys_exported`. 429 RATE_LIMITED while this API process already streams two exports.',
        security: sessionSecurity,
        params: AppIdParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The file, streamed',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/x-ndjson': { schema: { type: 'string' } },
            },
          },
          ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND', 'RATE_LIMITED'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const appId = request.ownedApp.id;
      const format = request.query.format ?? 'csv';
      if (running >= MAX_CONCURRENT_EXPORTS) {
        throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': '10' } });
      }
      if (format === 'jsonl') {
        // Keys out of the service: written to the app's audit log before the first byte leaves.
        await recordAudit(
          app.db,
          { appId },
          { ...auditContext(request), action: 'subscribers.keys_exported', target: { type: 'app', id: appId } },
        );
        request.log.info({ userId: user.id, appId }, 'subscriber keys exported');
      }
      running++;
      const stream = Readable.from(
        format === 'jsonl'
          ? jsonLines(exportSubscriptionKeys(app.db, appId))
          : csvChunks(exportSubscriptions(app.db, appId)),
        // Two batches ahead at most: the socket's own buffer holds the rest of what is in flight.
        { highWaterMark: 2 },
      );
      stream.once('close', () => {
        running--;
      });
      const day = new Date().toISOString().slice(0, 10);
      // The schema documents the file as a string; it is sent as the stream that makes it.
      return (reply as FastifyReply)
        .type(format === 'jsonl' ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="subscribers-${appId}-${day}.${format}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );
}
