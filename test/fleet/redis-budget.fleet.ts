import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { apiRequests, connectProcess, sandboxEnv, waitFor, type Connection } from '../support/harness.js';
import { startHttpServerProcess, type HttpServerProcess } from '../support/http-harness.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';
import { useSandbox } from '../support/fixture.js';

const sandbox = useSandbox();
let redis: RedisServer | undefined;
let connections: Connection[] = [];
let httpServer: HttpServerProcess | undefined;

afterEach(async () => {
  await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  connections = [];
  await httpServer?.stop();
  httpServer = undefined;
  await redis?.stop();
  redis = undefined;
});

// Spawned processes, since sharing across processes is the subject. Half-second windows keep it
// quick; the limiter's margin (200 ms + 1 %) is the same at any window length.
describe.runIf(runRedisTests())('one rate budget across processes through Redis', () => {
  it('three processes on one key share 10 per 500 ms: no 429, 30 calls in about two windows', async () => {
    redis = await startRedis();
    sandbox.setRateLimit(10, 500);
    const env = sandboxEnv(sandbox, sandbox.keys.admin, { SVC_REDIS_URL: redis.url, SVC_RATE_LIMIT: '10/500ms' });
    connections = await Promise.all([connectProcess({ env }), connectProcess({ env }), connectProcess({ env })]);
    // Let the upstream window left by startup (nothing was sent) be empty for certain.
    sandbox.clearRequests();
    const started = Date.now();
    const results = await Promise.all(connections.flatMap((connection) => Array.from({ length: 10 }, () => connection.call('list_agents'))));
    const elapsed = Date.now() - started;
    const upstream = apiRequests(sandbox);
    expect(upstream.filter((entry) => entry.status === 429)).toHaveLength(0);
    expect(results.filter((result) => result.isError)).toHaveLength(0);
    expect(upstream).toHaveLength(30);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    // Three batches, two holds (705 ms) apart; the rest is room for a busy machine.
    expect(elapsed).toBeLessThan(6000);
    // No more than 10 starts in any 500 ms window, as the upstream saw them.
    const times = upstream.map((entry) => entry.at).sort((a, b) => a - b);
    for (let index = 10; index < times.length; index++) expect(times[index] - times[index - 10]).toBeGreaterThanOrEqual(500);
    for (const connection of connections) expect(connection.stderr()).not.toContain(redis.url.replace('redis://', ''));
  }, 30_000);

  it('when Redis goes away, keeps serving through a local limiter at budget / processes last seen', async () => {
    redis = await startRedis();
    sandbox.setRateLimit(10, 500);
    const env = sandboxEnv(sandbox, sandbox.keys.admin, { SVC_REDIS_URL: redis.url, SVC_RATE_LIMIT: '10/500ms' });
    // Two processes: an HTTP one (for the health report) then a stdio one, which sees both in Redis.
    httpServer = await startHttpServerProcess({ env });
    const health = async () => (await (await request(`${httpServer!.base}/healthz`)).body.json()) as Record<string, unknown>;
    expect(await health()).toMatchObject({ ok: true, redis: 'ok' });
    const stdio = await connectProcess({ env });
    connections = [stdio];

    await redis.stop();
    await waitFor(() => stdio.stderr().includes('Redis unreachable'), 'the stdio process to notice Redis is gone');
    expect(stdio.stderr()).toContain('1/2 of the budget');
    expect(await health()).toMatchObject({ ok: true, redis: 'unreachable' });

    sandbox.clearRequests();
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 10 }, () => stdio.call('list_agents')));
    const elapsed = Date.now() - started;
    expect(results.filter((result) => result.isError)).toHaveLength(0);
    const upstream = apiRequests(sandbox);
    expect(upstream.filter((entry) => entry.status === 429)).toHaveLength(0);
    // 5 slots per window locally: the second five wait for the first window to pass.
    expect(elapsed).toBeGreaterThanOrEqual(500);
    expect(elapsed).toBeLessThan(3000);
    const times = upstream.map((entry) => entry.at).sort((a, b) => a - b);
    expect(times[5] - times[4]).toBeGreaterThanOrEqual(475);
  }, 30_000);
});
