import type { Config } from '@webpush/config';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { logOptions } from './log-options.js';
import authPlugin from './plugins/app/auth.js';
import configPlugin from './plugins/app/config.js';
import dbPlugin from './plugins/app/db.js';
import engagementBufferPlugin from './plugins/app/engagement-buffer.js';
import errorHandler, { clientErrorHandler, frameworkErrorHandler } from './plugins/app/error-handler.js';
import mailerPlugin from './plugins/app/mailer.js';
import metricsPlugin from './plugins/app/metrics.js';
import newSubscriptionCapPlugin from './plugins/app/new-subscription-cap.js';
import opsListenerPlugin from './plugins/app/ops-listener.js';
import passwordsPlugin from './plugins/app/passwords.js';
import pushSenderPlugin from './plugins/app/push-sender.js';
import queuesPlugin from './plugins/app/queues.js';
import redisPlugin from './plugins/app/redis.js';
import secretsPlugin from './plugins/app/secrets.js';
import storableInputPlugin from './plugins/app/storable-input.js';
import { pushEndpointKeyword } from './plugins/app/validation.js';
import vapidKeyMigrationPlugin from './plugins/app/vapid-key-migration.js';
import bullBoardPlugin from './plugins/external/bull-board.js';
import cookiePlugin from './plugins/external/cookie.js';
import corsPlugin from './plugins/external/cors.js';
import rateLimitPlugin from './plugins/external/rate-limit.js';
import swaggerPlugin from './plugins/external/swagger.js';
import tracingPlugin from './plugins/external/tracing.js';
import appNotificationRoutes from './routes/app-notifications/index.js';
import appRoutes from './routes/apps/index.js';
import emailVerificationRoutes from './routes/auth/email-verification.js';
import githubRoutes from './routes/auth/github.js';
import authRoutes from './routes/auth/index.js';
import passwordResetRoutes from './routes/auth/password-reset.js';
import sessionRoutes from './routes/auth/sessions.js';
import clickLinkRoutes from './routes/click-links/index.js';
import dashboardRoutes, { type DashboardDevServer } from './routes/dashboard/index.js';
import eventRoutes from './routes/events/index.js';
import healthRoutes from './routes/health.js';
import keyRoutes from './routes/keys/index.js';
import metricsRoutes from './routes/metrics.js';
import notificationRoutes from './routes/notifications/index.js';
import operatorPlanRequestRoutes from './routes/operator/plan-requests/_requestId/grant/index.js';
import operatorPlanRequestListRoutes from './routes/operator/plan-requests/index.js';
import operatorTenantListRoutes from './routes/operator/tenants/index.js';
import operatorTenantPlanRoutes from './routes/operator/tenants/_userId/plan/index.js';
import operatorTenantSuspensionRoutes from './routes/operator/tenants/_userId/suspension/index.js';
import planRequestRoutes from './routes/plan-requests/index.js';
import planRoutes from './routes/plans/index.js';
import sdkRoutes from './routes/sdk/index.js';
import subscriberRoutes from './routes/subscribers/index.js';
import subscriptionRoutes from './routes/subscriptions/index.js';
import testNotificationRoutes from './routes/test-notification/index.js';
import usageRoutes from './routes/usage/index.js';
import webhookRoutes from './routes/webhooks/index.js';

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Test-only: where the API's own logger (`logOptions`) writes, instead of stdout. */
  logStream?: { write(line: string): void };
  /** Test-only: a CA (PEM) outgoing pushes trust besides Node's roots; processes use NODE_EXTRA_CA_CERTS. */
  pushExtraCa?: string;
  /** Test-only: called with the text of every statement the API sends to PostgreSQL (round-trip counts). */
  onQuery?: (query: string) => void;
  /** Where the built dashboard lives (tests); default apps/dashboard/dist. */
  dashboardDistDir?: string;
}

interface DashboardDevModule {
  createDashboardDevServer(options: { httpServer: FastifyInstance['server'] }): Promise<DashboardDevServer>;
}

/**
 * `DASHBOARD_DEV_SERVER` (pnpm dev): the dashboard from source through Vite. Loaded only then, by a
 * specifier the compiler does not follow: Vite is a development dependency of the dashboard alone.
 */
async function dashboardDevServer(app: FastifyInstance): Promise<DashboardDevServer | undefined> {
  if (!app.config.dashboardDevServer) return undefined;
  const specifier = '@webpush/dashboard/dev-server';
  const { createDashboardDevServer } = (await import(specifier)) as DashboardDevModule;
  return createDashboardDevServer({ httpServer: app.server });
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

/** Builds the API without listening: `server.ts` listens, tests use `inject` or `listen(0)`. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      ...logOptions(config.logLevel),
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    // Errors Fastify answers outside the error handler get the contract's body too.
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    clientErrorHandler,
    ajv: {
      customOptions: {
        allErrors: true, // every failure is seen, so the contract's order (MISSING_FIELDS first…) decides
        coerceTypes: false, // a number where a string belongs is INVALID_INPUT, not silently "123"
        removeAdditional: false,
      },
      plugins: [pushEndpointKeyword(config.pushServiceHosts)],
    },
  });

  await app.register(tracingPlugin);
  await app.register(configPlugin, { config });
  await app.register(errorHandler);
  await app.register(storableInputPlugin);
  await app.register(dbPlugin, { onQuery: options.onQuery });
  await app.register(redisPlugin);
  await app.register(queuesPlugin);
  await app.register(metricsPlugin);
  await app.register(secretsPlugin);
  await app.register(vapidKeyMigrationPlugin);
  await app.register(passwordsPlugin);
  await app.register(mailerPlugin);
  await app.register(newSubscriptionCapPlugin);
  await app.register(engagementBufferPlugin);
  await app.register(pushSenderPlugin, { extraCa: options.pushExtraCa });
  await app.register(cookiePlugin);
  await app.register(corsPlugin);
  await app.register(rateLimitPlugin);
  await app.register(authPlugin);
  await app.register(swaggerPlugin);
  await app.register(bullBoardPlugin);
  await app.register(opsListenerPlugin);

  await app.register(healthRoutes);
  await app.register(metricsRoutes);
  await app.register(sdkRoutes, { rereadEachRequest: config.dashboardDevServer });
  await app.register(clickLinkRoutes, { prefix: '/c' });
  await app.register(dashboardRoutes, {
    distDir: options.dashboardDistDir,
    devServer: await dashboardDevServer(app),
  });
  await app.register(
    async (api) => {
      await api.register(authRoutes, { prefix: '/auth' });
      await api.register(emailVerificationRoutes, { prefix: '/auth' });
      await api.register(passwordResetRoutes, { prefix: '/auth' });
      await api.register(sessionRoutes, { prefix: '/auth/sessions' });
      await api.register(githubRoutes, { prefix: '/auth/github' });
      await api.register(appRoutes, { prefix: '/apps' });
      await api.register(keyRoutes, { prefix: '/apps/:appId/keys' });
      await api.register(subscriptionRoutes);
      await api.register(testNotificationRoutes);
      await api.register(notificationRoutes);
      await api.register(appNotificationRoutes, { prefix: '/apps/:appId/notifications' });
      await api.register(subscriberRoutes, { prefix: '/apps/:appId/subscribers' });
      await api.register(eventRoutes);
      await api.register(webhookRoutes, { prefix: '/apps/:appId/webhook' });
      await api.register(usageRoutes);
      await api.register(planRoutes);
      // New routes in the folder layout of the URL (until the route tree is loaded by autoload).
      await api.register(planRequestRoutes, { prefix: '/plan-requests' });
      await api.register(operatorTenantListRoutes, { prefix: '/operator/tenants' });
      await api.register(operatorTenantPlanRoutes, { prefix: '/operator/tenants/:userId/plan' });
      await api.register(operatorTenantSuspensionRoutes, { prefix: '/operator/tenants/:userId/suspension' });
      await api.register(operatorPlanRequestListRoutes, { prefix: '/operator/plan-requests' });
      await api.register(operatorPlanRequestRoutes, { prefix: '/operator/plan-requests/:requestId/grant' });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
