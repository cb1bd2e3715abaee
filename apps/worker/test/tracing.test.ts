import { waitFor } from '@webpush/testing';
import { type Span, SpanKind, startTracing, tracingActive } from '@webpush/tracing';
import { sdkTracing } from '@webpush/tracing/sdk';
import t from 'tap';
import { deliveryHarness } from './helper.js';

// One trace from POST /notify to the pushes: the request's span, the accept statement, the fan-out
// job (its trace context carried through Redis by bullmq-otel), the plan, each chunk job and each
// push with its push service and status. The API and the worker run in this process but share no
// async context: the worker's job loop started before the request, so only the job carries the trace.

type ReadableSpan = sdkTracing.ReadableSpan;

t.test('off by default: no span, no BullMQ telemetry', async (t) => {
  t.equal(tracingActive(), false);
  const { bullmqTelemetry, inSpan, openSpan } = await import('@webpush/tracing');
  t.equal(bullmqTelemetry(), undefined);
  t.equal(openSpan('x', {}), null);
  t.equal(await inSpan('x', {}, async (span: Span | null) => span), null, 'the function runs without a span');
});

t.test('one trace from POST /notify through the queue, the chunks and the pushes', async (t) => {
  const exporter = new sdkTracing.InMemorySpanExporter();
  const tracing = await startTracing({
    serviceName: 'webpush-test',
    enabled: true,
    spanProcessors: [new sdkTracing.SimpleSpanProcessor(exporter)],
  });
  t.teardown(() => tracing.shutdown());
  t.equal(tracingActive(), true);

  const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '2', PUSH_CONCURRENCY: '2' });
  await harness.startInProcessWorker();
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 5);
  const { id } = await harness.notify(owner, { title: 'traced', body: 'end to end' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', sent: 5 });

  const spans = () => exporter.getFinishedSpans() as ReadableSpan[];
  const request = spans().find(
    (span) => span.name === 'POST /api/v1/notify' && span.attributes['http.response.status_code'] === 202,
  );
  if (!request) throw new Error(`no request span in ${spans().map((span) => span.name)}`);
  const traceId = request.spanContext().traceId;
  const inTrace = () => spans().filter((span) => span.spanContext().traceId === traceId);
  // The chunk spans end after the transaction that completes them, and each job's span after its
  // chunk: wait for all of them, not for a time.
  await waitFor(
    () =>
      inTrace().filter((span) => span.name === 'notification.chunk').length >= 3 &&
      inTrace().filter((span) => span.kind === SpanKind.CONSUMER).length >= 4,
    'three chunk spans and four job spans have ended',
    { timeoutMs: 10_000 },
  );

  const trace = inTrace();
  const byId = new Map(trace.map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? '');
  const ancestors = (span: ReadableSpan) => {
    const chain: string[] = [];
    for (let at = parentOf(span); at; at = parentOf(at)) chain.push(at.name);
    return chain;
  };
  const named = (name: string) => trace.filter((span) => span.name === name);

  t.equal(request.kind, SpanKind.SERVER);
  t.match(request.attributes, { 'http.request.method': 'POST', 'http.route': '/api/v1/notify' });
  const [accept] = named('notification.accept');
  t.equal(accept && parentOf(accept), request, 'the accept statement runs inside the request');

  const producers = trace.filter((span) => span.kind === SpanKind.PRODUCER);
  const consumers = trace.filter((span) => span.kind === SpanKind.CONSUMER);
  t.ok(producers.length >= 2, `jobs added: fan-out and chunks (${producers.map((span) => span.name)})`);
  t.ok(consumers.length >= 4, `jobs processed: fan-out and 3 chunks (${consumers.map((span) => span.name)})`);
  const fanOutProducer = producers.find((span) => ancestors(span).includes('POST /api/v1/notify'));
  t.ok(fanOutProducer, 'the fan-out job is added inside the request');

  const [fanOut] = named('notification.fan_out');
  t.ok(fanOut, 'the fan-out plan');
  t.equal(fanOut && parentOf(fanOut)?.kind, SpanKind.CONSUMER, 'inside the fan-out job');
  t.match(fanOut?.attributes, { 'webpush.notification_id': id, 'webpush.chunks_queued': 3 });
  t.ok(fanOut && ancestors(fanOut).includes('POST /api/v1/notify'), 'continuing the request’s trace');

  const chunks = named('notification.chunk');
  t.equal(chunks.length, 3, '5 subscribers in chunks of at most 2');
  for (const chunk of chunks) {
    t.equal(parentOf(chunk)?.kind, SpanKind.CONSUMER, 'each chunk inside its job');
    t.ok(ancestors(chunk).includes('notification.fan_out'), 'whose add happened in the fan-out');
  }

  const pushes = named('push.send');
  t.equal(pushes.length, subscriptions.length, 'one span per push');
  for (const push of pushes) {
    t.equal(parentOf(push)?.name, 'notification.chunk');
    t.match(push.attributes, {
      'server.address': harness.push.origin,
      'http.response.status_code': 201,
      'webpush.push.outcome': 'sent',
    });
  }
});
