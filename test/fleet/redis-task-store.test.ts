import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MAX_TASK_TTL_MS, RedisTaskStore } from '../../src/fleet/redis-task-store.js';
import { RedisStateStore } from '../../src/fleet/redis-state.js';
import { runRedisTests, startRedis, type RedisServer } from '../support/redis.js';

const REQUEST = { method: 'tools/call', params: { name: 'wait_for_sources' } };
const RESULT = { content: [{ type: 'text', text: 'done' }] };

describe.runIf(runRedisTests())('tasks and state shared through Redis', () => {
  let redis: RedisServer;
  let connections: Redis[];
  /** Two nodes: each its own connection and store, as two processes would have. */
  let nodeA: RedisTaskStore;
  let nodeB: RedisTaskStore;

  beforeAll(async () => {
    redis = await startRedis();
    connections = [new Redis(redis.url), new Redis(redis.url), new Redis(redis.url)];
    nodeA = new RedisTaskStore(connections[0], 30_000);
    nodeB = new RedisTaskStore(connections[1], 30_000);
  });

  afterAll(async () => {
    nodeA?.close();
    nodeB?.close();
    for (const connection of connections ?? []) connection.disconnect();
    await redis?.stop();
  });

  it('a task created on one node is read, finished and its result fetched on another', async () => {
    const task = await nodeA.createTask({ ttl: 60_000, pollInterval: 500 }, 1, REQUEST, 'key1');
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 500 });
    expect(await nodeB.getTask(task.taskId, 'key1')).toEqual(task);

    await nodeA.storeTaskResult(task.taskId, 'completed', RESULT, 'key1');
    expect(await nodeB.getTask(task.taskId, 'key1')).toMatchObject({ status: 'completed' });
    expect(await nodeB.getTaskResult(task.taskId, 'key1')).toEqual(RESULT);
    await expect(nodeB.storeTaskResult(task.taskId, 'failed', RESULT, 'key1')).rejects.toThrow(/terminal status 'completed'/);
    // The record lives for its TTL from the end.
    const pttl = await connections[2].pttl(`svc-mcp:task:${task.taskId}`);
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it('a cancellation made on one node is what the running node reads next, and a late result is refused', async () => {
    const task = await nodeA.createTask({ ttl: 60_000 }, 1, REQUEST, 'key1');
    await nodeB.updateTaskStatus(task.taskId, 'cancelled', 'Client cancelled task execution.', 'key1');
    expect(await nodeA.getTask(task.taskId, 'key1')).toMatchObject({ status: 'cancelled', statusMessage: 'Client cancelled task execution.' });
    await expect(nodeA.storeTaskResult(task.taskId, 'completed', RESULT, 'key1')).rejects.toThrow(/terminal status 'cancelled'/);
  });

  it('a task belongs to the owner that created it', async () => {
    const task = await nodeA.createTask({ ttl: 60_000 }, 1, REQUEST, 'key1');
    expect(await nodeB.getTask(task.taskId, 'key2')).toBeNull();
    await expect(nodeB.getTaskResult(task.taskId, 'key2')).rejects.toThrow(/not found/);
    await expect(nodeB.updateTaskStatus(task.taskId, 'cancelled', undefined, 'key2')).rejects.toThrow(/not found/);
    expect(await nodeB.getTask('no-such-task', 'key1')).toBeNull();
  });

  it("lists an owner's tasks page by page", async () => {
    const ids = [];
    for (let index = 0; index < 23; index++) ids.push((await nodeA.createTask({ ttl: 60_000 }, index, REQUEST, 'lister')).taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await nodeB.listTasks(cursor, 'lister');
      seen.push(...page.tasks.map((task) => task.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(ids.sort());
    await expect(nodeB.listTasks('unknown-cursor', 'lister')).rejects.toThrow(/Invalid cursor/);
  });

  it('a task whose node stopped heartbeating is read as failed, with a message and an error result', async () => {
    const dying = new RedisTaskStore(connections[2], 30_000);
    const task = await dying.createTask({ ttl: 60_000 }, 1, REQUEST, 'key1');
    dying.close();
    // What the heartbeat's expiry does when the node is gone, without waiting for it.
    await connections[2].del(`svc-mcp:task:${task.taskId}:alive`);
    const read = await nodeB.getTask(task.taskId, 'key1');
    expect(read).toMatchObject({ status: 'failed' });
    expect(read!.statusMessage).toMatch(/server node running this task stopped \(no heartbeat for 30 s\).*Start the call again/);
    expect(await nodeB.getTaskResult(task.taskId, 'key1')).toMatchObject({ isError: true, content: [{ type: 'text', text: read!.statusMessage }] });
  });

  it('caps the lifetime a client asks for, unlimited included', async () => {
    const task = await nodeA.createTask({ ttl: null }, 1, REQUEST, 'key1');
    expect(task.ttl).toBe(MAX_TASK_TTL_MS);
    expect(await connections[2].pttl(`svc-mcp:task:${task.taskId}`)).toBeGreaterThan(MAX_TASK_TTL_MS - 10_000);
  });

  it('a confirmation token is spent once across nodes, stored by digest', async () => {
    const now = Date.now();
    const first = new RedisStateStore(connections[0]);
    const second = new RedisStateStore(connections[1]);
    expect(await first.claim('spent', 'mac-one', now + 60_000)).toBe(true);
    expect(await second.claim('spent', 'mac-one', now + 60_000)).toBe(false);
    expect(await second.claim('spent', 'mac-two', now + 60_000)).toBe(true);
    const keys = await connections[2].keys('svc-mcp:spent:*');
    expect(keys).toHaveLength(2);
    expect(keys.join(' ')).not.toContain('mac-one');
    expect(await connections[2].pttl(keys[0])).toBeGreaterThan(50_000);
  });
});
