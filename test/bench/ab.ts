/**
 * `npm run bench:ab -- before=<dir> after=<dir> [stdio] [http]`: two or more svc-mcp bundles side by
 * side, with the floor, to judge one change. `npm run bench` says where svc-mcp stands; this says
 * whether a change moved it, which a sampling profile cannot (it misattributes short,
 * allocation-heavy functions). Each `name=<dir>` is a folder holding a built `svc-mcp.js`, such as
 * a copy of `dist/` made before the change:
 *
 *     git stash && npm run build && cp -r dist /tmp/before && git stash pop && npm run build
 *     npm run bench:ab -- before=/tmp/before after=dist
 *
 * - stdio: list_conversations {limit: 20}, CALLS per server per round, in turn on every server in
 *   blocks of BLOCK calls: 1, call by call, puts every server in the same conditions but each call
 *   meets caches the others have used; 600 is the bench's own way, where the servers' conditions
 *   may drift between blocks, so it needs more rounds;
 * - http: 50 SDK clients per server calling in a loop, one server at a time, MS per round.
 * Every figure is per round and as the median of ROUNDS rounds, with the ratio to the floor taken
 * within each round. Environment: ROUNDS (3), CALLS (1500), BLOCK (1), MS (5000).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { ENTRY_NAME } from '../release/build.js';
import { connectClients, cpuSecondsOf, loadRound } from './http-load.js';
import { loadLine, machineLine, median } from './report.js';
import { BENCH_CALL as CALL, bundleFloor, startHttpServer, stdioEnv, type ServerKind } from './servers.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CALLS = Number(process.env.CALLS ?? 1500);
const BLOCK = Math.max(1, Number(process.env.BLOCK ?? 1));
const LOAD_MS = Number(process.env.MS ?? 5000);
const CLIENTS = 50;

const args = process.argv.slice(2);
const sections = new Set(args.filter((arg) => !arg.includes('=')));
const wanted = (section: string) => sections.size === 0 || sections.has(section);
const bundles = args
  .filter((arg) => arg.includes('='))
  .map((arg) => {
    const [name, dir] = [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)];
    const entry = path.resolve(dir, ENTRY_NAME);
    if (!existsSync(entry)) throw new Error(`${name}: no ${ENTRY_NAME} in ${dir} (build it, then copy dist/ there)`);
    return { name, kind: 'svc-mcp' as ServerKind, entry };
  });
if (bundles.length === 0) throw new Error('usage: npm run bench:ab -- before=<dir> after=<dir> [stdio] [http]');

const floor = { name: 'floor', kind: 'minimal' as ServerKind, entry: await bundleFloor(mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-ab-'))) };
const sandbox = await startSandbox({ rateLimit: 'off' });
const servers = [floor, ...bundles];
console.log(machineLine());

const ratios = (values: number[], base: number[]) => values.map((value, round) => value / base[round]);
const rounds = (values: number[]) => `[${values.map((value) => value.toFixed(2)).join(' ')}]`;

/** One line per server: each figure's median, and its ratio to the floor as a median with the rounds. */
function report(figures: Record<string, Record<string, number[]>>, format: Record<string, (value: number) => string>): void {
  for (const { name } of servers) {
    const cells = Object.entries(format).map(([figure, show]) => {
      const values = figures[name][figure];
      const toFloor = ratios(values, figures.floor[figure]);
      return `${figure} ${show(median(values))} (${median(toFloor).toFixed(3)}x ${rounds(toFloor)})`;
    });
    console.log(`  ${name.padEnd(10)} ${cells.join('  ')}`);
  }
}

if (wanted('stdio')) {
  const started = [];
  for (const { name, kind, entry } of servers) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [entry], env: { PATH: process.env.PATH ?? '', ...stdioEnv(kind, sandbox) }, stderr: 'ignore' });
    const client = new Client({ name: 'ab', version: '1.0.0' });
    await client.connect(transport);
    started.push({ name, client, pid: transport.pid! });
  }
  for (const { client } of started) for (let call = 0; call < 200; call++) await client.callTool(CALL);
  const figures: Record<string, Record<string, number[]>> = Object.fromEntries(started.map(({ name }) => [name, { p50: [], cpu: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const latencies = new Map(started.map(({ name }) => [name, [] as number[]]));
    const cpuBefore = new Map(started.map(({ name, pid }) => [name, cpuSecondsOf(pid)]));
    for (let block = 0; block * BLOCK < CALLS; block++) {
      for (const { name, client } of block % 2 ? [...started].reverse() : started) {
        for (let call = block * BLOCK; call < Math.min(CALLS, (block + 1) * BLOCK); call++) {
          const callStarted = performance.now();
          await client.callTool(CALL);
          latencies.get(name)!.push(performance.now() - callStarted);
        }
      }
    }
    for (const { name, pid } of started) {
      figures[name].p50.push(median(latencies.get(name)!));
      figures[name].cpu.push(((cpuSecondsOf(pid) - cpuBefore.get(name)!) / CALLS) * 1e6);
    }
  }
  console.log(`stdio, ${CALLS} calls per server per round in blocks of ${BLOCK}, ${ROUNDS} rounds:`);
  report(figures, { p50: (value) => `${value.toFixed(3)} ms`, cpu: (value) => `${value.toFixed(0)} us` });
  for (const { client } of started) await client.close();
}

if (wanted('http')) {
  const started = [];
  for (const { name, kind, entry } of servers) {
    const server = await startHttpServer(kind, entry, sandbox, CLIENTS);
    started.push({ name, server, clients: await connectClients(server.url, CLIENTS, sandbox.keys.admin) });
  }
  for (const { server, clients } of started) await loadRound(clients, CALL, 2000, server);
  const figures: Record<string, Record<string, number[]>> = Object.fromEntries(started.map(({ name }) => [name, { rate: [], cpu: [], p99: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, server, clients } of round % 2 ? [...started].reverse() : started) {
      const load = await loadRound(clients, CALL, LOAD_MS, server);
      sandbox.clearRequests();
      figures[name].rate.push(load.calls / load.seconds);
      figures[name].cpu.push((load.cpuSeconds / load.calls) * 1e6);
      figures[name].p99.push(load.latencies[Math.floor(0.99 * load.latencies.length)]);
    }
  }
  console.log(`Streamable HTTP, ${CLIENTS} clients per server, ${LOAD_MS} ms per server per round, ${ROUNDS} rounds:`);
  report(figures, { rate: (value) => `${value.toFixed(0)}/s`, cpu: (value) => `${value.toFixed(0)} us`, p99: (value) => `${value.toFixed(1)} ms` });
  for (const { server, clients } of started) {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  }
}

await sandbox.close();
console.log(loadLine());
