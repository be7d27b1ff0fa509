/**
 * `npx tsx test/bench/profile-http.ts [seconds] [clients]`: where svc-mcp's CPU goes under many
 * HTTP clients, beside the floor's. Both servers are bundled unminified with the bin's esbuild
 * settings and run with `--cpu-prof` while `clients` SDK clients (default 50) call
 * list_conversations {limit: 20} in a loop on their own sessions, one server at a time, for
 * `seconds` each (default 20). Prints, for each, calls per second, CPU per call, and self time by
 * module (bundle paths come from the source map's module comments) and by function, as shares of
 * the profile and as microseconds per call. Logging at the default level (info) unless
 * SVC_LOG_LEVEL is set.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { buildCli } from '../release/build.js';
import { connectClients, loadRound } from './http-load.js';
import { BENCH_CALL, bundleFloor, startHttpServer } from './servers.js';

const seconds = Number(process.argv[2] ?? 20);
const clientCount = Number(process.argv[3] ?? 50);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Lines of an unminified esbuild bundle that start a module: `// node_modules/undici/lib/...` or `// src/engine/render/text.ts`. */
function moduleStarts(file: string): Array<{ line: number; name: string }> {
  const starts: Array<{ line: number; name: string }> = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const match = /^\/\/ (\S+\.(?:[cm]?js|ts|json))$/.exec(text);
      if (match) starts.push({ line, name: match[1].replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, '$1') });
    });
  return starts;
}

function moduleAt(starts: Array<{ line: number; name: string }>, line: number): string {
  let low = 0;
  let high = starts.length - 1;
  let found = '(bundle header)';
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle].line <= line) {
      found = starts[middle].name;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

function summarise(label: string, profile: Profile, calls: number): void {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const startsByFile = new Map<string, Array<{ line: number; name: string }>>();
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    let module = url ? 'node:internal' : functionName;
    if (url.startsWith('file://')) {
      const file = new URL(url).pathname;
      if (!startsByFile.has(file)) startsByFile.set(file, moduleStarts(file));
      module = moduleAt(startsByFile.get(file)!, lineNumber);
    } else if (url.startsWith('node:')) module = url;
    byModule.set(module, (byModule.get(module) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${module}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / calls).toFixed(1).padStart(7)} us/call  ${name}`);
  console.log(`\n${label}: ${(total / 1e6).toFixed(2)} s on CPU in the profile (idle ${(idle / 1e6).toFixed(2)} s) over ${calls} calls, ${(total / calls).toFixed(0)} us per call`);
  console.log('by module:');
  console.log(top(byModule, 25).join('\n'));
  console.log('by function:');
  console.log(top(byFunction, 40).join('\n'));
}

const work = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-profile-'));
const { entry } = await buildCli(path.join(work, 'svc'), { minify: false });
const floor = await bundleFloor(path.join(work, 'floor'), false);
const sandbox = await startSandbox({ rateLimit: 'off' });
const servers = [
  { label: 'svc-mcp', kind: 'svc-mcp', script: entry, env: { SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'info' } },
  { label: 'floor', kind: 'minimal', script: floor, env: {} },
] as const;
for (const { label, kind, script, env } of servers) {
  const profileDir = path.join(work, `profile-${label}`);
  const running = await startHttpServer(kind, script, sandbox, clientCount, { env, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
  const clients = await connectClients(running.url, clientCount, sandbox.keys.admin);
  const warmUp = await loadRound(clients, BENCH_CALL, 3000, running);
  const round = await loadRound(clients, BENCH_CALL, seconds * 1000, running);
  await Promise.all(clients.map((client) => client.close()));
  await running.stop();
  sandbox.clearRequests();
  console.log(
    `${label}: ${(round.calls / round.seconds).toFixed(0)} calls/s, ${((1e6 * round.cpuSeconds) / round.calls).toFixed(0)} us CPU per call (from /proc), p50 ${round.latencies[Math.floor(round.calls / 2)].toFixed(1)} ms, ${round.errors} errors`,
  );
  const [file] = readdirSync(profileDir);
  const profile = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as Profile;
  // The profile covers the whole process, start and warm-up included: per call is over every call in it.
  summarise(label, profile, warmUp.calls + round.calls);
}
await sandbox.close();
if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
