import { findClickLinkTarget, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { ClickTokens } from '@webpush/push';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../schemas/common.js';

const ClickLinkParams = Type.Object({ token: Type.String({ description: 'The token of a click link' }) });

/**
 * GET /c/<token>: the click links of declarative payloads (docs/sending.md, "Declarative Web Push").
 * Safari opens the link itself, without any script of the site, so the click is counted here: the
 * token (signed by the worker for one notification, subscription and link) verifies, the
 * notification still exists, and the answer is a 302 to the URL stored on the notification (never
 * one carried in the token: no open redirect). Counted like POST /events, once per subscription
 * (and per action), through the engagement buffer.
 */
export default async function clickLinkRoutes(app: FastifyInstance) {
  const { encryptionKey } = app.config;
  const tokens = encryptionKey ? ClickTokens.fromEncryptionKey(encryptionKey) : null;

  app.get<{ Params: { token: string } }>(
    '/:token',
    {
      schema: {
        tags: ['engagement'],
        summary: 'A click link of a declarative notification: counts the click and redirects to its page',
        params: ClickLinkParams,
        response: { ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const target = tokens?.verify(request.params.token) ?? null;
      if (!target || !isUuid(target.notificationId, target.subscriptionId)) throw new AppError('NOT_FOUND');
      const found = await findClickLinkTarget(app.db, target.notificationId, target.subscriptionId);
      if (!found) throw new AppError('NOT_FOUND');
      const { payload, defaultUrl } = found;
      const action = target.link === 0 ? undefined : payload.actions?.[target.link - 1];
      if (target.link !== 0 && !action) throw new AppError('NOT_FOUND');
      const location = action?.url ?? payload.url ?? defaultUrl;
      if (!location) throw new AppError('NOT_FOUND');
      await app.engagement
        .record({
          notificationId: target.notificationId,
          subscriptionId: target.subscriptionId,
          type: 'clicked',
          ...(action ? { action: action.action } : {}),
        })
        .catch((error: unknown) => request.log.warn({ err: error }, 'click not buffered'));
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );
}
