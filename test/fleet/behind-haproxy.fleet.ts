import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { apiRequests, waitFor } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';
import { startFleet, connectThroughProxy, type Fleet, type ProxyClient } from './fleet.js';
import { queueSource, resultText, startWaitTask } from './support.js';

/**
 * `npm run test:fleet` (CI): three stateless nodes spawned as processes on one Redis, behind a
 * real HAProxy (round-robin), serving one sandbox. Everything goes through the proxy with real
 * SDK clients; the sandbox's request log is the witness of what reached the upstream.
 */

const BUDGET = { limit: 20, windowMs: 2000 };
/** How long a task lives without its node's heartbeat. */
const TASK_TTL_MS = 2000;

/** The sandbox's clock runs ahead by this much: ingestion jobs finish when a test moves it. */
let clockAhead = 0;
const sandbox = useSandbox({ now: () => Date.now() + clockAhead, jobTimings: { pendingMs: 60_000, inProgressMs: 60_000 } });
let fleet: Fleet;
const clients: ProxyClient[] = [];

async function client(): Promise<ProxyClient> {
  const connected = await connectThroughProxy(fleet.proxy.url, sandbox.keys.admin);
  clients.push(connected);
  return connected;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends harmless reads until the next request of this client goes to a node other than `node` (round-robin). */
async function stepPast(proxyClient: ProxyClient, node: string, taskId: string): Promise<void> {
  for (let attempt = 0; attempt < 6; attempt++) {
    await proxyClient.client.experimental.tasks.getTask(taskId);
    if (proxyClient.served.at(-1)!.node === node) return;
  }
  throw new Error(`round-robin never reached ${node}`);
}

/** Queues a job straight at the sandbox; its budget is lifted meanwhile, so this call never costs the nodes a 429. */
async function queueJob(): Promise<string> {
  sandbox.setRateLimit(10_000, 1000);
  try {
    return await queueSource(sandbox);
  } finally {
    sandbox.setRateLimit(BUDGET.limit, BUDGET.windowMs);
  }
}

const upstreamPolls = (sourceId: string) => apiRequests(sandbox).filter((entry) => entry.method === 'GET' && entry.path.includes(sourceId));

beforeAll(async () => {
  fleet = await startFleet(sandbox, {
    nodes: 3,
    env: {
      SVC_RATE_LIMIT: `${BUDGET.limit}/${BUDGET.windowMs / 1000}s`,
      SVC_CONFIRM: 'destructive',
      SVC_TASK_TTL_MS: String(TASK_TTL_MS),
      SVC_LOG_LEVEL: 'warn',
    },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((connected) => connected.close().catch(() => undefined)));
  await fleet?.stop();
});

describe('a fleet of three stateless nodes behind HAProxy', () => {
  it('60 concurrent reads share one budget of 20 per 2 s: no 429, done in about three windows', async () => {
    sandbox.setRateLimit(BUDGET.limit, BUDGET.windowMs);
    const readers = await Promise.all(Array.from({ length: 6 }, () => client()));
    sandbox.clearRequests();
    const started = Date.now();
    const results = await Promise.all(readers.flatMap((reader) => Array.from({ length: 10 }, () => reader.call('list_agents'))));
    const elapsed = Date.now() - started;

    expect(results.filter((result) => result.isError).map(resultText)).toEqual([]);
    const upstream = apiRequests(sandbox);
    expect(upstream.filter((entry) => entry.status === 429)).toHaveLength(0);
    expect(upstream).toHaveLength(60);
    // Every node served some of them: the budget held across processes, not inside one.
    const nodes = new Set(readers.flatMap((reader) => reader.served.filter((entry) => entry.method === 'tools/call').map((entry) => entry.node)));
    expect(nodes.size).toBe(3);
    // Three windows of 20 (each slot held 2 s plus a small margin): about 4.4 s, never less than two windows.
    expect(elapsed).toBeGreaterThanOrEqual(2 * BUDGET.windowMs);
    expect(elapsed).toBeLessThan(7000);
    const times = upstream.map((entry) => entry.at).sort((a, b) => a - b);
    for (let index = BUDGET.limit; index < times.length; index++) expect(times[index] - times[index - BUDGET.limit]).toBeGreaterThanOrEqual(BUDGET.windowMs);
  });

  it('a task started through one node is followed, completed and its result read through the others', async () => {
    const user = await client();
    const sourceId = await queueJob();
    const taskId = await startWaitTask(user.client, sourceId);
    const runner = user.served.at(-1)!.node;

    // Until the job ends, every node answers for the task.
    const seen = new Set<string>();
    while (seen.size < 3) {
      expect((await user.client.experimental.tasks.getTask(taskId)).status).toBe('working');
      seen.add(user.served.at(-1)!.node);
    }
    clockAhead += 200_000;
    const result = await user.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('COMPLETED');
    expect((await user.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    expect([...seen].filter((node) => node !== runner)).toHaveLength(2);
  });

  it('a cancellation through another node stops the work on the node that runs it', async () => {
    const user = await client();
    const sourceId = await queueJob();
    const taskId = await startWaitTask(user.client, sourceId);
    const runner = user.served.at(-1)!.node;
    await waitFor(() => upstreamPolls(sourceId).length > 0, 'the first poll of the task');

    await stepPast(user, runner, taskId);
    const cancelled = await user.client.experimental.tasks.cancelTask(taskId);
    const canceller = user.served.at(-1)!.node;
    expect(canceller).not.toBe(runner);
    expect(cancelled.status).toBe('cancelled');
    // On the sandbox's clock, which its request log uses.
    const cancelledAt = Date.now() + clockAhead;

    // Left alone, the runner would poll again within 2.25 s (1 s growing by half); it notices the cancellation within 250 ms instead.
    await sleep(3000);
    expect(upstreamPolls(sourceId).filter((entry) => entry.at > cancelledAt + 500)).toEqual([]);
    expect((await user.client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  });

  it('a confirmation token minted on one node sends once, through another', async () => {
    const user = await client();
    const created = await fetch(`${sandbox.url}/v2/hc-folders/public`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.keys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Fleet token test' }),
    });
    const folderId = ((await created.json()) as { id: string }).id;
    sandbox.clearRequests();

    const preview = await user.call('delete_folder', { folderId });
    const minter = user.served.at(-1)!.node;
    const token = (preview.structuredContent as { confirmToken?: string }).confirmToken;
    expect(token).toEqual(expect.any(String));
    const sent = await user.call('delete_folder', { folderId, confirm: token });
    expect(user.served.at(-1)!.node).not.toBe(minter);
    expect(sent.isError).toBeFalsy();
    const again = await user.call('delete_folder', { folderId, confirm: token });
    expect((again.structuredContent as { sent?: boolean }).sent).toBe(false);
    expect(apiRequests(sandbox).filter((entry) => entry.method === 'DELETE')).toHaveLength(1);
  });

  it('a node killed mid-load costs only the calls it held: reads retry on the survivors, no write is sent twice, its task ends failed', async () => {
    const user = await client();
    const workers = await Promise.all(Array.from({ length: 3 }, () => client()));
    const taskId = await startWaitTask(user.client, await queueJob());
    const victimName = user.served.at(-1)!.node;
    const victim = fleet.nodes[Number(victimName.replace('node', '')) - 1];
    sandbox.clearRequests();

    const retriedReads: number[] = [];
    const read = async (worker: ProxyClient): Promise<boolean> => {
      for (let attempt = 1; attempt <= 5; attempt++) {
        const outcome = await worker.call('list_agents').then(
          (result) => !result.isError,
          () => false,
        );
        if (outcome) {
          retriedReads.push(attempt - 1);
          return true;
        }
      }
      return false;
    };
    // Writes are never retried by the client: one attempt each, names unique.
    const write = (worker: ProxyClient, name: string) =>
      worker.call('create_folder', { name }).then(
        (result) => !result.isError,
        () => false,
      );
    const names = Array.from({ length: 9 }, (_, index) => `fleet-kill-${index}`);
    const load = Promise.all([...workers.flatMap((worker) => Array.from({ length: 10 }, () => read(worker))), ...names.map((name, index) => write(workers[index % workers.length], name))]);
    await waitFor(() => apiRequests(sandbox).length >= 10, 'the load to reach the upstream');
    victim.child.kill('SIGKILL');
    await victim.exited;
    const outcomes = await load;

    const readsOk = outcomes.slice(0, 30);
    const writesOk = outcomes.slice(30);
    expect(readsOk.every(Boolean)).toBe(true);
    // The kill did cost the calls the victim held: some reads needed another try, or some writes failed.
    expect(retriedReads.some((retries) => retries > 0) || writesOk.some((ok) => !ok)).toBe(true);
    const posted = apiRequests(sandbox).filter((entry) => entry.method === 'POST' && entry.path === '/v2/hc-folders/public');
    for (const [index, name] of names.entries()) {
      const sends = posted.filter((entry) => (entry.body as { name?: string }).name === name).length;
      expect(sends, name).toBeLessThanOrEqual(1);
      if (writesOk[index]) expect(sends, name).toBe(1);
    }
    expect(apiRequests(sandbox).filter((entry) => entry.status === 429)).toHaveLength(0);

    // The victim's task: nobody heartbeats it any more, so it ends failed and says why.
    const task = await waitFor(
      async () => {
        const current = await user.client.experimental.tasks.getTask(taskId);
        return current.status !== 'working' && current;
      },
      "the dead node's task to end",
      10_000,
    );
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(/server node running this task stopped/);
    const result = await user.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/Start the call again/);
  });
});
