import { type App, type AppAccess, type AppRole, findAppAccess, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { roleAllows } from './app-roles.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The app of `/apps/:appId/**`, owned by the caller or one they are a member of: set before every
     * handler of the subtree. `ownedApp.userId` is its owner, whose account the app counts against.
     */
    ownedApp: App;
    /** The caller's role on `ownedApp` and the plan of its owner, from the same lookup. */
    appAccess: Omit<AppAccess, 'app'>;
  }
  interface FastifyContextConfig {
    /**
     * The least role a route of /apps/:appId/** needs (docs/accounts.md, "Teams"). Every route there
     * declares one (test/routes/app-roles.test.ts walks the tree); one that does not needs `owner`.
     */
    appRole?: AppRole;
    /** The route's `:userId` may be the caller's own whatever their role (anyone may leave an app). */
    appRoleWaivedForSelf?: boolean;
  }
}

/**
 * The caller's app, or 404 — also for an app they have no role on and a malformed id, so tenants
 * never learn of each other. A session (or personal access token) reaches the apps its user owns or
 * is a member of; an API key (test-notification) is bound to its own app, acting as its owner, and
 * the auth hook has already answered APP_MISMATCH for a key of another app.
 */
async function resolveAppAccess(app: FastifyInstance, request: FastifyRequest): Promise<AppAccess> {
  const { principal } = request;
  const { appId } = request.params as { appId: string };
  let found: AppAccess | null = null;
  if (principal?.kind === 'session' || principal?.kind === 'accessToken') {
    found = isUuid(appId) ? await findAppAccess(app.db, principal.user.id, appId) : null;
  } else if (principal?.kind === 'apiKey') {
    found = await findAppAccess(app.db, principal.apiKey.userId, principal.apiKey.appId);
  }
  if (!found) throw new AppError('NOT_FOUND');
  return found;
}

function requireRole(request: FastifyRequest, role: AppRole): void {
  const { appRole = 'owner', appRoleWaivedForSelf } = request.routeOptions.config;
  if (roleAllows(role, appRole)) return;
  const { principal } = request;
  const self =
    appRoleWaivedForSelf === true &&
    (principal?.kind === 'session' || principal?.kind === 'accessToken') &&
    (request.params as { userId?: string }).userId === principal.user.id;
  if (!self) throw new AppError('FORBIDDEN');
}

/**
 * /apps/:appId/**: the app and the caller's role on it are looked up here, in one query per request,
 * after authentication and input validation (so MISSING_FIELDS and INVALID_INPUT keep their place
 * before NOT_FOUND), then the route's `appRole` is checked (403 FORBIDDEN before the handler runs,
 * so nothing changes). Routes below never look the app up or check a role themselves.
 */
export default async function ownedAppHooks(app: FastifyInstance) {
  app.decorateRequest('ownedApp', null as unknown as App);
  app.decorateRequest('appAccess', null as unknown as Omit<AppAccess, 'app'>);
  app.addHook('preHandler', async (request) => {
    const { app: found, role, ownerPlan } = await resolveAppAccess(app, request);
    requireRole(request, role);
    request.ownedApp = found;
    request.appAccess = { role, ownerPlan };
  });
}
