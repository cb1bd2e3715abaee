import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route declares its own `onRequest` authentication (test-notification also takes a `full` API key). */
    authenticatesItself?: boolean;
  }
}

/**
 * /apps/**: a dashboard session or a personal access token (which acts as its user), declared once
 * for the whole subtree. The check goes first in each route's `onRequest`, before any limiter the
 * route adds (as an instance hook would).
 */
export default async function appsHooks(app: FastifyInstance) {
  const session = app.authenticate({ session: true, accessToken: true });
  app.addHook('onRoute', (route) => {
    if (route.config?.authenticatesItself) return;
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [session, ...own];
  });
}
