/**
 * `npm run bench`: one run on loopback, printed as a report. Nothing here fails on timing.
 * Uses the built server (dist/) as users run it; `npm run bench` builds first.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { SlidingWindowLimiter } from '../../src/http/limiter.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT } from '../support/paths.js';
import { freePort, waitForHealth } from '../support/conformance.js';

const ENTRY = path.join(ROOT, 'dist/src/cli.js');

interface Server {
  client: Client;
  transport: StdioClientTransport;
}

async function spawnServer(sandbox: Sandbox, env: Record<string, string>): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: existsSync(ENTRY) ? [ENTRY] : ['--import', 'tsx', path.join(ROOT, 'src/cli.ts')],
    env: { PATH: process.env.PATH ?? '', SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_LOG_LEVEL: 'warn', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

function rssMb(pid: number | null): number {
  if (!pid) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const sandbox = await startSandbox();
sandbox.setRateLimit(1_000_000, 60_000);
const unlimited = { SVC_RATE_LIMIT: '1000000/60s' };
const report: string[] = [`svc-mcp bench (${existsSync(ENTRY) ? 'dist build' : 'tsx source'}, Node ${process.version}, loopback)`, ''];

// 1. Cold start: spawn to the first tools/list answer.
const coldStarts: number[] = [];
for (let run = 0; run < 3; run++) {
  const started = performance.now();
  const server = await spawnServer(sandbox, unlimited);
  await server.client.listTools();
  coldStarts.push(performance.now() - started);
  await server.client.close();
}
report.push(`cold start to first tools/list: best ${ms(Math.min(...coldStarts))}, runs ${coldStarts.map(ms).join(', ')}`);

// 2. Latency of list_conversations through MCP against the same request made directly.
const server = await spawnServer(sandbox, unlimited);
const rssAtStart = rssMb(server.transport.pid);
const { tools } = await server.client.listTools();
const query = 'limit=20';
const mcpTimes: number[] = [];
const directTimes: number[] = [];
for (let index = 0; index < 50; index++) {
  await server.client.callTool({ name: 'list_conversations', arguments: { limit: 20 } });
  await request(`${sandbox.url}/v2/hc-interactions/public?${query}`, { headers: { authorization: `Bearer ${sandbox.keys.admin}` } }).then((response) => response.body.text());
}
for (let index = 0; index < 300; index++) {
  let started = performance.now();
  await server.client.callTool({ name: 'list_conversations', arguments: { limit: 20 } });
  mcpTimes.push(performance.now() - started);
  started = performance.now();
  const response = await request(`${sandbox.url}/v2/hc-interactions/public?${query}`, { headers: { authorization: `Bearer ${sandbox.keys.admin}` } });
  await response.body.text();
  directTimes.push(performance.now() - started);
}
mcpTimes.sort((a, b) => a - b);
directTimes.sort((a, b) => a - b);
report.push(
  `list_conversations (limit 20), 300 calls: MCP p50 ${ms(percentile(mcpTimes, 50))} p99 ${ms(percentile(mcpTimes, 99))}; direct undici p50 ${ms(percentile(directTimes, 50))} p99 ${ms(percentile(directTimes, 99))}; ratio p50 ${(percentile(mcpTimes, 50) / percentile(directTimes, 50)).toFixed(2)}x, p99 ${(percentile(mcpTimes, 99) / percentile(directTimes, 99)).toFixed(2)}x`,
);

// 2a. Where the MCP call's extra time goes: one uncontended pass through the rate limiter.
const limiter = new SlidingWindowLimiter({ limit: 1_000_000, windowMs: 1000 });
const acquireStarted = performance.now();
for (let index = 0; index < 300; index++) await limiter.acquire();
report.push(`  of which the Bottleneck limiter (uncontended acquire, in-process): ${ms((performance.now() - acquireStarted) / 300)} per request`);
await limiter.stop();

// 2b. The same call through Streamable HTTP against stdio: the HTTP transport's overhead.
{
  const port = await freePort();
  const httpProcess = spawn(
    process.execPath,
    [...(existsSync(ENTRY) ? [ENTRY] : ['--import', 'tsx', path.join(ROOT, 'src/cli.ts')]), '--transport', 'http', '--http-port', String(port)],
    { env: { PATH: process.env.PATH ?? '', SVC_BASE_URL: sandbox.url, SVC_LOG_LEVEL: 'warn', SVC_CONFIRM: 'none', ...unlimited }, stdio: 'ignore' },
  );
  await waitForHealth(`http://127.0.0.1:${port}`);
  const httpClient = new Client({ name: 'bench-http', version: '1.0.0' });
  await httpClient.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${sandbox.keys.admin}` } } }),
  );
  const args = { name: 'list_conversations', arguments: { limit: 20 } };
  for (let index = 0; index < 50; index++) {
    await httpClient.callTool(args);
    await server.client.callTool(args);
  }
  const httpTimes: number[] = [];
  const stdioTimes: number[] = [];
  for (let index = 0; index < 300; index++) {
    let started = performance.now();
    await httpClient.callTool(args);
    httpTimes.push(performance.now() - started);
    started = performance.now();
    await server.client.callTool(args);
    stdioTimes.push(performance.now() - started);
  }
  httpTimes.sort((a, b) => a - b);
  stdioTimes.sort((a, b) => a - b);
  report.push(
    `list_conversations (limit 20), 300 calls: Streamable HTTP p50 ${ms(percentile(httpTimes, 50))} p99 ${ms(percentile(httpTimes, 99))}; stdio p50 ${ms(percentile(stdioTimes, 50))} p99 ${ms(percentile(stdioTimes, 99))}; HTTP overhead p50 ${ms(percentile(httpTimes, 50) - percentile(stdioTimes, 50))} (${(percentile(httpTimes, 50) / percentile(stdioTimes, 50)).toFixed(2)}x), p99 ${(percentile(httpTimes, 99) / percentile(stdioTimes, 99)).toFixed(2)}x`,
  );
  await httpClient.close();
  httpProcess.kill('SIGTERM');
  await new Promise((resolve) => httpProcess.once('exit', resolve));
}

// 3. Context cost of tools/list: what a client shows the model.
const costs = tools
  .map((tool) => ({ name: tool.name, tokens: Math.ceil(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length / 4) }))
  .sort((a, b) => b.tokens - a.tokens);
const total = costs.reduce((sum, cost) => sum + cost.tokens, 0);
report.push(`tools/list context cost (default configuration): ${total} tokens for ${tools.length} tools (bytes/4), mean ${Math.round(total / tools.length)}`);
for (const cost of costs) report.push(`  ${cost.name.padEnd(30)} ${cost.tokens}`);

// 4. RSS after 2,000 calls.
for (let index = 0; index < 2000; index++) await server.client.callTool({ name: 'list_agents', arguments: {} });
report.push(`server RSS: ${rssAtStart.toFixed(1)} MB after start, ${rssMb(server.transport.pid).toFixed(1)} MB after ${2000 + 350} calls`);
await server.client.close();

// 5. Throughput and 429s against a strict, tight limit.
sandbox.setRateLimit(20, 2000);
const strict = await spawnServer(sandbox, { SVC_RATE_LIMIT: '20/2s' });
await strict.client.listTools();
sandbox.clearRequests();
const started = performance.now();
const results = await Promise.all(Array.from({ length: 100 }, () => strict.client.callTool({ name: 'list_agents', arguments: {} })));
const seconds = (performance.now() - started) / 1000;
const upstream = sandbox.requests.filter((entry) => entry.path.startsWith('/v2'));
report.push(
  `strict limit 20 per 2 s, 100 concurrent calls: ${results.filter((result) => !result.isError).length} ok in ${seconds.toFixed(2)} s (${(100 / seconds).toFixed(1)} calls/s; budget allows 10/s), upstream 429s: ${upstream.filter((entry) => entry.status === 429).length}`,
);
await strict.client.close();
await sandbox.close();
console.log(report.join('\n'));
