/**
 * The OpenTelemetry SDK, in the one module `telemetry.ts` imports dynamically (and only when OTEL_*
 * variables ask for telemetry). Why a module of our own: these packages resolve to CommonJS, and the
 * bundle (esbuild with code splitting) gives a dynamically imported CommonJS module nothing but a
 * `default` export, so `const { x } = await import('@opentelemetry/…')` works from source and finds
 * `undefined` in dist/ (esbuild issue #3245). Imported statically from here, their named exports are
 * bound at build time, the same from source and from the bundle.
 */
export * as api from '@opentelemetry/api';
export { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
export { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
export { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
export { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
