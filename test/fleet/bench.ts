/**
 * `npm run bench:fleet`: one node against three, both behind HAProxy on one Redis (stateless, the
 * shared budget on, logging at the default level), with the sandbox's limit raised so that only
 * the nodes bound it. Three rounds, alternating which fleet goes first; each figure is the median
 * of the rounds with their spread. Prints calls per second and the nodes' CPU per call (from
 * /proc, summed over the node processes), and the ratios 3 nodes / 1 node. Needs haproxy and
 * redis-server. Nothing here fails on timing.
 */
import os from 'node:os';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cpuSecondsOf } from '../bench/http-load.js';
import { machineLine, spread } from '../bench/report.js';
import { connectThroughProxy, startFleet, type ProxyClient } from './fleet.js';

const CLIENTS = 12;
const ROUNDS = 3;
const WARMUP_MS = 3000;
const MEASURE_MS = 8000;
const UNBOUNDED = { SVC_RATE_LIMIT: '1000000/1s' };

interface Measure {
  perSecond: number;
  cpuPerCall: number;
  errors: number;
}

/** Calls list_agents from every client in a loop; returns the calls completed within the window. */
async function drive(clients: ProxyClient[], durationMs: number): Promise<{ calls: number; errors: number }> {
  const until = Date.now() + durationMs;
  let calls = 0;
  let errors = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < until) {
        const ok = await client.call('list_agents').then(
          (result) => !result.isError,
          () => false,
        );
        if (Date.now() > until) break;
        if (ok) calls++;
        else errors++;
      }
    }),
  );
  return { calls, errors };
}

async function measure(sandbox: Sandbox, nodes: number): Promise<Measure> {
  const fleet = await startFleet(sandbox, { nodes, env: UNBOUNDED });
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connectThroughProxy(fleet.proxy.url, sandbox.keys.admin)));
  const cpu = () => fleet.nodes.reduce((sum, node) => sum + cpuSecondsOf(node.child.pid!), 0);
  try {
    await drive(clients, WARMUP_MS);
    const before = cpu();
    const { calls, errors } = await drive(clients, MEASURE_MS);
    return { perSecond: calls / (MEASURE_MS / 1000), cpuPerCall: (1000 * (cpu() - before)) / calls, errors };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await fleet.stop();
    sandbox.clearRequests();
  }
}

const spreadOf = (values: number[], digits: number) => spread(values, (value) => value.toFixed(digits));

const cpus = os.cpus().length;
const sandbox = await startSandbox({ rateLimit: { limit: 1_000_000, windowMs: 1000 } });
try {
  console.log(`fleet bench; ${machineLine()}; ${CLIENTS} clients and the sandbox share this process; nodes log at the default level (info)`);
  if (cpus < 3 + 2) {
    console.log(
      `What this run cannot show: on ${cpus} CPU(s), three nodes, HAProxy, Redis, the sandbox and the clients all share the same cores, so three nodes cannot serve more calls per second than one; the ratio below measures what spreading the work costs (the shared budget in Redis, the proxy), not how a fleet scales. Scaling shows only with at least one core per node plus one for the rest (5 here).`,
    );
  }
  const runs: Record<1 | 3, Measure[]> = { 1: [], 3: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const nodes of round % 2 ? ([3, 1] as const) : ([1, 3] as const)) runs[nodes].push(await measure(sandbox, nodes));
  }
  for (const nodes of [1, 3] as const) {
    const errors = runs[nodes].reduce((sum, run) => sum + run.errors, 0);
    console.log(
      `${nodes} node${nodes > 1 ? 's' : ''}: ${spreadOf(
        runs[nodes].map((run) => run.perSecond),
        1,
      )} calls/s; nodes' CPU ${spreadOf(
        runs[nodes].map((run) => run.cpuPerCall),
        2,
      )} ms per call; ${errors} errors (${MEASURE_MS / 1000} s per round)`,
    );
  }
  const ratios = (pick: (run: Measure) => number) => runs[3].map((run, index) => pick(run) / pick(runs[1][index]));
  console.log(
    `3 nodes / 1 node: calls per second ${spreadOf(
      ratios((run) => run.perSecond),
      2,
    )}x, CPU per call ${spreadOf(
      ratios((run) => run.cpuPerCall),
      2,
    )}x`,
  );
} finally {
  await sandbox.close();
}
