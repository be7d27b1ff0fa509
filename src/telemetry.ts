/**
 * OpenTelemetry traces and metrics, following the MCP semantic conventions, for teams that host
 * svc-mcp. Off unless the standard OTEL_* variables ask for it (see `telemetryWanted`); off, this
 * module loads nothing from OpenTelemetry (the SDK is imported from `telemetry-sdk.ts` only when asked
 * for; the imports below are types only) and each hook is one check of a variable.
 *
 * - A SERVER span per MCP request, named `{mcp.method.name} {target}` (`tools/call list_agents`,
 *   `prompts/get setup_attribute`, plain `resources/read`: URIs are too many to name spans by), from
 *   receipt to the response, with `error.type` = `tool_error` for a tool result with `isError` and
 *   the JSON-RPC code for an error response. A `traceparent` (and `tracestate`) in the request's
 *   `params._meta` makes the span a child of the caller's.
 * - A CLIENT span per upstream HTTP attempt, child of the request's span, with `traceparent` sent on.
 * - The `mcp.server.operation.duration` histogram (seconds, the conventions' buckets).
 *
 * The hooks sit at the edges (the way of each MCP message, the HTTP core), so the engine knows nothing of it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Attributes, Context, Histogram, Span, Tracer } from '@opentelemetry/api';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from './config.js';
import type { Logger } from './log.js';
import { SERVER_NAME, SERVER_VERSION } from './meta.js';
import type { MessageObserver } from './sdk/incoming.js';

export type NetworkTransport = 'pipe' | 'tcp';

/** Bucket boundaries the MCP conventions give for operation durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

interface Instruments {
  api: typeof import('./telemetry-sdk.js')['api'];
  tracer?: Tracer;
  duration?: Histogram;
  shutdown(): Promise<void>;
}

let instruments: Instruments | undefined;
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
/** The context of the MCP request being handled, for the upstream spans it causes. */
const requestContext = new AsyncLocalStorage<Context>();

export interface TelemetryWanted {
  traces: boolean;
  metrics: boolean;
}

/**
 * The standard variables, read as the OpenTelemetry SDKs read them: `OTEL_SDK_DISABLED=true` turns
 * everything off; `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` = `otlp` turn a signal on and `none`
 * off; left unset, a signal is on when an OTLP endpoint is given for it
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`).
 */
export function telemetryWanted(env: NodeJS.ProcessEnv = process.env): TelemetryWanted {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { traces: false, metrics: false };
  const wanted = (exporterVariable: string, endpointVariable: string) => {
    const exporters = (env[exporterVariable] ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const unsupported = exporters.filter((name) => name !== 'otlp' && name !== 'none');
    if (unsupported.length) {
      throw new ConfigError(
        `${exporterVariable}=${unsupported.join(',')} is not supported: svc-mcp exports with otlp (over HTTP) or none; console exporters would write to stdout, which carries JSON-RPC`,
      );
    }
    if (exporters.length) return exporters.includes('otlp');
    return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[endpointVariable]);
  };
  return {
    traces: wanted('OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
    metrics: wanted('OTEL_METRICS_EXPORTER', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'),
  };
}

export interface TelemetryOptions {
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Tests: where spans go instead of OTLP (exported as each span ends). */
  spanExporter?: SpanExporter;
  /** Tests: what collects the metrics instead of a periodic OTLP export. */
  metricReader?: MetricReader;
}

/** Loads the SDK and starts the signals asked for. Returns whether anything was started. */
export async function startTelemetry(options: TelemetryOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  const fromEnv = telemetryWanted(env);
  const wanted = { traces: Boolean(options.spanExporter) || fromEnv.traces, metrics: Boolean(options.metricReader) || fromEnv.metrics };
  if (!wanted.traces && !wanted.metrics) return false;
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/json') options.logger?.warn({ protocol }, 'OTEL_EXPORTER_OTLP_PROTOCOL: svc-mcp exports OTLP as http/json');

  const sdk = await import('./telemetry-sdk.js');
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these defaults.
  const resource = sdk.resourceFromAttributes({ 'service.name': SERVER_NAME, 'service.version': SERVER_VERSION }).merge(sdk.detectResources({ detectors: [sdk.envDetector] }));
  const stops: Array<() => Promise<void>> = [];
  const loaded: Instruments = { api: sdk.api, shutdown: async () => void (await Promise.allSettled(stops.map((stop) => stop()))) };

  if (wanted.traces) {
    const processor = options.spanExporter ? new sdk.SimpleSpanProcessor(options.spanExporter) : new sdk.BatchSpanProcessor(new sdk.OTLPTraceExporter());
    // Sampling and limits come from OTEL_TRACES_SAMPLER and friends, read by the provider.
    const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [processor] });
    loaded.tracer = provider.getTracer(SERVER_NAME, SERVER_VERSION);
    stops.push(() => provider.shutdown());
  }
  if (wanted.metrics) {
    let reader = options.metricReader;
    if (!reader) {
      const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
      reader = new sdk.PeriodicExportingMetricReader({ exporter: new sdk.OTLPMetricExporter(), exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000 });
    }
    const provider = new sdk.MeterProvider({ resource, readers: [reader] });
    loaded.duration = provider.getMeter(SERVER_NAME, SERVER_VERSION).createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request duration as observed on the server, from receipt until the response is sent.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    stops.push(() => provider.shutdown());
  }
  instruments = loaded;
  options.logger?.info({ traces: wanted.traces, metrics: wanted.metrics }, 'OpenTelemetry started');
  return true;
}

/** Flushes and stops the signals; a no-op when telemetry is off. */
export async function stopTelemetry(): Promise<void> {
  const current = instruments;
  instruments = undefined;
  await current?.shutdown();
}

interface Pending {
  span?: Span;
  started: number;
  attributes: Attributes;
}

/**
 * What telemetry observes of one MCP connection (src/sdk/incoming.ts puts it first on the way in):
 * requests are seen as they arrive and closed when their response leaves, so each duration is the
 * server's whole share. None when telemetry is off. `sessionId` reads the connection's session.
 */
export function telemetryObservers(network: NetworkTransport, sessionId: () => string | undefined): MessageObserver[] {
  const current = instruments;
  if (!current) return [];
  const pending = new Map<string | number, Pending>();
  let protocolVersion: string | undefined;
  const observer: MessageObserver = {
    received(message, deliver) {
      if (!('method' in message) || !('id' in message)) return deliver();
      const params = (message.params ?? {}) as Record<string, unknown>;
      const attributes = requestAttributes(message.method, params, network, protocolVersion, sessionId());
      const parent = remoteParent(current.api, params._meta);
      const target = attributes['gen_ai.tool.name'] ?? attributes['gen_ai.prompt.name'];
      const span = current.tracer?.startSpan(
        target ? `${message.method} ${target}` : message.method,
        { kind: current.api.SpanKind.SERVER, attributes: { ...attributes, 'jsonrpc.request.id': String(message.id) } },
        parent,
      );
      pending.set(message.id, { span, started: performance.now(), attributes });
      const context = span ? current.api.trace.setSpan(parent, span) : parent;
      requestContext.run(context, deliver);
    },
    sent(message) {
      if (!('id' in message) || (typeof message.id !== 'string' && typeof message.id !== 'number') || !('result' in message || 'error' in message)) return;
      const request = pending.get(message.id);
      if (!request) return;
      pending.delete(message.id);
      if ('result' in message && typeof message.result.protocolVersion === 'string') protocolVersion = message.result.protocolVersion;
      finish(current, request, message);
    },
  };
  return [observer];
}

function requestAttributes(method: string, params: Record<string, unknown>, network: NetworkTransport, protocolVersion: string | undefined, sessionId: string | undefined): Attributes {
  const attributes: Attributes = { 'mcp.method.name': method, 'network.transport': network };
  if (protocolVersion) attributes['mcp.protocol.version'] = protocolVersion;
  if (sessionId) attributes['mcp.session.id'] = sessionId;
  if (method === 'tools/call' && typeof params.name === 'string') {
    attributes['gen_ai.tool.name'] = params.name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (method === 'prompts/get' && typeof params.name === 'string') attributes['gen_ai.prompt.name'] = params.name;
  if (method === 'resources/read' && typeof params.uri === 'string') attributes['mcp.resource.uri'] = params.uri;
  return attributes;
}

function finish(current: Instruments, request: Pending, response: JSONRPCMessage): void {
  let errorType: string | undefined;
  if ('error' in response) {
    errorType = String(response.error.code);
    request.span?.setAttribute('rpc.response.status_code', errorType);
  } else if ('result' in response && response.result.isError === true) {
    errorType = 'tool_error';
  }
  if (errorType) {
    request.span?.setAttribute('error.type', errorType);
    request.span?.setStatus({ code: current.api.SpanStatusCode.ERROR });
  }
  request.span?.end();
  const { 'mcp.resource.uri': _uri, ...metricAttributes } = request.attributes;
  current.duration?.record((performance.now() - request.started) / 1000, errorType ? { ...metricAttributes, 'error.type': errorType } : metricAttributes);
}

/** The caller's span from W3C trace context in `params._meta`, else a fresh trace. */
function remoteParent(api: Instruments['api'], meta: unknown): Context {
  const fields = (meta && typeof meta === 'object' ? meta : {}) as Record<string, unknown>;
  const match = typeof fields.traceparent === 'string' ? TRACEPARENT.exec(fields.traceparent.trim().toLowerCase()) : null;
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return api.ROOT_CONTEXT;
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: match[1],
    spanId: match[2],
    traceFlags: Number.parseInt(match[3], 16) & 1,
    isRemote: true,
    traceState: typeof fields.tracestate === 'string' ? api.createTraceState(fields.tracestate) : undefined,
  });
}

/**
 * Wraps one upstream HTTP attempt in a CLIENT span (child of the MCP request's span) and passes the
 * trace context on as a `traceparent` header. `send` gets the headers to add and resolves with the
 * response status; a thrown error names the span's `error.type`. The URL is built only when a span
 * is. Without telemetry `send` runs as it is, not inside one more promise of its own on every call.
 */
export function traceUpstream<T extends { statusCode: number }>(method: string, origin: string, path: string, send: (traceHeaders: Record<string, string>) => Promise<T>): Promise<T> {
  const current = instruments;
  return current?.tracer ? tracedUpstream(current.api, current.tracer, method, origin, path, send) : send(NO_HEADERS);
}

async function tracedUpstream<T extends { statusCode: number }>(
  api: Instruments['api'],
  tracer: Tracer,
  method: string,
  origin: string,
  path: string,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const url = new URL(path, origin);
  const span = tracer.startSpan(
    method,
    {
      kind: api.SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        'url.full': `${url.origin}${url.pathname}`,
      },
    },
    requestContext.getStore() ?? api.ROOT_CONTEXT,
  );
  const { traceId, spanId, traceFlags } = span.spanContext();
  try {
    const response = await send({ traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}` });
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 400) {
      span.setAttribute('error.type', String(response.statusCode));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    return response;
  } catch (error) {
    span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
    span.setStatus({ code: api.SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
