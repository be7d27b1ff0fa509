/**
 * `npm run bench`: svc-mcp against floors built in the same run, on loopback against the embedded
 * sandbox, printed as a report. Nothing here fails on timing: it reports.
 *
 * - svc-mcp runs as users run it: the package `npm run build` makes (rebuilt here first into dist/,
 *   views included), logging at its default level (info), its stderr read as a host would.
 * - The floor is a minimal SDK server (test/bench/minimal-server.ts) bundled with the same esbuild
 *   settings (test/release/build.ts): one tool that forwards the route svc-mcp's
 *   list_conversations calls, with undici, over stdio or Streamable HTTP.
 * - Each timed figure is measured in three rounds, the two servers alternating within each (call
 *   by call, or period by period for the 50-client load), and printed as the median of the three
 *   rounds with their spread (lowest and highest); a ratio's target is judged on the median and
 *   on the best round (report.ts). Ratios are taken within a round, so a busy moment on this
 *   shared machine falls on both servers alike. The report opens with the machine and its load.
 * - Memory is read after a forced GC through a preloaded probe (gc-probe.mjs); the scale run reads
 *   the peak resident set (VmHWM) from /proc.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { MAX_VIEW_BYTES, viewSizes } from '../../src/views/build.js';
import { buildPackage } from '../release/build.js';
import { contextCostReport } from '../support/context-cost.js';
import { ROOT } from '../support/paths.js';
import { memoryOf } from '../support/processes.js';
import { childrenMemory, connectClients, loadRound, type HttpServerProcess, type LoadRound } from './http-load.js';
import { figure, figuresLine, loadLine, machineLine, mb, median, ms, percentile, ratioFigure, say, times, verdict } from './report.js';
import { BENCH_CALL as CALL, bundleFloor, startHttpServer, stdioEnv, type ServerKind as Kind } from './servers.js';

const ROUNDS = 3;
const PROBE = ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'test/bench/gc-probe.mjs')).href];
const STRICT = { limit: 40, windowMs: 5000 };
const CLIENTS = 50;
const LOAD_MS = 6000;
const DAY_MS = 86_400_000;
const SLICE_MS = 90 * DAY_MS;

/** `npm run bench -- http scale` runs those sections alone: cold, first, stdio, http, context, strict, scale, mirror. */
const sections = new Set(process.argv.slice(2));
const wanted = (section: string) => sections.size === 0 || sections.has(section);

const work = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-bench-'));
const { entry } = await buildPackage();
const MINIMAL = await bundleFloor(work);
const sandbox = await startSandbox({ rateLimit: 'off' });

say(
  `svc-mcp bench (bundle ${path.relative(ROOT, entry)}, ${new Date().toISOString()})`,
  machineLine(),
  `Each figure: median of ${ROUNDS} rounds (lowest-highest); ratios against the floor taken within each round, each target judged on the median and on the best round. svc-mcp logs at its default level (info).`,
  '',
);

// ---- stdio servers ---------------------------------------------------------------------------

interface Memory {
  rss: number;
  heap: number;
}

interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  /** RSS and heap in MB after a forced GC (needs the probe). */
  memory(): Promise<Memory>;
  close(): Promise<void>;
}

const KINDS: readonly Kind[] = ['minimal', 'svc-mcp'];

async function startStdio(kind: Kind, options: { probe?: boolean; env?: Record<string, string>; upstream?: Sandbox } = {}): Promise<StdioServer> {
  const env = { ...stdioEnv(kind, options.upstream ?? sandbox), ...options.env };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.probe ? PROBE : []), kind === 'svc-mcp' ? entry : MINIMAL],
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
    // Log lines are read and dropped, as a host reading stderr would.
    if (readings.length === 0) stderr = stderr.slice(stderr.lastIndexOf('\n') + 1);
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid!,
    memory: () =>
      new Promise((resolve) => {
        readings.push(resolve);
        process.kill(transport.pid!, 'SIGUSR2');
      }),
    close: () => client.close(),
  };
}

// ---- 1. cold start, and spawn to the first answer ------------------------------------------

/** Spawns per server per round, the two servers taking turns start by start. */
const STARTS = 7;

/**
 * Each round, STARTS starts of each server in turn; `measure` times the started server from the
 * moment before its spawn and returns named durations. Returns, per duration, each round's median
 * for svc-mcp and for the floor, and their ratio.
 */
async function startRounds<Name extends string>(measure: (server: StdioServer, started: number) => Promise<Record<Name, number>>) {
  const rows = {} as Record<Name, { svc: number[]; floor: number[]; ratio: number[] }>;
  for (let round = 0; round < ROUNDS; round++) {
    const runs: Record<Kind, Array<Record<Name, number>>> = { 'svc-mcp': [], minimal: [] };
    for (let run = 0; run < STARTS; run++) {
      for (const kind of run % 2 ? [...KINDS].reverse() : KINDS) {
        const started = performance.now();
        const server = await startStdio(kind);
        runs[kind].push(await measure(server, started));
        await server.close();
      }
    }
    for (const name of Object.keys(runs.minimal[0]) as Name[]) {
      const row = (rows[name] ??= { svc: [], floor: [], ratio: [] });
      row.svc.push(median(runs['svc-mcp'].map((durations) => durations[name])));
      row.floor.push(median(runs.minimal.map((durations) => durations[name])));
      row.ratio.push(row.svc.at(-1)! / row.floor.at(-1)!);
    }
  }
  return rows;
}

if (wanted('cold')) {
  /**
   * When the server's answer to tools/list reaches the client: the SDK client then parses the list
   * and compiles a validator for each output schema (some 40 for svc-mcp, none for the floor),
   * work of the client that `listTools()` includes and that is reported apart.
   */
  const answerArrives = (transport: StdioClientTransport) =>
    new Promise<number>((resolve) => {
      const deliver = transport.onmessage!;
      transport.onmessage = (message: JSONRPCMessage) => {
        if ('result' in message && Array.isArray(message.result.tools)) resolve(performance.now());
        deliver(message);
      };
    });
  const { answered, listed } = await startRounds(async (server, started) => {
    const arrives = answerArrives(server.transport);
    await server.client.listTools();
    return { answered: (await arrives) - started, listed: performance.now() - started };
  });
  say(
    `cold start, spawn to the tools/list answer reaching the client (each round the median of ${STARTS} starts): svc-mcp ${figure('coldStart', answered.svc, ms)}, minimal SDK server bundled alike ${figure('coldStartFloor', answered.floor, ms)}: ${ratioFigure('coldStartRatio', answered.ratio, { most: 1.0 })}`,
    `  until the SDK client's listTools() resolves (its parse of the list and a validator compiled per output schema included): svc-mcp ${figure('coldStartListed', listed.svc, ms)}, floor ${figure('coldStartListedFloor', listed.floor, ms)}`,
  );
}

if (wanted('first')) {
  /** A host that calls at once: spawn, initialize, then list_conversations, with no tools/list before it; the call reaches the sandbox. */
  const { answered } = await startRounds(async (server, started) => {
    const result = (await server.client.callTool(CALL)) as CallToolResult;
    if (result.isError) throw new Error(`the first list_conversations failed: ${JSON.stringify(result.content)}`);
    return { answered: performance.now() - started };
  });
  say(
    `spawn to the first answered list_conversations (limit 20; no tools/list before it; each round the median of ${STARTS} starts): svc-mcp ${figure('firstAnswer', answered.svc, ms)}, floor ${figure('firstAnswerFloor', answered.floor, ms)}: ${ratioFigure('firstAnswerRatio', answered.ratio, { most: 1.0 })}`,
  );
}

// ---- 2. stdio call latency and memory --------------------------------------------------------

if (wanted('stdio')) {
  const pool = new Pool(new URL(sandbox.url).origin);
  const direct = async () => {
    const response = await pool.request({ method: 'GET', path: '/v2/hc-interactions/public?limit=20', headers: { authorization: `Bearer ${sandbox.keys.admin}`, accept: 'application/json' } });
    await response.body.text();
  };
  const rows: Record<string, number[]> = {
    p50: [],
    p99: [],
    p50Floor: [],
    p99Floor: [],
    p50Direct: [],
    p50Ratio: [],
    p99Ratio: [],
    rssStart: [],
    rssStartFloor: [],
    rss2000: [],
    rss2000Floor: [],
    rssOver: [],
    rssGrowth: [],
    heapGrowth: [],
    rssGrowthFloor: [],
  };
  let lastSeries = '';
  for (let round = 0; round < ROUNDS; round++) {
    const servers = { 'svc-mcp': await startStdio('svc-mcp', { probe: true }), minimal: await startStdio('minimal', { probe: true }) };
    const calls: Record<Kind, number> = { 'svc-mcp': 0, minimal: 0 };
    const callOn = async (kind: Kind) => {
      calls[kind]++;
      await servers[kind].client.callTool(CALL);
    };
    for (const kind of KINDS) await servers[kind].client.listTools();
    rows.rssStart.push((await servers['svc-mcp'].memory()).rss);
    rows.rssStartFloor.push((await servers.minimal.memory()).rss);
    for (let index = 0; index < 200; index++) {
      for (const kind of KINDS) await callOn(kind);
      await direct();
    }
    const latencies: Record<Kind | 'direct', number[]> = { 'svc-mcp': [], minimal: [], direct: [] };
    // One call of each in turn, so a busy moment on the machine falls on all three alike.
    for (let index = 0; index < 600; index++) {
      for (const kind of index % 2 ? (['svc-mcp', 'direct', 'minimal'] as const) : (['minimal', 'direct', 'svc-mcp'] as const)) {
        const started = performance.now();
        await (kind === 'direct' ? direct() : callOn(kind));
        latencies[kind].push(performance.now() - started);
      }
    }
    for (const list of Object.values(latencies)) list.sort((a, b) => a - b);
    rows.p50.push(percentile(latencies['svc-mcp'], 50));
    rows.p99.push(percentile(latencies['svc-mcp'], 99));
    rows.p50Floor.push(percentile(latencies.minimal, 50));
    rows.p99Floor.push(percentile(latencies.minimal, 99));
    rows.p50Direct.push(percentile(latencies.direct, 50));
    rows.p50Ratio.push(rows.p50.at(-1)! / rows.p50Floor.at(-1)!);
    rows.p99Ratio.push(rows.p99.at(-1)! / rows.p99Floor.at(-1)!);
    sandbox.clearRequests();
    // Memory: samples after GC at every 1,000th call up to 10,000, the floor beside svc-mcp call for
    // call, since Node and V8 themselves grow a little while they warm up.
    const samples: Record<Kind, Memory[]> = { 'svc-mcp': [], minimal: [] };
    for (let target = 1000; target <= 10_000; target += 1000) {
      while (calls['svc-mcp'] < target || calls.minimal < target) {
        for (const kind of KINDS) if (calls[kind] < target) await callOn(kind);
      }
      for (const kind of KINDS) samples[kind].push(await servers[kind].memory());
      sandbox.clearRequests();
    }
    for (const kind of KINDS) await servers[kind].close();
    // V8 resizes its young generation and the allocator keeps pages, so single RSS readings move by
    // several MB either way; growth is the median of the last three samples against the first three.
    const trend = (values: number[]) => median(values.slice(-3)) - median(values.slice(0, 3));
    rows.rss2000.push(samples['svc-mcp'][1].rss);
    rows.rss2000Floor.push(samples.minimal[1].rss);
    rows.rssOver.push(rows.rss2000.at(-1)! - rows.rss2000Floor.at(-1)!);
    rows.rssGrowth.push(trend(samples['svc-mcp'].map((sample) => sample.rss)));
    rows.heapGrowth.push(trend(samples['svc-mcp'].map((sample) => sample.heap)));
    rows.rssGrowthFloor.push(trend(samples.minimal.map((sample) => sample.rss)));
    lastSeries = `svc-mcp RSS ${samples['svc-mcp'].map((sample) => sample.rss.toFixed(1)).join(', ')} MB, heap ${samples['svc-mcp'].map((sample) => sample.heap.toFixed(1)).join(', ')} MB; minimal server RSS ${samples.minimal.map((sample) => sample.rss.toFixed(1)).join(', ')} MB`;
  }
  await pool.close();
  say(
    `stdio, list_conversations (limit 20), 600 calls each per round: svc-mcp p50 ${figure('stdioP50', rows.p50, ms)} p99 ${figure('stdioP99', rows.p99, ms)}; minimal forwarding server p50 ${figure('stdioP50Floor', rows.p50Floor, ms)} p99 ${figure('stdioP99Floor', rows.p99Floor, ms)}`,
    `  p50 ${ratioFigure('stdioP50Ratio', rows.p50Ratio, { most: 1.15 })}; p99 ${figure('stdioP99Ratio', rows.p99Ratio, times)}; direct undici, for reference, p50 ${figure('directP50', rows.p50Direct, ms)}`,
    `RSS after GC: svc-mcp ${figure('rssStart', rows.rssStart, mb)} after tools/list, ${figure('rss2000', rows.rss2000, mb)} after 2,000 calls; minimal server ${figure('rssStartFloor', rows.rssStartFloor, mb)} and ${figure('rss2000Floor', rows.rss2000Floor, mb)}: svc-mcp above it by ${figure('rssOverFloor', rows.rssOver, mb)} (target <= 15 MB: ${verdict(median(rows.rssOver) <= 15)})`,
    `memory growth from call 1,000 to 10,000 (median of the last three samples against the first three, after GC): svc-mcp RSS ${figure('rssGrowth', rows.rssGrowth, mb)}, heap ${figure('heapGrowth', rows.heapGrowth, mb)} (target < 2 MB: ${verdict(median(rows.rssGrowth) < 2 && median(rows.heapGrowth) < 2)}); minimal server RSS ${figure('rssGrowthFloor', rows.rssGrowthFloor, mb)}`,
    `  last round's samples: ${lastSeries}`,
  );
}

// ---- 3. Streamable HTTP: one client, then 50 -------------------------------------------------

if (wanted('http')) {
  const http: Record<Kind, HttpServerProcess> = {
    // The 50 clients and the one-client run share the key's sessions.
    'svc-mcp': await startHttpServer('svc-mcp', entry, sandbox, CLIENTS + 1),
    minimal: await startHttpServer('minimal', MINIMAL, sandbox, CLIENTS + 1),
  };
  const single = { 'svc-mcp': (await connectClients(http['svc-mcp'].url, 1, sandbox.keys.admin))[0], minimal: (await connectClients(http.minimal.url, 1, sandbox.keys.admin))[0] };
  for (let index = 0; index < 100; index++) for (const kind of KINDS) await single[kind].callTool(CALL);
  const one: Record<string, number[]> = { p50: [], p50Floor: [], ratio: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const latencies: Record<Kind, number[]> = { 'svc-mcp': [], minimal: [] };
    for (let index = 0; index < 300; index++) {
      for (const kind of index % 2 ? [...KINDS].reverse() : KINDS) {
        const started = performance.now();
        await single[kind].callTool(CALL);
        latencies[kind].push(performance.now() - started);
      }
    }
    for (const list of Object.values(latencies)) list.sort((a, b) => a - b);
    one.p50.push(percentile(latencies['svc-mcp'], 50));
    one.p50Floor.push(percentile(latencies.minimal, 50));
    one.ratio.push(one.p50.at(-1)! / one.p50Floor.at(-1)!);
    sandbox.clearRequests();
  }
  for (const kind of KINDS) await single[kind].close();
  say(
    `Streamable HTTP, one client, 300 calls each per round: svc-mcp p50 ${figure('httpP50', one.p50, ms)}, minimal HTTP forwarding server p50 ${figure('httpP50Floor', one.p50Floor, ms)}: ${ratioFigure('httpP50Ratio', one.ratio, { most: 1.15 })}`,
  );

  const clients = { 'svc-mcp': await connectClients(http['svc-mcp'].url, CLIENTS, sandbox.keys.admin), minimal: await connectClients(http.minimal.url, CLIENTS, sandbox.keys.admin) };
  for (const kind of KINDS) await loadRound(clients[kind], CALL, 3000, http[kind]);
  const rounds: Record<Kind, LoadRound[]> = { 'svc-mcp': [], minimal: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 ? [...KINDS].reverse() : KINDS) {
      rounds[kind].push(await loadRound(clients[kind], CALL, LOAD_MS, http[kind]));
      sandbox.clearRequests();
    }
  }
  for (const kind of KINDS) await Promise.all(clients[kind].map((client) => client.close()));
  const perSecond = (round: LoadRound) => round.calls / round.seconds;
  const cpuPerCall = (round: LoadRound) => (1000 * round.cpuSeconds) / round.calls;
  const at = (round: LoadRound, p: number) => percentile(round.latencies, p);
  const per = (measure: (round: LoadRound) => number) => ({
    svc: rounds['svc-mcp'].map(measure),
    floor: rounds.minimal.map(measure),
    ratio: rounds['svc-mcp'].map((round, index) => measure(round) / measure(rounds.minimal[index])),
  });
  const rate = per(perSecond);
  const cpu = per(cpuPerCall);
  const p50 = per((round) => at(round, 50));
  const p99 = per((round) => at(round, 99));
  const errors = [...rounds['svc-mcp'], ...rounds.minimal].reduce((sum, round) => sum + round.errors, 0);
  say(
    `Streamable HTTP, ${CLIENTS} clients at once (each an SDK Client on its own session, calling in a loop; ${LOAD_MS / 1000} s per server per round, alternating; ${errors} errors):`,
    `  calls per second: svc-mcp ${figure('loadRate', rate.svc, (value) => value.toFixed(0))}, floor ${figure('loadRateFloor', rate.floor, (value) => value.toFixed(0))}: ${ratioFigure('loadRateRatio', rate.ratio, { least: 0.95 })}`,
    `  CPU per call (server process, /proc user+system): svc-mcp ${figure('loadCpu', cpu.svc, ms)}, floor ${figure('loadCpuFloor', cpu.floor, ms)}: ${ratioFigure('loadCpuRatio', cpu.ratio, { most: 1.15 })}`,
    `  p50: svc-mcp ${figure('loadP50', p50.svc, ms)}, floor ${figure('loadP50Floor', p50.floor, ms)}: ${figure('loadP50Ratio', p50.ratio, times)}`,
    `  p99: svc-mcp ${figure('loadP99', p99.svc, ms)}, floor ${figure('loadP99Floor', p99.floor, ms)}: ${ratioFigure('loadP99Ratio', p99.ratio, { most: 1.2 })}`,
    `  (the clients and the sandbox share the bench process: on ${os.cpus().length} CPUs the three processes compete, so calls per second reflect all of them, CPU per call the server alone)`,
  );
  for (const kind of KINDS) await http[kind].stop();
}

// ---- 4. context cost and views ---------------------------------------------------------------

if (wanted('context')) {
  say(...contextCostReport());
  for (const { name, bytes } of await viewSizes()) {
    say(`view ${name}: ${(bytes / 1024).toFixed(0)} KB (limit ${MAX_VIEW_BYTES / 1024} KB: ${verdict(bytes <= MAX_VIEW_BYTES)})`);
  }
}

// ---- 5. 429s and throughput against a strict sliding-window limit upstream --------------------

if (wanted('strict')) {
  const rejected: number[] = [];
  const shares: number[] = [];
  const burst = STRICT.limit * 4;
  for (let round = 0; round < ROUNDS; round++) {
    // Also forgets earlier arrivals: each round starts with a full budget, as does its fresh server.
    sandbox.setRateLimit(STRICT.limit, STRICT.windowMs);
    const strict = await startStdio('svc-mcp', { env: { SVC_RATE_LIMIT: `${STRICT.limit}/${STRICT.windowMs}ms` } });
    await strict.client.listTools();
    sandbox.clearRequests();
    await Promise.all(Array.from({ length: burst }, () => strict.client.callTool({ name: 'list_agents', arguments: {} })));
    const upstream = sandbox.requests
      .filter((request) => request.path.startsWith('/v2'))
      .map((request) => request.at)
      .sort((a, b) => a - b);
    rejected.push(sandbox.requests.filter((request) => request.status === 429).length);
    // Past the first burst (which the budget allows at once), starts per second against the budget's rate.
    const sustained = (upstream.length - STRICT.limit) / ((upstream.at(-1)! - upstream[0]) / 1000);
    shares.push((100 * sustained) / (STRICT.limit / (STRICT.windowMs / 1000)));
    await strict.close();
  }
  sandbox.setRateLimit(1_000_000, 60_000);
  say(
    `strict limit ${STRICT.limit} per ${STRICT.windowMs / 1000} s upstream, ${burst} concurrent list_agents calls per round: upstream 429s ${figure('strict429', rejected, String)} (target 0: ${verdict(Math.max(...rejected) === 0)}); sustained starts ${figure('strictThroughput', shares, (value) => `${value.toFixed(1)} %`)} of the budget's rate (target >= 90 %: ${verdict(median(shares) >= 90)})`,
  );
}
await sandbox.close();

// ---- 6. conversation_stats at scale ----------------------------------------------------------

/**
 * The fewest requests conversation_stats can make over [since, until], computed from the sandbox's
 * own data: one agent listing, then for each agent and each slice of at most 90 days (the fewest
 * that cover the window, of equal length) ceil(conversations / 100) pages, an empty slice costing one.
 */
function requestFloor(scaled: Sandbox, since: number, until: number): number {
  const workspace = scaled.state.workspaces.get(scaled.seed.workspaceA)!;
  const slices = Math.ceil((until - since + 1) / (SLICE_MS + 1));
  const width = (until - since + 1) / slices;
  const counts = new Map<string, number[]>([...workspace.bots.keys()].map((botId) => [botId, Array.from({ length: slices }, () => 0)]));
  for (const conversation of workspace.conversations.values()) {
    if (conversation.createdAt < since || conversation.createdAt > until) continue;
    const perSlice = counts.get(conversation.botId);
    if (perSlice) perSlice[Math.min(slices - 1, Math.floor((conversation.createdAt - since) / width))]++;
  }
  let requests = 1;
  for (const perSlice of counts.values()) for (const count of perSlice) requests += Math.max(1, Math.ceil(count / 100));
  return requests;
}

if (wanted('scale')) {
  interface ScaleRow {
    ratio: number[];
    perConversation: number[];
    peak: number[];
    requests: number[];
    floor: number;
  }
  const scale: Record<number, ScaleRow> = {};
  for (const conversations of [10_000, 100_000]) {
    const scaled = await startSandbox({ conversations, rateLimit: 'off' });
    const row: ScaleRow = (scale[conversations] = { ratio: [], perConversation: [], peak: [], requests: [], floor: 0 });
    for (let round = 0; round < ROUNDS; round++) {
      // The scan as it reads the API (the mirror, which keeps what it reads, has its own section below).
      const server = await startStdio('svc-mcp', { upstream: scaled, env: { SVC_MIRROR: 'off' } });
      scaled.clearRequests();
      const started = performance.now();
      const result = (await server.client.callTool({ name: 'conversation_stats', arguments: { since: '365d' } }, undefined, { timeout: 600_000, resetTimeoutOnProgress: true })) as CallToolResult;
      const elapsed = performance.now() - started;
      row.peak.push(memoryOf(server.pid).peak);
      await server.close();
      const data = result.structuredContent as { since: string; until: string; count: number };
      if (result.isError || !data) throw new Error(`conversation_stats failed at ${conversations}: ${JSON.stringify(result.content)}`);
      const requests = scaled.requests.filter((request) => request.path === '/v2/bots/public' || request.path === '/v2/hc-interactions/public').length;
      row.floor = requestFloor(scaled, Date.parse(data.since), Date.parse(data.until));
      row.requests.push(requests);
      row.ratio.push(requests / row.floor);
      row.perConversation.push((1000 * elapsed) / data.count);
    }
    await scaled.close();
  }
  const [small, large] = [scale[10_000], scale[100_000]];
  const us = (value: number) => `${value.toFixed(1)} us`;
  const timeRatio = large.perConversation.map((value, index) => value / small.perConversation[index]);
  const growth = large.peak.map((value, index) => value - small.peak[index]);
  say(
    'conversation_stats over 365 days (svc-mcp over stdio, its rate limit lifted; the sandbox generates the conversations, throttle off; a fresh process per round):',
    ...[10_000, 100_000].map(
      (n) =>
        `  ${n.toLocaleString('en')} conversations: requests ${figure(`scaleRequests${n}`, scale[n].requests, String)} against a floor of ${scale[n].floor}: ${ratioFigure(`scaleRequestRatio${n}`, scale[n].ratio, { most: 1.1 })}; time per conversation ${figure(`scalePerConversation${n}`, scale[n].perConversation, us)}; peak RSS (VmHWM) ${figure(`scalePeakRss${n}`, scale[n].peak, mb)}`,
    ),
    `  time per conversation at 100,000 against 10,000: ${ratioFigure('scaleTimeRatio', timeRatio, { most: 1.3 })}; peak RSS growth from 10,000 to 100,000 ${figure('scalePeakGrowth', growth, mb)} (target <= 60 MB: ${verdict(median(growth) <= 60)})`,
  );
}

// ---- 7. the workspace mirror at 100,000 conversations ------------------------------------------

if (wanted('mirror')) {
  const MIRROR_N = 100_000;
  const QUESTIONS = 40;
  const scaled = await startSandbox({ conversations: MIRROR_N, rateLimit: 'off' });
  const pages = () => scaled.requests.filter((request) => request.path === '/v2/bots/public' || request.path === '/v2/hc-interactions/public').length;
  const row = {
    ratio: [] as number[],
    growth: [] as number[],
    growthBothRss: [] as number[],
    peak: [] as number[],
    drift: [] as number[],
    stats: [] as number[],
    query: [] as number[],
    beyond: [] as number[],
    syncSeconds: [] as number[],
  };
  const sql = `SELECT a.name, strftime(c."createdAt", '%Y-%m') AS month, count(*) AS answers, count(*) FILTER (WHERE e.approved = false) AS "thumbsDown"
    FROM conversations c JOIN events e ON e."interactionId" = c.id JOIN agents a ON a.id = c."botId" WHERE e.role = 'svcbot' GROUP BY ALL ORDER BY 1, 2`;
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startStdio('svc-mcp', { upstream: scaled, probe: true, env: { SVC_MIRROR: 'memory' } });
    await server.client.listTools();
    const idle = (await server.memory()).rss;
    scaled.clearRequests();
    const started = performance.now();
    const sync = (await server.client.callTool({ name: 'sync_workspace', arguments: {} }, undefined, { timeout: 900_000, resetTimeoutOnProgress: true })) as CallToolResult;
    row.syncSeconds.push((performance.now() - started) / 1000);
    if (sync.isError) throw new Error(`sync_workspace failed: ${JSON.stringify(sync.content)}`);
    const until = Date.now();
    row.ratio.push(pages() / requestFloor(scaled, until - 365 * DAY_MS, until));
    // The workspace's database lives in a child of the server (its mirror host): both count, the
    // pages they share (the Node binary) once.
    const atPeak = childrenMemory(server.pid);
    row.peak.push(memoryOf(server.pid).peak + atPeak.peak - atPeak.shared - idle);
    // What holding the mirror costs, once the engine's allocator has given back what the sync freed (it does so within seconds).
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const serverHeld = (await server.memory()).rss;
    const hosts = childrenMemory(server.pid);
    row.growth.push(serverHeld + hosts.rss - hosts.shared - idle);
    row.growthBothRss.push(serverHeld + hosts.rss - idle);
    scaled.clearRequests();
    const statsTimes: number[] = [];
    const queryTimes: number[] = [];
    const resident: number[] = [];
    for (let question = 0; question < QUESTIONS; question++) {
      let at = performance.now();
      const stats = (await server.client.callTool({ name: 'conversation_stats', arguments: { since: '365d', groupBy: ['agent', 'month'] } })) as CallToolResult;
      statsTimes.push(performance.now() - at);
      at = performance.now();
      const query = (await server.client.callTool({ name: 'query_workspace', arguments: { sql } })) as CallToolResult;
      queryTimes.push(performance.now() - at);
      if (stats.isError || query.isError) throw new Error(`a question failed: ${JSON.stringify([stats.content, query.content])}`);
      const questionHosts = childrenMemory(server.pid);
      resident.push((await server.memory()).rss + questionHosts.rss - questionHosts.shared);
    }
    // Single readings swing by 10-20 MB as the engine's allocator keeps and returns memory: the trend is the last ten's median against the second ten's.
    row.drift.push(median(resident.slice(-10)) - median(resident.slice(10, 20)));
    row.beyond.push(scaled.requests.filter((request) => request.path.startsWith('/v2')).length);
    row.stats.push(median(statsTimes));
    row.query.push(median(queryTimes));
    await server.close();
  }
  await scaled.close();
  say(
    `the workspace mirror at ${MIRROR_N.toLocaleString('en')} conversations (svc-mcp over stdio, budget lifted, a fresh process per round; memory is the server's and its mirror host's together, the pages they share counted once):`,
    `  first sync of 365 days: conversation requests against the floor ${ratioFigure('mirrorSyncRatio', row.ratio, { most: 1.05 })}, in ${figure('mirrorSyncSeconds', row.syncSeconds, (value) => `${value.toFixed(1)} s`)}; RSS growth held (5 s after) ${figure('mirrorRssGrowth', row.growth, mb)} (target <= 200 MB: ${verdict(median(row.growth) <= 200)}; the two RSS summed, shared pages twice: ${figure('mirrorRssGrowthBothRss', row.growthBothRss, mb)}), peak during the sync ${figure('mirrorRssPeak', row.peak, mb)} above idle`,
    `  then ${QUESTIONS} rounds of questions: conversation_stats by agent and month p50 ${figure('mirrorStatsP50', row.stats, ms)} (target < 300 ms: ${verdict(median(row.stats) < 300)}), query_workspace GROUP BY p50 ${figure('mirrorQueryP50', row.query, ms)} (target < 300 ms: ${verdict(median(row.query) < 300)}); upstream requests ${figure('mirrorRequestsAfter', row.beyond, String)} (target 0: ${verdict(Math.max(...row.beyond) === 0)}); RSS trend over the questions (median of the last 10 less that of questions 11-20) ${figure('mirrorRssDrift', row.drift, mb)} (flat: target < 2 MB: ${verdict(median(row.drift) < 2)})`,
  );
}

rmSync(work, { recursive: true, force: true });
say('', loadLine(), figuresLine());
