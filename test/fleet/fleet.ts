import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { caller, type Connection } from '../support/harness.js';
import { freePort } from '../support/network.js';
import { startHttpServerProcess, type HttpServerProcess } from '../support/http-harness.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { startHaproxy, type Balance, type Haproxy } from './haproxy.js';

/** Three (or n) stateless nodes on one Redis behind HAProxy, serving a sandbox. */
export interface Fleet {
  redis: RedisServer;
  nodes: HttpServerProcess[];
  proxy: Haproxy;
  stop(): Promise<void>;
}

export const FLEET_SECRET = 'fleet-test-secret-shared-by-every-node';

/** `proxyPort`: chosen by the caller when the nodes must know the proxy's address (SVC_PUBLIC_URL for OAuth). */
export async function startFleet(sandbox: Sandbox, options: { nodes: number; env?: Record<string, string>; proxyPort?: number; balance?: Balance }): Promise<Fleet> {
  const redis = await startRedis();
  const proxyPort = options.proxyPort ?? (await freePort());
  const env = {
    // Clients name the proxy in their Host header.
    SVC_ALLOWED_HOSTS: `127.0.0.1:${proxyPort}`,
    SVC_BASE_URL: sandbox.url,
    SVC_REDIS_URL: redis.url,
    SVC_STATELESS: 'true',
    SVC_CONFIRM_SECRET: FLEET_SECRET,
    // The suites that are not about the mirror count what reaches the upstream request by request.
    SVC_MIRROR: 'off',
    ...options.env,
  };
  const started = await Promise.allSettled(Array.from({ length: options.nodes }, () => startHttpServerProcess({ env })));
  const nodes = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = started.find((outcome) => outcome.status === 'rejected');
  let proxy: Haproxy | undefined;
  try {
    if (failed) throw (failed as PromiseRejectedResult).reason;
    proxy = await startHaproxy(
      proxyPort,
      nodes.map((node) => node.port),
      options.balance ?? 'roundrobin',
    );
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.stop();
    throw error;
  }
  return {
    redis,
    nodes,
    proxy,
    async stop() {
      await proxy.stop();
      await Promise.all(nodes.map((node) => node.stop()));
      await redis.stop();
    },
  };
}

/** One request as the client saw it: its JSON-RPC method and the node HAProxy sent it to. */
export interface Served {
  method: string;
  params: Record<string, unknown> | undefined;
  node: string;
}

export interface ProxyClient {
  client: Client;
  served: Served[];
  call: Connection['call'];
  close(): Promise<void>;
}

/** A real SDK client over Streamable HTTP through the proxy, recording which node served each request. */
export async function connectThroughProxy(url: string, key: string): Promise<ProxyClient> {
  const served: Served[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const message = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: Record<string, unknown> }) : undefined;
      served.push({ method: message?.method ?? String(init?.method), params: message?.params, node: response.headers.get('x-served-by') ?? 'unknown' });
      if (init?.method !== 'POST' || !response.body) return response;
      // Read to the end before the SDK sees it: a node that dies after the stream began then fails
      // the call at once, where the SDK alone would wait for its request timeout (60 s).
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  });
  const client = new Client({ name: 'svc-mcp-fleet-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    served,
    call: caller(client),
    close: () => client.close(),
  };
}
