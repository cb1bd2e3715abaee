import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteSubscriptionById, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { SubscriberParams } from '#schemas/subscribers.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['subscribers'],
        summary: 'Delete a subscriber: it is no longer a target of any send',
        security: sessionSecurity,
        params: SubscriberParams,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { appId, subscriberId } = request.params;
      const owned = request.ownedApp;
      const deleted = isUuid(subscriberId) && (await deleteSubscriptionById(app.db, owned.id, subscriberId));
      if (!deleted) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId, subscriberId }, 'subscriber deleted');
      return reply.code(204).send(null);
    },
  );
}
