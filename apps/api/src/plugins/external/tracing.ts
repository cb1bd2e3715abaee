import { openSpan, type Span, SpanKind, SpanStatusCode, tracingActive, withActiveSpan } from '@webpush/tracing';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One SERVER span per request when tracing is on (nothing at all when it is off): opened when the
 * request arrives, made the active span for the handler (so the accept statement and the queued
 * job nest under it), ended with the response's status.
 */
export default fp(
  async (app: FastifyInstance) => {
    if (!tracingActive()) return;
    const spans = new WeakMap<FastifyRequest, Span>();
    app.addHook('onRequest', (request, _reply, done) => {
      const span = openSpan(
        `${request.method} ${request.routeOptions.url ?? 'unknown route'}`,
        {
          'http.request.method': request.method,
          'http.route': request.routeOptions.url ?? '',
          'url.path': request.url.split('?')[0] ?? '',
        },
        SpanKind.SERVER,
      );
      if (span) spans.set(request, span);
      done();
    });
    // The body is parsed by now: the handler runs inside the request's span from here on.
    app.addHook('preHandler', (request, _reply, done) => {
      const span = spans.get(request);
      if (span) withActiveSpan(span, done);
      else done();
    });
    app.addHook('onResponse', async (request, reply) => {
      const span = spans.get(request);
      if (!span) return;
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  },
  { name: 'tracing' },
);
