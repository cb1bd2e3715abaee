import { type App, findApp, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The app of `/apps/:appId/**`, owned by the caller: set before every handler of the subtree. */
    ownedApp: App;
  }
}

/**
 * The caller's app, or 404 — also for another user's app and a malformed id, so tenants never learn
 * of each other. A session owns the apps of its user; an API key (test-notification) is bound to
 * its own app, and the auth hook has already answered APP_MISMATCH for a key of another app.
 */
async function resolveOwnedApp(app: FastifyInstance, request: FastifyRequest): Promise<App> {
  const { principal } = request;
  const { appId } = request.params as { appId: string };
  let found: App | null = null;
  if (principal?.kind === 'session' || principal?.kind === 'accessToken') {
    found = isUuid(appId) ? await findApp(app.db, principal.user.id, appId) : null;
  } else if (principal?.kind === 'apiKey') {
    found = await findApp(app.db, principal.apiKey.userId, principal.apiKey.appId);
  }
  if (!found) throw new AppError('NOT_FOUND');
  return found;
}

/**
 * /apps/:appId/**: the app is looked up here, once per request, after authentication and input
 * validation (so MISSING_FIELDS and INVALID_INPUT keep their place before NOT_FOUND), and handed to
 * the handler as `request.ownedApp`. Routes below never look the app up themselves.
 */
export default async function ownedAppHooks(app: FastifyInstance) {
  app.decorateRequest('ownedApp', null as unknown as App);
  app.addHook('preHandler', async (request) => {
    request.ownedApp = await resolveOwnedApp(app, request);
  });
}
