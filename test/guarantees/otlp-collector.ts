/**
 * A local OpenTelemetry collector, as small as the test needs: it accepts OTLP/HTTP in the JSON
 * protocol at /v1/traces and /v1/metrics and keeps what it received.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpCollector {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans(): ReceivedSpan[];
  /** Names of the metrics received, with the resource that sent each. */
  metrics(): Array<{ name: string; unit?: string; resource: Record<string, unknown> }>;
  /** Requests that were not OTLP JSON the collector could read, as `status path: reason`. */
  refused(): string[];
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

/** OTLP JSON attributes (`[{key, value: {stringValue}}]`) as a plain record. */
function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  const metrics: Array<{ name: string; unit?: string; resource: Record<string, unknown> }> = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = (status: number, reason?: string) => {
        if (reason) refused.push(`${status} ${req.url}: ${reason}`);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      };
      if (req.method !== 'POST' || (req.url !== '/v1/traces' && req.url !== '/v1/metrics')) return answer(404, `${req.method} is not an OTLP export`);
      if (!String(req.headers['content-type']).startsWith('application/json')) return answer(415, `content-type ${req.headers['content-type']}, not the JSON protocol`);
      let body: Record<string, unknown[]>;
      try {
        const raw = Buffer.concat(chunks);
        body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as Record<string, unknown[]>;
      } catch (error) {
        return answer(400, (error as Error).message);
      }
      if (req.url === '/v1/traces') {
        for (const resourceSpans of (body.resourceSpans ?? []) as Array<{
          resource?: { attributes?: KeyValue[] };
          scopeSpans?: Array<{ spans?: Array<ReceivedSpan & { attributes?: KeyValue[] }> }>;
        }>) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) spans.push({ ...span, attributes: attributesOf(span.attributes as unknown as KeyValue[]), resource });
          }
        }
      } else {
        for (const resourceMetrics of (body.resourceMetrics ?? []) as Array<{ resource?: { attributes?: KeyValue[] }; scopeMetrics?: Array<{ metrics?: Array<{ name: string; unit?: string }> }> }>) {
          const resource = attributesOf(resourceMetrics.resource?.attributes);
          for (const scope of resourceMetrics.scopeMetrics ?? []) for (const metric of scope.metrics ?? []) metrics.push({ name: metric.name, unit: metric.unit, resource });
        }
      }
      answer(200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    metrics: () => metrics,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
