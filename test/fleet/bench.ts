/**
 * `npm run bench:fleet`: throughput of one node against three, both behind HAProxy on one Redis
 * (stateless, the shared budget on), with the sandbox's limit raised so that only the nodes
 * bound it. Prints calls per second for each and the ratio. Needs haproxy and redis-server.
 */
import os from 'node:os';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { connectThroughProxy, startFleet, type ProxyClient } from './fleet.js';

const CLIENTS = 12;
const WARMUP_MS = 3000;
const MEASURE_MS = 10_000;
const UNBOUNDED = { SVC_RATE_LIMIT: '1000000/1s', SVC_LOG_LEVEL: 'warn' };

/** Calls list_agents from every client in a loop; returns the calls completed within the window. */
async function drive(clients: ProxyClient[], durationMs: number): Promise<{ calls: number; errors: number }> {
  const until = Date.now() + durationMs;
  let calls = 0;
  let errors = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < until) {
        const ok = await client.call('list_agents').then((result) => !result.isError, () => false);
        if (Date.now() > until) break;
        if (ok) calls++;
        else errors++;
      }
    }),
  );
  return { calls, errors };
}

async function measure(sandbox: Sandbox, nodes: number): Promise<number> {
  const fleet = await startFleet(sandbox, { nodes, env: UNBOUNDED });
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connectThroughProxy(fleet.proxy.url, sandbox.keys.admin)));
  try {
    await drive(clients, WARMUP_MS);
    const { calls, errors } = await drive(clients, MEASURE_MS);
    const perSecond = calls / (MEASURE_MS / 1000);
    process.stdout.write(`${nodes} node${nodes > 1 ? 's' : ''}: ${perSecond.toFixed(1)} calls/s (${calls} calls, ${errors} errors, ${CLIENTS} clients, ${MEASURE_MS / 1000} s)\n`);
    return perSecond;
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await fleet.stop();
  }
}

const sandbox = await startSandbox({ rateLimit: { limit: 1_000_000, windowMs: 1000 } });
try {
  process.stdout.write(`fleet bench on ${os.cpus().length} CPU(s), load average ${os.loadavg()[0].toFixed(1)}; sandbox and clients share this process\n`);
  const one = await measure(sandbox, 1);
  const three = await measure(sandbox, 3);
  process.stdout.write(`3 nodes / 1 node: ${(three / one).toFixed(2)}x\n`);
} finally {
  await sandbox.close();
}
