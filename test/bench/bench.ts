/**
 * `npm run bench`: one run on loopback against the embedded sandbox, printed as a report. Every
 * figure is shown as a ratio against a floor measured in the same run:
 *
 * - a minimal one-tool SDK server (test/bench/minimal-server.mjs: plain Node ESM, unbundled), for
 *   cold start to the first tools/list and for memory;
 * - that server forwarding the same route with undici, for the MCP call (p50, p99), with a direct
 *   undici call for reference.
 *
 * svc-mcp runs as users run it: the bundle `npm run build` makes (built here first). Memory is
 * read after a forced GC, through a preloaded probe (gc-probe.mjs). Nothing here fails on timing.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_VIEW_BYTES, viewSizes } from '../../src/views/build.js';
import { contextCostReport } from '../support/context-cost.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'undici';
import { startSandbox } from '../../src/sandbox/index.js';
import { buildCli } from '../support/build.js';
import { freePort, waitForHealth } from '../support/network.js';
import { ROOT } from '../support/paths.js';

const MINIMAL = path.join(ROOT, 'test/bench/minimal-server.mjs');
const PROBE = ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'test/bench/gc-probe.mjs')).href];
const CALL = { name: 'list_conversations', arguments: { limit: 20 } };
const UNLIMITED = '1000000/60s';
const STRICT = { limit: 40, windowMs: 5000 };

const { entry } = await buildCli();
const sandbox = await startSandbox();
sandbox.setRateLimit(1_000_000, 60_000);

interface Memory {
  rss: number;
  heap: number;
}

interface Server {
  client: Client;
  transport: StdioClientTransport;
  /** RSS and heap in MB after a forced GC (needs the probe). */
  memory(): Promise<Memory>;
  close(): Promise<void>;
}

type Kind = 'svc-mcp' | 'minimal';

async function startServer(kind: Kind, options: { probe?: boolean; env?: Record<string, string> } = {}): Promise<Server> {
  const script = kind === 'svc-mcp' ? entry : MINIMAL;
  const env: Record<string, string> =
    kind === 'svc-mcp'
      ? { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_LOG_LEVEL: 'warn', SVC_RATE_LIMIT: UNLIMITED, ...options.env }
      : { MINIMAL_BASE_URL: sandbox.url, MINIMAL_API_KEY: sandbox.keys.admin };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.probe ? PROBE : []), script],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  const readings: Array<(memory: Memory) => void> = [];
  const reading = /bench-rss (\d+) (\d+)\n/;
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (let match = reading.exec(stderr); match; match = reading.exec(stderr)) {
      stderr = stderr.slice(match.index + match[0].length);
      readings.shift()?.({ rss: Number(match[1]) / 1024 / 1024, heap: Number(match[2]) / 1024 / 1024 });
    }
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    memory: () =>
      new Promise((resolve) => {
        readings.push(resolve);
        process.kill(transport.pid!, 'SIGUSR2');
      }),
    close: () => client.close(),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (value: number) => `${value.toFixed(2)} ms`;
const mb = (value: number) => `${value.toFixed(1)} MB`;
const ratio = (value: number, floor: number) => `${(value / floor).toFixed(2)}x`;
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

const report: string[] = [`svc-mcp bench (bundle ${path.relative(ROOT, entry)}, Node ${process.version}, loopback, ${new Date().toISOString()})`, ''];
const figures: Record<string, number> = {};

// 1. Cold start: spawn to the first tools/list answer, alternating the two servers.
const coldStarts: Record<Kind, number[]> = { 'svc-mcp': [], minimal: [] };
for (let run = 0; run < 7; run++) {
  for (const kind of ['minimal', 'svc-mcp'] as const) {
    const started = performance.now();
    const server = await startServer(kind);
    await server.client.listTools();
    coldStarts[kind].push(performance.now() - started);
    await server.close();
  }
}
figures.coldStart = median(coldStarts['svc-mcp']);
figures.coldStartFloor = median(coldStarts.minimal);
report.push(
  `cold start to first tools/list (median of 7): svc-mcp ${ms(figures.coldStart)}, minimal SDK server ${ms(figures.coldStartFloor)}: ${ratio(figures.coldStart, figures.coldStartFloor)} (target <= 1.0x: ${verdict(figures.coldStart <= figures.coldStartFloor)})`,
);

// 2. Call latency: the same route through svc-mcp, through the minimal forwarding server, and direct.
const svc = await startServer('svc-mcp', { probe: true });
const minimal = await startServer('minimal', { probe: true });
await svc.client.listTools();
await minimal.client.listTools();
figures.rssStart = (await svc.memory()).rss;
figures.rssStartFloor = (await minimal.memory()).rss;
const pool = new Pool(new URL(sandbox.url).origin);
const direct = async () => {
  const response = await pool.request({ method: 'GET', path: '/v2/hc-interactions/public?limit=20', headers: { authorization: `Bearer ${sandbox.keys.admin}`, accept: 'application/json' } });
  await response.body.text();
};
const calls: Record<Kind, number> = { 'svc-mcp': 0, minimal: 0 };
const callOn = async (kind: Kind) => {
  calls[kind]++;
  await (kind === 'svc-mcp' ? svc : minimal).client.callTool(CALL);
};
const times: Record<Kind | 'direct', number[]> = { 'svc-mcp': [], minimal: [], direct: [] };
for (let index = 0; index < 200; index++) {
  await callOn('svc-mcp');
  await callOn('minimal');
  await direct();
}
// One call of each in turn, so a busy moment on the machine falls on both servers alike.
for (let index = 0; index < 900; index++) {
  for (const kind of ['minimal', 'svc-mcp', 'direct'] as const) {
    const started = performance.now();
    await (kind === 'direct' ? direct() : callOn(kind));
    times[kind].push(performance.now() - started);
  }
  if (index % 300 === 299) sandbox.clearRequests();
}
for (const list of Object.values(times)) list.sort((a, b) => a - b);
figures.p50 = percentile(times['svc-mcp'], 50);
figures.p99 = percentile(times['svc-mcp'], 99);
figures.p50Floor = percentile(times.minimal, 50);
figures.p99Floor = percentile(times.minimal, 99);
figures.p50Direct = percentile(times.direct, 50);
report.push(
  `MCP call list_conversations (limit 20), 900 calls each: svc-mcp p50 ${ms(figures.p50)} p99 ${ms(figures.p99)}; minimal forwarding server p50 ${ms(figures.p50Floor)} p99 ${ms(figures.p99Floor)}: p50 ${ratio(figures.p50, figures.p50Floor)} (target <= 1.5x: ${verdict(figures.p50 <= 1.5 * figures.p50Floor)}), p99 ${ratio(figures.p99, figures.p99Floor)}`,
  `  direct undici, for reference: p50 ${ms(figures.p50Direct)} p99 ${ms(percentile(times.direct, 99))} (svc-mcp p50 ${ratio(figures.p50, figures.p50Direct)} of it, the minimal server ${ratio(figures.p50Floor, figures.p50Direct)})`,
);

// 3. Memory: RSS after 2,000 calls against the minimal server's after as many, then 10,000 calls sampled every 1,000.
const callUpTo = async (kind: Kind, count: number) => {
  while (calls[kind] < count) {
    await callOn(kind);
    if (calls[kind] % 500 === 0) sandbox.clearRequests();
  }
};
await callUpTo('svc-mcp', 2000);
await callUpTo('minimal', 2000);
figures.rss2000 = (await svc.memory()).rss;
figures.rss2000Floor = (await minimal.memory()).rss;
report.push(
  `RSS after GC: svc-mcp ${mb(figures.rssStart)} after tools/list, ${mb(figures.rss2000)} after 2,000 calls; minimal server ${mb(figures.rssStartFloor)} and ${mb(figures.rss2000Floor)}: ${figures.rss2000 >= figures.rss2000Floor ? '+' : ''}${mb(figures.rss2000 - figures.rss2000Floor)} (target <= +15 MB: ${verdict(figures.rss2000 - figures.rss2000Floor <= 15)})`,
);
await minimal.close();
// Fresh servers, so that the samples start at call 1,000; the minimal server runs beside svc-mcp,
// call for call, since Node and V8 themselves grow a little while they warm up.
const steady = { 'svc-mcp': await startServer('svc-mcp', { probe: true }), minimal: await startServer('minimal', { probe: true }) };
const samples: Record<Kind, Memory[]> = { 'svc-mcp': [], minimal: [] };
for (let call = 1; call <= 10_000; call++) {
  await steady['svc-mcp'].client.callTool(CALL);
  await steady.minimal.client.callTool(CALL);
  if (call % 1000 === 0) {
    samples['svc-mcp'].push(await steady['svc-mcp'].memory());
    samples.minimal.push(await steady.minimal.memory());
    sandbox.clearRequests();
  }
}
await steady['svc-mcp'].close();
await steady.minimal.close();
// V8 resizes its young generation and the allocator keeps pages, so single RSS readings move by
// several MB either way; growth is the median of the last three samples against the first three.
const trend = (values: number[]) => median(values.slice(-3)) - median(values.slice(0, 3));
figures.rssGrowth = trend(samples['svc-mcp'].map((sample) => sample.rss));
figures.heapGrowth = trend(samples['svc-mcp'].map((sample) => sample.heap));
figures.rssGrowthFloor = trend(samples.minimal.map((sample) => sample.rss));
const series = (values: Memory[], key: keyof Memory) => values.map((sample) => sample[key].toFixed(1)).join(', ');
report.push(
  `memory over 10,000 calls, after GC every 1,000: svc-mcp RSS ${series(samples['svc-mcp'], 'rss')} MB, heap ${series(samples['svc-mcp'], 'heap')} MB; minimal server RSS ${series(samples.minimal, 'rss')} MB`,
  `  growth from the first three samples to the last three: svc-mcp RSS ${mb(figures.rssGrowth)}, heap ${mb(figures.heapGrowth)} (target < 2 MB: ${verdict(figures.rssGrowth < 2 && figures.heapGrowth < 2)}); minimal server RSS ${mb(figures.rssGrowthFloor)}`,
);

// 4. The Streamable HTTP transport's overhead against stdio, same call.
{
  const port = await freePort();
  const child = spawn(process.execPath, [entry, '--transport', 'http', '--http-port', String(port)], {
    env: { PATH: process.env.PATH ?? '', SVC_BASE_URL: sandbox.url, SVC_LOG_LEVEL: 'warn', SVC_RATE_LIMIT: UNLIMITED },
    stdio: 'ignore',
  });
  await waitForHealth(`http://127.0.0.1:${port}`);
  const http = new Client({ name: 'bench-http', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${sandbox.keys.admin}` } } }));
  for (let index = 0; index < 100; index++) await http.callTool(CALL);
  const httpTimes: number[] = [];
  for (let index = 0; index < 300; index++) {
    const started = performance.now();
    await http.callTool(CALL);
    httpTimes.push(performance.now() - started);
  }
  httpTimes.sort((a, b) => a - b);
  report.push(`Streamable HTTP, same call, 300 calls: p50 ${ms(percentile(httpTimes, 50))} p99 ${ms(percentile(httpTimes, 99))} (${ratio(percentile(httpTimes, 50), figures.p50)} of stdio's p50)`);
  await http.close();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}
await svc.close();

// 5. Context cost of tools/list against its budgets, and the views' sizes.
report.push(...contextCostReport());
for (const { name, bytes } of await viewSizes()) {
  report.push(`view ${name}: ${(bytes / 1024).toFixed(0)} KB (limit ${MAX_VIEW_BYTES / 1024} KB: ${verdict(bytes <= MAX_VIEW_BYTES)})`);
}

// 6. 429s and throughput against a strict sliding-window limit upstream.
sandbox.setRateLimit(STRICT.limit, STRICT.windowMs);
const strict = await startServer('svc-mcp', { env: { SVC_RATE_LIMIT: `${STRICT.limit}/${STRICT.windowMs}ms` } });
await strict.client.listTools();
sandbox.clearRequests();
const burst = STRICT.limit * 4;
const results = await Promise.all(Array.from({ length: burst }, () => strict.client.callTool({ name: 'list_agents', arguments: {} })));
const upstream = sandbox.requests.filter((request) => request.path.startsWith('/v2')).map((request) => request.at).sort((a, b) => a - b);
const rejected = sandbox.requests.filter((request) => request.status === 429).length;
// Past the first burst (which the budget allows at once), starts per second against the budget's rate.
const sustained = (upstream.length - STRICT.limit) / ((upstream.at(-1)! - upstream[0]) / 1000);
const allowed = STRICT.limit / (STRICT.windowMs / 1000);
figures.throughput = sustained / allowed;
report.push(
  `strict limit ${STRICT.limit} per ${STRICT.windowMs / 1000} s upstream, ${burst} concurrent calls: ${results.filter((result) => !result.isError).length} ok, upstream 429s ${rejected} (target 0: ${verdict(rejected === 0)}); sustained ${sustained.toFixed(2)} starts/s against ${allowed}/s allowed: ${(figures.throughput * 100).toFixed(1)} % (target >= 90 %: ${verdict(figures.throughput >= 0.9)})`,
);
await strict.close();
await pool.close();
await sandbox.close();

console.log(report.join('\n'));
console.log(`\nfigures ${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, Number(value.toFixed(3))])))}`);
