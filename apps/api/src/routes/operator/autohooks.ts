import type { FastifyInstance } from 'fastify';
import { requireOperator } from '#plugins/app/operator.js';

/**
 * /operator/**: the operator console's rule, declared once for the subtree: a live session (a
 * suspended account has none) of a user with the operator role; anyone else is 403 FORBIDDEN
 * before any account is read. First in each route's `onRequest`, as in /apps.
 */
export default async function operatorHooks(app: FastifyInstance) {
  const session = app.authenticate({ session: true });
  app.addHook('onRoute', (route) => {
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [session, requireOperator, ...own];
  });
}
