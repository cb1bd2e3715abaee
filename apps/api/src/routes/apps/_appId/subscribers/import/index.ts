import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type ImportedSubscription, importSubscriptions } from '@webpush/db';
import { AppError, type ErrorCode } from '@webpush/errors';
import { limitsFor, MAX_IMPORT_BODY_BYTES } from '@webpush/plans';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { ImportBody, ImportResponse } from '#schemas/subscribers.js';
import { importValidators } from './entry-checks.js';
import { collectImportGarbage } from './heap-collection.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ajv, envelope, checkEntry } = importValidators(app.config.pushServiceHosts);
  // After the answer is sent, whatever it was: a refused import may have parsed a whole body too.
  app.addHook('onResponse', async () => {
    collectImportGarbage();
  });

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      bodyLimit: MAX_IMPORT_BODY_BYTES,
      // The document shows each entry's shape (ImportBody); the route checks only the list's, and the
      // handler each entry on its own, so a bad entry is refused alone.
      validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? envelope : ajv.compile(schema)),
      schema: {
        tags: ['subscribers'],
        summary: 'Import subscriptions made elsewhere (another service, your own web-push script)',
        description:
          'One transaction: each entry is checked as POST /subscribe checks it (no uidSignature needed) and taken to be made with the app’s current VAPID key. An endpoint the app has is updated. Entries past the plan’s subscriber limit are refused with SUBSCRIBER_LIMIT_EXCEEDED, in list order. Sending the same list again stores nothing more. Bodies up to 4 MiB (413 PAYLOAD_TOO_LARGE above).',
        security: sessionSecurity,
        params: AppIdParams,
        body: ImportBody,
        response: {
          200: ImportResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            ...authErrors,
            'FORBIDDEN',
            'NOT_FOUND',
            'PAYLOAD_TOO_LARGE',
          ),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const appId = request.ownedApp.id;
      const rejected: { index: number; code: ErrorCode }[] = [];
      const accepted: ImportedSubscription[] = [];
      const positions: number[] = [];
      (request.body.subscribers as unknown[]).forEach((value, index) => {
        const checked = checkEntry(value);
        if ('code' in checked) {
          rejected.push({ index, code: checked.code });
        } else {
          accepted.push(checked.entry);
          positions.push(index);
        }
      });
      let imported = 0;
      let updated = 0;
      if (accepted.length > 0) {
        const outcomes = await importSubscriptions(
          app.db,
          request.ownedApp.userId,
          appId,
          accepted,
          limitsFor(request.appAccess.ownerPlan).activeSubscribers,
          { context: auditContext(request), invalid: rejected.length },
        );
        if (outcomes === 'app_gone') throw new AppError('NOT_FOUND');
        outcomes.forEach((outcome, i) => {
          if (outcome === 'imported') imported++;
          else if (outcome === 'updated') updated++;
          else rejected.push({ index: positions[i] ?? -1, code: 'SUBSCRIBER_LIMIT_EXCEEDED' });
        });
        rejected.sort((a, b) => a.index - b.index);
      }
      request.log.info(
        { userId: user.id, appId, imported, updated, rejected: rejected.length },
        'subscribers imported',
      );
      return { imported, updated, rejected };
    },
  );
}
