import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { tracing as sdkTracing } from '@opentelemetry/sdk-node';
import type { BullMQOtel } from 'bullmq-otel';

export { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace };
export type SpanProcessor = sdkTracing.SpanProcessor;

const TRACER_NAME = '@webpush/service';

/**
 * Whether this process records spans. Everything below checks it first, so with tracing off (the
 * default) a span costs one boolean read: no span object, no context switch.
 */
let active = false;
/** BullMQ's telemetry class, loaded with the SDK when tracing starts. */
let bullmqOtel: typeof BullMQOtel | null = null;

export const tracingActive = (): boolean => active;

export interface TracingSettings {
  /** `service.name` of every span: `webpush-api` or `webpush-worker`. */
  serviceName: string;
  /** From the configuration: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER is set. */
  enabled: boolean;
  /**
   * Where spans go. Default: the OpenTelemetry SDK's exporter from the standard OTEL_* variables
   * (OTLP to OTEL_EXPORTER_OTLP_ENDPOINT). Tests pass an in-memory exporter's processor.
   */
  spanProcessors?: SpanProcessor[];
}

export interface Tracing {
  readonly enabled: boolean;
  /** Flushes what is buffered and stops; call before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK for this process when tracing is configured, before the app or the
 * worker is built. Only the service's own spans are recorded (no automatic instrumentation): the
 * HTTP request, the accept statement, the BullMQ jobs (propagated from the API to the worker by
 * bullmq-otel), the fan-out plan, each chunk and each push.
 *
 * The SDK and bullmq-otel are loaded here, only when tracing is on: imported with the module they
 * would add to the resident memory of every API and worker process, traced or not (docs/tracing.md).
 */
export async function startTracing({ serviceName, enabled, spanProcessors }: TracingSettings): Promise<Tracing> {
  if (!enabled) return { enabled: false, shutdown: async () => {} };
  const [{ NodeSDK }, { BullMQOtel }] = await Promise.all([import('@opentelemetry/sdk-node'), import('bullmq-otel')]);
  const sdk = new NodeSDK({ serviceName, instrumentations: [], ...(spanProcessors ? { spanProcessors } : {}) });
  sdk.start();
  bullmqOtel = BullMQOtel;
  active = true;
  return {
    enabled: true,
    async shutdown() {
      active = false;
      await sdk.shutdown();
    },
  };
}

/** BullMQ's `telemetry` option when tracing is on: job spans, and the trace context carried in each job. */
export function bullmqTelemetry(): BullMQOtel | undefined {
  return active && bullmqOtel !== null ? new bullmqOtel({ tracerName: TRACER_NAME }) : undefined;
}

/** Runs `fn` inside a new active span (ended when it settles, errors recorded); just `fn` when off. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!active) return fn(null);
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span that the caller ends (a request, a push); null when tracing is off. */
export function openSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span | null {
  if (!active) return null;
  return trace.getTracer(TRACER_NAME).startSpan(name, { attributes, kind });
}

/** Runs `fn` with `span` as the active span (its children nest under it). */
export function withActiveSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}
