/**
 * Many clients at once over Streamable HTTP, for the bench: each a real SDK `Client` on its own
 * stateful session, calling one tool in a loop. A round measures calls completed, each call's
 * latency, and the server process's CPU time from /proc (user + system clock ticks).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolRequest } from '@modelcontextprotocol/sdk/types.js';
import { freePort, waitForHealth } from '../support/network.js';
import { childrenOf, memoryOf } from '../support/processes.js';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ): 100 on every Linux that Node runs on. */
const TICKS_PER_SECOND = 100;

export interface HttpServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** CPU seconds the process has used so far (user + system). */
  cpuSeconds(): number;
  /** Peak resident set so far (VmHWM) and now (VmRSS), in MB. */
  memory(): { peak: number; now: number };
  stop(): Promise<void>;
}

export function cpuSecondsOf(pid: number): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Memory in MB of a process's children (a server's mirror hosts) together: `rss` and `peak` (VmHWM,
 * peaks summed: an upper bound of their peak at once) as each reports them, and `shared`, the pages
 * each shares with other processes (the Node binary, mapped by the server too), which a sum of RSS
 * counts twice. What a host adds to the machine is its RSS less `shared`.
 */
export function childrenMemory(pid: number): { peak: number; rss: number; shared: number } {
  const sharedOf = (child: number) => Number(/^Shared_Clean:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
  return childrenOf(pid).reduce(
    (sum, child) => {
      const memory = memoryOf(child);
      return { peak: sum.peak + memory.peak, rss: sum.rss + memory.now, shared: sum.shared + sharedOf(child) };
    },
    { peak: 0, rss: 0, shared: 0 },
  );
}

/** Starts `node [nodeArgs] script [args]` with `env`, on a free port given by `args(port)`, and waits for /healthz. */
export async function startHttpProcess(script: string, args: (port: number) => string[], env: Record<string, string>, nodeArgs: string[] = []): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script, ...args(port)], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, 20_000, () => exited);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid!,
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    memory: () => memoryOf(child.pid!),
    stop: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

export interface LoadRound {
  calls: number;
  errors: number;
  seconds: number;
  cpuSeconds: number;
  /** Latency of each call completed in the round, ms, sorted. */
  latencies: number[];
}

/** `count` clients, each on its own session of the server at `url`. */
export async function connectClients(url: string, count: number, bearer: string): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const client = new Client({ name: `bench-${index}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
      return client;
    }),
  );
}

/** Every client calls `call` in a loop for `ms`; the server's CPU is read before and after. */
export async function loadRound(clients: Client[], call: CallToolRequest['params'], ms: number, server: Pick<HttpServerProcess, 'cpuSeconds'>): Promise<LoadRound> {
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        const callStarted = performance.now();
        const result = await client.callTool(call).catch(() => undefined);
        if (!result || result.isError) errors++;
        else latencies.push(performance.now() - callStarted);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = server.cpuSeconds() - cpuBefore;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, errors, seconds, cpuSeconds, latencies };
}
