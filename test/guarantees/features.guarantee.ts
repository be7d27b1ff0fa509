import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_MIME_TYPE } from '../../src/views/index.js';
import { useStarted } from '../support/fixture.js';
import { connectProcess, textOf, waitFor } from '../support/harness.js';
import { connectHttp, startHttpServerProcess, type HttpServerProcess } from '../support/http-harness.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';
import { SHOWS_VIEWS } from '../views/client.js';
import { startOtlpCollector } from './otlp-collector.js';
import { call, startStandaloneSandbox } from './support.js';

/**
 * Design §10.8: the shipped binary is the tested one. dist/svc-mcp.js starts with each optional
 * feature on (OpenTelemetry exporting to a local collector, Redis, HTTP, stateless HTTP, views, the
 * embedded and the standalone sandbox), and each answers tools/list and one tools/call. CI also runs
 * this file on Node 22 and 24 (.ci/node-versions).
 */

async function answers(client: Client, tool = 'list_agents'): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((entry) => entry.name)).toContain(tool);
  const result = await call(client, tool);
  expect(result.isError, textOf(result)).toBeFalsy();
}

describe('§10.8 every optional feature starts from dist/ and answers', () => {
  it('the embedded sandbox over stdio (--sandbox)', async () => {
    const server = await connectProcess({ args: ['--sandbox'] });
    await answers(server.client);
    await server.close();
  });

  describe('the standalone sandbox (svc-mcp sandbox)', () => {
    const sandbox = useStarted(startStandaloneSandbox, (started) => started.stop());

    it('prints its URL, one line per key and a line to paste, answers /__sandbox/info, and serves a server pointed at it', async () => {
      expect(Object.keys(sandbox.keys)).toEqual(expect.arrayContaining(['admin', 'readOnly', 'otherWorkspace', 'revoked']));
      expect(sandbox.banner).toContain(`SVC_BASE_URL=${sandbox.url} SVC_API_KEY=${sandbox.keys.admin}`);
      const info = (await (await fetch(`${sandbox.url}/__sandbox/info`)).json()) as { url: string };
      expect(info.url).toBe(sandbox.url);
      const server = await connectProcess({ env: { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin } });
      await answers(server.client);
      await server.close();
    });
  });

  describe('OpenTelemetry, exporting OTLP/HTTP JSON to a local collector', () => {
    const collector = useStarted(startOtlpCollector, (started) => started.close());

    it('sends a tools/call span with its upstream span under it, and the mcp.server.operation.duration metric', async () => {
      const server = await connectProcess({
        args: ['--sandbox'],
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_SERVICE_NAME: 'svc-mcp-guarantee',
          // Export soon rather than on the SDK's minute-long defaults.
          OTEL_BSP_SCHEDULE_DELAY: '100',
          OTEL_METRIC_EXPORT_INTERVAL: '200',
        },
      });
      await answers(server.client);
      const span = await waitFor(() => collector.spans().find((entry) => entry.name === 'tools/call list_agents'), 'the tools/call span at the collector');
      expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_agents' });
      expect(span.resource['service.name']).toBe('svc-mcp-guarantee');
      const upstream = await waitFor(() => collector.spans().find((entry) => entry.parentSpanId === span.spanId), 'the upstream span under it');
      expect(upstream.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
      const metric = await waitFor(() => collector.metrics().find((entry) => entry.name === 'mcp.server.operation.duration'), 'the duration metric at the collector');
      expect(metric.unit).toBe('s');
      await server.close();
      expect(collector.refused()).toEqual([]);
      expect(server.stderr()).not.toMatch(/"level":(50|60)/);
    });
  });

  describe('Streamable HTTP', () => {
    const servers: HttpServerProcess[] = [];
    afterAll(async () => Promise.all(servers.map((server) => server.stop())));

    it('with sessions (--transport http)', async () => {
      const server = await startHttpServerProcess({ args: ['--sandbox'] });
      servers.push(server);
      const client = await connectHttp(server.url);
      await answers(client.client);
      await client.close();
    });

    it('stateless (--stateless)', async () => {
      const server = await startHttpServerProcess({ args: ['--sandbox', '--stateless'] });
      servers.push(server);
      const client = await connectHttp(server.url);
      await answers(client.client);
      await client.close();
    });
  });

  describe.skipIf(!runRedisTests())('Redis (SVC_REDIS_URL)', () => {
    let redis: RedisServer;
    let server: HttpServerProcess;
    beforeAll(async () => {
      redis = await startRedis();
      server = await startHttpServerProcess({ args: ['--sandbox', '--stateless'], env: { SVC_REDIS_URL: redis.url } });
    });
    afterAll(async () => {
      await server?.stop();
      await redis?.stop();
    });

    it('a stateless node on Redis reports it reachable and answers', async () => {
      const health = (await (await fetch(`${server.base}/healthz`)).json()) as { redis?: string };
      expect(health.redis).toBe('ok');
      const client = await connectHttp(server.url);
      await answers(client.client);
      await client.close();
    });
  });

  describe('views (MCP Apps)', () => {
    const host = useStarted(
      () => connectProcess({ args: ['--sandbox'], capabilities: SHOWS_VIEWS }),
      (started) => started.close(),
    );
    let client: Client;
    beforeAll(() => {
      client = host.client;
    });

    it('names a ui:// view on conversation_stats, serves it with resources/read, and the tool answers', async () => {
      const { tools } = await client.listTools();
      const stats = tools.find((tool) => tool.name === 'conversation_stats');
      const uri = (stats?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      expect(uri).toMatch(/^ui:\/\//);
      const { contents } = await client.readResource({ uri: uri! });
      const [page] = contents as Array<{ mimeType?: string; text?: string }>;
      expect(page.mimeType).toBe(VIEW_MIME_TYPE);
      expect(page.text).toMatch(/^<!doctype html>/i);
      expect(Buffer.byteLength(page.text!)).toBeLessThanOrEqual(512 * 1024);
      const result = await call(client, 'conversation_stats', { since: '30d' });
      expect(result.isError, textOf(result)).toBeFalsy();
    });
  });
});
