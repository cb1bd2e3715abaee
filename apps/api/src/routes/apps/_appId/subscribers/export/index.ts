import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { recordAudit } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { ExportQuery } from '#schemas/subscribers.js';
import { subscriberExportStream } from './export-stream.js';

/**
 * Exports this process streams at once: each holds a thread and a database connection of its own
 * for as long as its client reads, so a few slow downloads must not take the machine's memory or
 * the database's connections.
 */
const MAX_CONCURRENT_EXPORTS = 2;

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  /** The files being streamed; a slot is free again once its thread has exited. */
  const running = new Set<Readable>();
  /** Exports past the check whose stream is not made yet (the key export writes its audit entry first). */
  let reserved = 0;
  // A closing API does not wait for a download to finish (the server would, for as long as the
  // client reads): before the server closes, the downloads end and their threads with them.
  app.addHook('preClose', async () => {
    await Promise.all(
      [...running].map(
        (stream) =>
          new Promise<void>((resolve) => {
            stream.once('close', resolve).destroy();
          }),
      ),
    );
  });

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
      if (running.size + reserved >= MAX_CONCURRENT_EXPORTS) {
        throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': '10' } });
      }
      // The slot is held across the audit write, so two exports asked at once cannot both pass the check.
      reserved++;
      try {
        if (format === 'jsonl') {
          // Keys out of the service: written to the app's audit log before the first byte leaves.
          await recordAudit(
            app.db,
            { appId },
            { ...auditContext(request), action: 'subscribers.keys_exported', target: { type: 'app', id: appId } },
          );
          request.log.info({ userId: user.id, appId }, 'subscriber keys exported');
        }
      } finally {
        reserved--;
      }
      const stream = subscriberExportStream({ databaseUrl: app.config.databaseUrl, appId, format });
      running.add(stream);
      app.metrics.subscriberExports.set(running.size);
      stream.once('close', () => {
        running.delete(stream);
        app.metrics.subscriberExports.set(running.size);
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
