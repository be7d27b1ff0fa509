import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { textError } from '../engine/errors.js';

const TASK_PREFIX = 'svc-mcp:task:';
const LIST_PREFIX = 'svc-mcp:tasks:';
/** A task's record never outlives this, whatever TTL the client asks for (null included). */
export const MAX_TASK_TTL_MS = 24 * 3_600_000;
const PAGE_SIZE = 10;

/**
 * Reads a task; a task still working whose node stopped heartbeating is turned into a failed one
 * on the spot, in the same atomic step, so no reader ever sees it "working" forever.
 * KEYS: record, heartbeat. ARGV: owner ('' = any), now, lapse message, lapse result.
 */
const GET_SCRIPT = `
local f = redis.call('HMGET', KEYS[1], 'owner', 'status', 'ttl')
if not f[2] then return false end
if ARGV[1] ~= '' and f[1] ~= '' and f[1] ~= ARGV[1] then return false end
if (f[2] == 'working' or f[2] == 'input_required') and redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'message', ARGV[3], 'updated', ARGV[2], 'result', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], f[3])
end
return redis.call('HMGET', KEYS[1], 'status', 'message', 'ttl', 'created', 'updated', 'poll')`;

/**
 * Moves a task to a new status (and stores its result), refusing to leave a terminal status.
 * A terminal task stops needing a heartbeat and lives for its TTL from now.
 * KEYS: record, heartbeat. ARGV: owner, status, message ('' = keep), now, result ('' = none).
 */
const UPDATE_SCRIPT = `
local f = redis.call('HMGET', KEYS[1], 'owner', 'status', 'ttl')
if not f[2] or (ARGV[1] ~= '' and f[1] ~= '' and f[1] ~= ARGV[1]) then return 'missing' end
if f[2] == 'completed' or f[2] == 'failed' or f[2] == 'cancelled' then return f[2] end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'message', ARGV[3]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[5]) end
if ARGV[2] == 'completed' or ARGV[2] == 'failed' or ARGV[2] == 'cancelled' then
  redis.call('DEL', KEYS[2])
  redis.call('PEXPIRE', KEYS[1], f[3])
end
return 'ok'`;

const TERMINAL = new Set<string>(['completed', 'failed', 'cancelled']);
/** The ids this store generates; anything else is not found (and never becomes part of a key). */
const TASK_ID = /^[0-9a-f]{32}$/;

/**
 * MCP tasks shared by every node on one Redis: a task started through one node can be read,
 * awaited and cancelled through any other. The node that created a task keeps a heartbeat key
 * alive for it (every third of `heartbeatTtlMs`) until the task ends; when the node dies the key
 * lapses and the next read records the task as failed with a message saying so.
 *
 * Ownership follows the SDK's in-memory store: a task created with a sessionId is not found by
 * another sessionId. Tasks are listed per sessionId.
 */
export class RedisTaskStore implements TaskStore {
  /** Tasks this node runs and heartbeats, until they end. */
  private readonly running = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;
  /** What a task whose node stopped heartbeating ends with: its status message and its result. */
  private readonly lapse: { message: string; resultJson: string };

  constructor(
    private readonly redis: Redis,
    private readonly heartbeatTtlMs: number,
  ) {
    const message = `The server node running this task stopped (no heartbeat for ${Math.round(heartbeatTtlMs / 1000)} s), so it ended unfinished. Start the call again.`;
    this.lapse = { message, resultJson: JSON.stringify(textError(message)) };
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(heartbeatTtlMs / 3)));
    this.heartbeat.unref();
  }

  async createTask(taskParams: CreateTaskOptions, _requestId: unknown, _request: unknown, sessionId?: string): Promise<Task> {
    const taskId = randomBytes(16).toString('hex');
    const ttl = Math.min(taskParams.ttl ?? MAX_TASK_TTL_MS, MAX_TASK_TTL_MS);
    const now = new Date();
    const createdAt = now.toISOString();
    const pollInterval = taskParams.pollInterval ?? 1000;
    const list = listKey(sessionId);
    await this.redis
      .multi()
      .hset(recordKey(taskId), { owner: sessionId ?? '', status: 'working', ttl, created: createdAt, updated: createdAt, poll: pollInterval })
      .pexpire(recordKey(taskId), ttl)
      .set(aliveKey(taskId), '1', 'PX', this.heartbeatTtlMs)
      .zadd(list, now.getTime(), taskId)
      .zremrangebyscore(list, '-inf', now.getTime() - MAX_TASK_TTL_MS)
      .pexpire(list, MAX_TASK_TTL_MS)
      .exec();
    this.running.add(taskId);
    return { taskId, status: 'working', ttl, createdAt, lastUpdatedAt: createdAt, pollInterval };
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    if (!TASK_ID.test(taskId)) return null;
    const fields = (await this.redis.eval(GET_SCRIPT, 2, recordKey(taskId), aliveKey(taskId), sessionId ?? '', new Date().toISOString(), this.lapse.message, this.lapse.resultJson)) as
      | (string | null)[]
      | null;
    if (!fields) return null;
    const [status, message, ttl, createdAt, lastUpdatedAt, poll] = fields;
    if (TERMINAL.has(status!)) this.running.delete(taskId);
    return {
      taskId,
      status: status as Task['status'],
      ttl: Number(ttl),
      createdAt: createdAt!,
      lastUpdatedAt: lastUpdatedAt!,
      pollInterval: Number(poll),
      ...(message ? { statusMessage: message } : {}),
    };
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    await this.update(taskId, status, '', JSON.stringify(result), sessionId, 'store result for');
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const [owner, result] = TASK_ID.test(taskId) ? await this.redis.hmget(recordKey(taskId), 'owner', 'result') : [null, null];
    if (owner === null || (sessionId !== undefined && owner !== '' && owner !== sessionId)) throw new Error(`Task with ID ${taskId} not found`);
    if (result === null) throw new Error(`Task ${taskId} has no result stored`);
    return JSON.parse(result) as Result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await this.update(taskId, status, statusMessage ?? '', '', sessionId, 'update');
  }

  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const list = listKey(sessionId);
    let start = 0;
    if (cursor) {
      const rank = await this.redis.zrank(list, cursor);
      if (rank === null) throw new Error(`Invalid cursor: ${cursor}`);
      start = rank + 1;
    }
    const ids = await this.redis.zrange(list, start, start + PAGE_SIZE - 1);
    const found = await Promise.all(ids.map((id) => this.getTask(id, sessionId)));
    const gone = ids.filter((_, index) => !found[index]);
    if (gone.length) await this.redis.zrem(list, ...gone);
    const more = (await this.redis.zcard(list)) > start + ids.length - gone.length;
    return { tasks: found.filter((task): task is Task => task !== null), nextCursor: more && ids.length ? ids[ids.length - 1] : undefined };
  }

  /** Stops heartbeating: the tasks this node still runs lapse unless another store instance ends them. */
  close(): void {
    clearInterval(this.heartbeat);
  }

  private async update(taskId: string, status: Task['status'], message: string, result: string, sessionId: string | undefined, verb: string): Promise<void> {
    if (!TASK_ID.test(taskId)) throw new Error(`Task with ID ${taskId} not found`);
    let outcome: string;
    try {
      outcome = String(await this.redis.eval(UPDATE_SCRIPT, 2, recordKey(taskId), aliveKey(taskId), sessionId ?? '', status, message, new Date().toISOString(), result));
    } finally {
      // Even when the final write fails, the heartbeat stops: the task then lapses to failed rather than stay working.
      if (TERMINAL.has(status)) this.running.delete(taskId);
    }
    if (outcome !== 'ok') this.running.delete(taskId);
    if (outcome === 'missing') throw new Error(`Task with ID ${taskId} not found`);
    if (outcome !== 'ok') throw new Error(`Cannot ${verb} task ${taskId} in terminal status '${outcome}'`);
  }

  private async beat(): Promise<void> {
    if (this.running.size === 0) return;
    const ids = [...this.running];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.pexpire(aliveKey(id), this.heartbeatTtlMs);
    const answers = await pipeline.exec().catch(() => null);
    // A missing heartbeat key means the task ended (or lapsed while Redis was away): stop beating it.
    answers?.forEach(([error, extended], index) => {
      if (!error && extended === 0) this.running.delete(ids[index]);
    });
  }
}

function recordKey(taskId: string): string {
  return `${TASK_PREFIX}${taskId}`;
}

function aliveKey(taskId: string): string {
  return `${TASK_PREFIX}${taskId}:alive`;
}

function listKey(sessionId: string | undefined): string {
  return `${LIST_PREFIX}${sessionId ?? ''}`;
}
