import type { FastifyInstance } from 'fastify';
import { demoPage } from './demo-page.js';

/** GET /demo: a page that subscribes this browser with a pasted `subscribe_only` key. */
export default async function demoRoutes(app: FastifyInstance) {
  const demo = demoPage();
  app.get('/demo', { schema: { hide: true } }, (_request, reply) =>
    reply
      .header('content-security-policy', demo.contentSecurityPolicy)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(demo.html),
  );
}
