import { afterEach, describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { waitFor } from '../support/harness.js';
import { connectHttp, type HttpConnection } from '../support/http-harness.js';
import { useSandbox } from '../support/fixture.js';
import { queueSource, resultText, startWaitTask } from './support.js';

let clock = Date.now();
const sandbox = useSandbox({ now: () => clock, jobTimings: { pendingMs: 10_000, inProgressMs: 10_000 } });
let handle: HttpServerHandle | undefined;
let connection: HttpConnection | undefined;

afterEach(async () => {
  await connection?.close().catch(() => undefined);
  connection = undefined;
  await handle?.shutdown('test over');
  handle = undefined;
});

async function startNode(drainMs: number, extra: string[] = []): Promise<HttpServerHandle> {
  const config = loadConfig(['--transport', 'http', '--http-port', '0', '--base-url', sandbox.url, '--api-key', sandbox.keys.admin, '--drain-ms', String(drainMs), ...extra]);
  return startHttpServer(await createRuntime(config, createLogger('silent')));
}

/**
 * Until the client's request for the task's result is in at the server. The drain serves what is in
 * flight; a request still on its way when the task ends may find the connections closing (read
 * ECONNRESET), which is what a client awaiting the result sees of a drain, not what these tests test.
 */
const awaitingOnServer = (node: HttpServerHandle) => waitFor(() => node.callsInFlight() === 1, 'the request for the result to reach the server');

const readiness = async (base: string) => (await fetch(`${base}/readyz`)).status;

describe('drain on SIGTERM', () => {
  it('reports not-ready, refuses new sessions, serves the open one, and hands a task that outlives the bound back as failed', async () => {
    handle = await startNode(1500);
    const base = handle.url.replace(/\/mcp$/, '');
    expect(await readiness(base)).toBe(200);
    connection = await connectHttp(handle.url);
    const taskId = await startWaitTask(connection.client, await queueSource(sandbox));
    const awaited = connection.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await awaitingOnServer(handle);

    const started = Date.now();
    const stopped = handle.shutdown('SIGTERM');
    expect(await readiness(base)).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await expect(connectHttp(handle.url)).rejects.toThrow(/503|shutting down/);
    // The open session is still served while the drain lasts.
    expect((await connection.client.experimental.tasks.getTask(taskId)).status).toBe('working');

    const result = await awaited;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/stopped before the task finished \(SVC_DRAIN_MS ran out\)\. Start the call again/);
    await stopped;
    // With a 1500 ms bound, tasks still running are handed back at half of it, 750 ms in.
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(750);
    expect(elapsed).toBeLessThan(4000);
    handle = undefined;
  }, 15_000);

  it('lets a task that ends within the bound finish with its own result', async () => {
    handle = await startNode(10_000);
    connection = await connectHttp(handle.url);
    const taskId = await startWaitTask(connection.client, await queueSource(sandbox));
    const awaited = connection.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await awaitingOnServer(handle);
    const stopped = handle.shutdown('SIGTERM');
    clock += 30_000;
    const result = await awaited;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('COMPLETED');
    await stopped;
    handle = undefined;
  }, 15_000);
});
