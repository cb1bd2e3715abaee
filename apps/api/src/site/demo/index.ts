import type { FastifyInstance } from 'fastify';
import { requestLanguage } from '../../languages.js';
import { demoPage } from './demo-page.js';

/** GET /demo: a page that subscribes this browser with a pasted `subscribe_only` key, in the visitor's language. */
export default async function demoRoutes(app: FastifyInstance) {
  const demo = demoPage();
  app.get('/demo', { schema: { hide: true } }, (request, reply) => {
    const language = requestLanguage(request);
    return reply
      .header('content-security-policy', demo.contentSecurityPolicy)
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept-Language')
      .header('content-language', language)
      .type('text/html; charset=utf-8')
      .send(demo.html[language]);
  });
}
