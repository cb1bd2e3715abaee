/**
 * The OpenTelemetry SDK's span processors and exporters (an in-memory exporter for tests). A module
 * of its own: importing the SDK costs memory, so the service's processes load it only when tracing
 * is on (`startTracing`).
 */
export { tracing as sdkTracing } from '@opentelemetry/sdk-node';
