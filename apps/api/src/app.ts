import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autoload from '@fastify/autoload';
import type { Config } from '@webpush/config';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import { logOptions } from './log-options.js';
import apiKeyPrincipalsPlugin from './plugins/app/api-key-principals.js';
import authPlugin from './plugins/app/auth.js';
import configPlugin from './plugins/app/config.js';
import coordinationPlugin from './plugins/app/coordination.js';
import dbPlugin from './plugins/app/db.js';
import engagementBufferPlugin from './plugins/app/engagement-buffer.js';
import errorHandler, { clientErrorHandler, frameworkErrorHandler } from './plugins/app/error-handler.js';
import githubOAuthPlugin from './plugins/app/github-oauth.js';
import mailerPlugin from './plugins/app/mailer.js';
import metricsPlugin from './plugins/app/metrics.js';
import newSubscriptionCapPlugin from './plugins/app/new-subscription-cap.js';
import opsListenerPlugin from './plugins/app/ops-listener.js';
import passwordsPlugin from './plugins/app/passwords.js';
import pushSenderPlugin from './plugins/app/push-sender.js';
import queuesPlugin from './plugins/app/queues.js';

import secretsPlugin from './plugins/app/secrets.js';
import storableInputPlugin from './plugins/app/storable-input.js';
import twoFactorPlugin from './plugins/app/two-factor.js';
import { pushEndpointKeyword } from './plugins/app/validation.js';
import vapidKeyMigrationPlugin from './plugins/app/vapid-key-migration.js';
import bullBoardPlugin from './plugins/external/bull-board.js';
import cookiePlugin from './plugins/external/cookie.js';
import corsPlugin from './plugins/external/cors.js';
import rateLimitPlugin from './plugins/external/rate-limit.js';
import swaggerPlugin from './plugins/external/swagger.js';
import tracingPlugin from './plugins/external/tracing.js';
import { OneLineLogController } from './request-log.js';
import { cachingSerializerFactory } from './serializer-cache.js';
import clickLinkRoutes from './site/c/index.js';
import dashboardRoutes, { type DashboardDevServer } from './site/dashboard/index.js';
import demoRoutes from './site/demo/index.js';
import healthRoutes from './site/health.js';
import metricsRoutes from './site/metrics.js';
import sdkRoutes from './site/sdk/index.js';

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Test-only: where the API's own logger (`logOptions`) writes, instead of stdout. */
  logStream?: { write(line: string): void };
  /** Test-only: a CA (PEM) outgoing pushes trust besides Node's roots; processes use NODE_EXTRA_CA_CERTS. */
  pushExtraCa?: string;
  /** Test-only: called with the text of every statement the API sends to PostgreSQL (round-trip counts). */
  onQuery?: (query: string) => void;
  /** Test-only: sees every route as it is registered (the route-tree test walks them). */
  onRoute?: (route: RouteOptions) => void;
  /** Where the built dashboard lives (tests); default apps/dashboard/dist. */
  dashboardDistDir?: string;
}

interface DashboardDevModule {
  createDashboardDevServer(options: { httpServer: FastifyInstance['server'] }): Promise<DashboardDevServer>;
}

/**
 * `DASHBOARD_DEV_SERVER` (pnpm dev): the dashboard from source through Vite, made when the dashboard
 * routes first need it. Loaded only then, by a specifier the compiler does not follow: Vite is a
 * development dependency of the dashboard alone.
 */
function dashboardDevServer(app: FastifyInstance): (() => Promise<DashboardDevServer>) | undefined {
  if (!app.config.dashboardDevServer) return undefined;
  return async () => {
    const specifier = '@webpush/dashboard/dev-server';
    const { createDashboardDevServer } = (await import(specifier)) as DashboardDevModule;
    return createDashboardDevServer({ httpServer: app.server });
  };
}

/**
 * Fastify's `trustProxy` from TRUST_PROXY. A hop count is given as a trust function: Fastify 5.12
 * treats a bare number as "trust nothing" (it cannot check the immediate peer), so a count trusts
 * the last `n` hops as given — right only when the API is reachable through those proxies alone
 * (docs/security.md); an address/CIDR list checks the peer and is preferred.
 */
export function trustProxyOption(value: boolean | number | string) {
  if (typeof value !== 'number') return value;
  return (_address: string, hop: number) => hop < value;
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The API under /api/v1: `routes/` is a tree of its URL paths. `routes/notify/batch/index.ts` serves
 * /api/v1/notify/batch, a `_name` folder is the `:name` parameter, and an `autohooks.ts` applies to
 * its folder and every folder below (authentication of a subtree, the owned app of /apps/:appId).
 * Every route is declared at '/' of its folder (test/routes/route-tree.test.ts keeps it so); only
 * `index` files are routes, so helpers can sit beside the routes they serve.
 */
export const apiRoutesOptions = {
  dir: join(here, 'routes'),
  options: { prefix: '/api/v1' },
  routeParams: true,
  autoHooks: true,
  cascadeHooks: true,
  ignoreFilter: (path: string) => !/\/index\.(?:ts|js)$/.test(path),
};

// Run from the TypeScript sources (tests, `pnpm dev` through tsx), autoload must be told it may
// import .ts files: it recognises tsx only when preloaded with --require, not --import.
if (import.meta.url.endsWith('.ts')) process.env.FASTIFY_AUTOLOAD_TYPESCRIPT ??= '1';

/** Builds the API without listening: `server.ts` listens, tests use `inject` or `listen(0)`. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      ...logOptions(config.logLevel),
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    // One line per request, or none (LOG_REQUESTS).
    logController: new OneLineLogController(config.logRequests),
    trustProxy: trustProxyOption(config.trustProxy),
    // The route tree is one plugin (autoload) importing ~50 files; from the TypeScript sources on a
    // loaded machine that took longer than Fastify's default 10 s to start.
    pluginTimeout: 60_000,
    bodyLimit: config.bodyLimitBytes,
    // Errors Fastify answers outside the error handler get the contract's body too.
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    clientErrorHandler,
    // Response serializers compiled once per distinct schema (serializer-cache.ts).
    schemaController: { compilersFactory: { buildSerializer: cachingSerializerFactory } },
    ajv: {
      customOptions: {
        allErrors: true, // every failure is seen, so the contract's order (MISSING_FIELDS first…) decides
        coerceTypes: false, // a number where a string belongs is INVALID_INPUT, not silently "123"
        removeAdditional: false,
      },
      plugins: [pushEndpointKeyword(config.pushServiceHosts)],
    },
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  await app.register(tracingPlugin);
  await app.register(configPlugin, { config });
  await app.register(errorHandler);
  await app.register(storableInputPlugin);
  // First of the connections: an in-process coordination already taken refuses the start before
  // anything else is opened.
  await app.register(coordinationPlugin);
  await app.register(dbPlugin, { onQuery: options.onQuery });
  await app.register(queuesPlugin);
  await app.register(metricsPlugin);
  await app.register(secretsPlugin);
  await app.register(vapidKeyMigrationPlugin);
  await app.register(passwordsPlugin);
  await app.register(mailerPlugin);
  await app.register(newSubscriptionCapPlugin);
  await app.register(pushSenderPlugin, { extraCa: options.pushExtraCa });
  await app.register(cookiePlugin);
  await app.register(corsPlugin);
  await app.register(rateLimitPlugin);
  await app.register(engagementBufferPlugin);
  await app.register(apiKeyPrincipalsPlugin);
  await app.register(authPlugin);
  await app.register(twoFactorPlugin);
  await app.register(githubOAuthPlugin);
  await app.register(swaggerPlugin);
  await app.register(bullBoardPlugin);
  await app.register(opsListenerPlugin);

  await app.register(healthRoutes);
  await app.register(metricsRoutes);
  // Outside /api/v1: the pages, files and links browsers open (site/), and health and metrics.
  await app.register(sdkRoutes, { rereadEachRequest: config.dashboardDevServer });
  await app.register(demoRoutes);
  await app.register(clickLinkRoutes, { prefix: '/c' });
  await app.register(dashboardRoutes, {
    distDir: options.dashboardDistDir,
    devServer: dashboardDevServer(app),
  });
  await app.register(autoload, apiRoutesOptions);
  return app;
}
