import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests;
 * served at /api/v1/openapi.json with a reference UI at /docs.
 */
export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Web push service',
          version: '1.0.0',
          description:
            'Send web push notifications to the browser subscriptions of your apps. Every error has the body `{error, code}` (plus `upgrade_url` on plan-limit codes).',
        },
        servers: [{ url: app.config.publicUrl }],
        components: {
          securitySchemes: {
            apiKey: { type: 'http', scheme: 'bearer', description: 'API key `wpk_…`' },
            session: {
              type: 'http',
              scheme: 'bearer',
              description: 'Session token `wps_…` (or the `wp_session` cookie)',
            },
            sessionCookie: { type: 'apiKey', in: 'cookie', name: 'wp_session' },
          },
        },
      },
      // A resource's root route is registered as `/` under its prefix; document it as `/api/v1/apps`,
      // not `/api/v1/apps/` (both are served).
      transform: ({ schema, url }) => ({ schema, url: url.length > 1 ? url.replace(/\/+$/, '') : url }),
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger', dependencies: ['config'] },
);
