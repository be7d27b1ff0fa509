import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/engine/server.js';
import { createLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { startTelemetry, stopTelemetry, telemetryObservers, telemetryWanted } from '../../src/telemetry.js';
import { useSandbox } from '../support/fixture.js';
import { RUN_ENV } from '../support/run-env.js';

const spans = new InMemorySpanExporter();
const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
// Exports only when flushed by the test: no timer decides what a test sees.
const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const sandbox = useSandbox();
let runtime: Runtime;
let client: Client;

beforeAll(async () => {
  await startTelemetry({ env: {}, spanExporter: spans, metricReader: reader });
  runtime = await createRuntime(loadConfig(['--base-url', sandbox.url, '--confirm', 'none'], { ...RUN_ENV, SVC_API_KEY: sandbox.keys.admin }), createLogger('silent'));
  const server = createMcpServer({ ...runtime, apiKey: sandbox.keys.admin });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(
    serverSide,
    telemetryObservers('pipe', () => undefined),
  );
  client = new Client({ name: 'telemetry-test', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await runtime.close();
  await stopTelemetry();
});

const spanNamed = (name: string) => spans.getFinishedSpans().filter((span) => span.name === name);

describe('OpenTelemetry', () => {
  it('is wanted only as the standard variables say', () => {
    expect(telemetryWanted({})).toEqual({ traces: false, metrics: false });
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ traces: true, metrics: true });
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' })).toEqual({ traces: true, metrics: false });
    expect(telemetryWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ traces: true, metrics: false });
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toEqual({ traces: false, metrics: false });
    expect(() => telemetryWanted({ OTEL_TRACES_EXPORTER: 'console' })).toThrow(/stdout, which carries JSON-RPC/);
  });

  it("makes a server span per request, child of the caller's traceparent, with a client span per upstream request under it", async () => {
    const result = await client.callTool({ name: 'list_agents', arguments: {}, _meta: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(result.isError).toBeFalsy();
    const [call] = spanNamed('tools/call list_agents');
    expect(call).toBeDefined();
    expect(call.kind).toBe(1); // SERVER
    expect(call.spanContext().traceId).toBe(CALLER_TRACE);
    expect(call.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(call.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'list_agents',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'pipe',
      'mcp.protocol.version': expect.any(String),
    });
    expect(call.attributes['error.type']).toBeUndefined();

    const upstream = spans.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === call.spanContext().spanId);
    expect(upstream).toHaveLength(1);
    expect(upstream[0]).toMatchObject({ name: 'GET', kind: 2 }); // CLIENT
    expect(upstream[0].attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'url.full': `${sandbox.url}/v2/bots/public` });
    // The trace goes on to the API.
    const sent = sandbox.requests.at(-1)!.headers as Record<string, string>;
    expect(sent.traceparent).toBe(`00-${CALLER_TRACE}-${upstream[0].spanContext().spanId}-01`);
  });

  it('sets error.type on a tool result with isError and on a JSON-RPC error', async () => {
    const result = await client.callTool({ name: 'get_replay', arguments: { replayId: '00000000-0000-4000-8000-000000000000' } });
    expect(result.isError).toBe(true);
    const [failed] = spanNamed('tools/call get_replay');
    expect(failed.attributes['error.type']).toBe('tool_error');
    expect(failed.status.code).toBe(2); // ERROR
    const upstream = spans.getFinishedSpans().find((span) => span.parentSpanContext?.spanId === failed.spanContext().spanId);
    expect(upstream?.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
    expect(failed.parentSpanContext).toBeUndefined();

    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();
    const [unknown] = spanNamed('tools/call no_such_tool');
    expect(unknown.attributes['error.type']).toBe('-32602');
  });

  it('names prompt spans by prompt, resource spans by method alone', async () => {
    const { prompts } = await client.listPrompts();
    await client.getPrompt({ name: prompts[0].name, arguments: {} });
    expect(spanNamed(`prompts/get ${prompts[0].name}`)).toHaveLength(1);
    await client.readResource({ uri: 'svc://guide' });
    const [read] = spanNamed('resources/read');
    expect(read.attributes['mcp.resource.uri']).toBe('svc://guide');
    expect(spanNamed('tools/list')).toHaveLength(0);
    expect(spanNamed('prompts/list')).toHaveLength(1);
  });

  it('records mcp.server.operation.duration in seconds, by method, tool and error type', async () => {
    await reader.forceFlush();
    const histogram = metrics
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
      .find((metric) => metric.descriptor.name === 'mcp.server.operation.duration') as HistogramMetricData | undefined;
    expect(histogram?.descriptor.unit).toBe('s');
    const points = histogram!.dataPoints;
    const listAgents = points.find((point) => point.attributes['gen_ai.tool.name'] === 'list_agents');
    expect(listAgents?.value.count).toBe(1);
    expect(listAgents!.value.sum).toBeGreaterThan(0);
    expect(listAgents!.value.sum).toBeLessThan(5);
    expect(points.find((point) => point.attributes['gen_ai.tool.name'] === 'get_replay')?.attributes['error.type']).toBe('tool_error');
    expect(points.every((point) => !('mcp.resource.uri' in point.attributes))).toBe(true);
    expect(histogram!.dataPoints[0].value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
  });
});
