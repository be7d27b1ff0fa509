/**
 * The rate budget shared through Redis (SVC_REDIS_URL), with Bottleneck clustering. Loaded only
 * when Redis is configured, so a start without it never loads ioredis or Bottleneck.
 */
import { randomUUID } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import type { RateLimit } from '../config.js';
import { holdFor, SlidingWindowLimiter, type KeyLimiter, type Priority, type SharedBudgets } from '../upstream/limiter.js';
import { connectRedis } from './redis.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });
}

async function waitUntil(deadline: () => number, signal?: AbortSignal): Promise<void> {
  for (let wait = deadline() - Date.now(); wait > 0 && !signal?.aborted; wait = deadline() - Date.now()) {
    await sleep(Math.min(wait, 250));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, sleep(ms).then(() => undefined)]);
}

const PEER_TTL_MS = 6000;
/** Longest a shared slot waits on a 429 pause before its request starts anyway (backoff is at most 8 s). */
const PAUSE_CAP_MS = 10_000;
const HEARTBEAT_MS = 2000;

/** Registers this process in the peer set (Redis clock) and returns how many processes are alive. */
const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])`;

/** Extends a key's shared 429 pause, never shortens it (TTL based, so no clock is compared across hosts). */
const PAUSE_SCRIPT = `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1`;

/**
 * The rate budgets' own Redis connection (a client plus Bottleneck's subscriber), the peer count
 * used to size the fallback budget, and the shared 429 pause.
 */
class RedisShared {
  readonly client: Redis;
  readonly connection: Bottleneck.IORedisConnection;
  readonly instanceId = randomUUID();
  up = false;
  /** Live processes sharing this Redis, as last seen; the fallback budget is the budget divided by it. */
  peers = 1;
  private readonly lostListeners = new Set<() => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private stopped = false;
  private readonly logError: (error: Error) => void;

  constructor(
    url: string,
    private readonly logger: Logger,
  ) {
    ({ client: this.client, logError: this.logError } = connectRedis(url, logger, 'rate budget', () => this.stopped));
    this.client.on('ready', () => {
      if (!this.up) logger.info('Redis reachable: the rate budget is shared across processes');
      this.up = true;
      void this.beat();
    });
    this.client.on('close', () => {
      if (this.up && !this.stopped) {
        logger.warn({ peers: this.peers }, `Redis unreachable: falling back to a local limiter at 1/${this.peers} of the budget until it returns`);
      }
      this.up = false;
      for (const listener of [...this.lostListeners]) listener();
    });
    this.connection = new Bottleneck.IORedisConnection({ client: this.client, Redis });
    this.connection.on('error', (error: Error) => this.logError(error));
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Waits (bounded) for the first connection attempt so that startup knows its peers. */
  async start(timeoutMs = 3000): Promise<void> {
    if (this.up) return;
    await withTimeout(
      new Promise<void>((resolve) => {
        this.client.once('ready', () => resolve());
        this.client.once('close', () => resolve());
      }),
      timeoutMs,
    );
    if (this.up) await this.beat();
    else this.logger.warn('Redis unreachable at startup: using a local limiter with the full budget until it connects');
  }

  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  async beat(): Promise<void> {
    if (!this.up) return;
    try {
      const count = Number(await this.client.eval(HEARTBEAT_SCRIPT, 1, 'svc-mcp:peers', this.instanceId, PEER_TTL_MS));
      if (count >= 1) this.peers = count;
    } catch (error) {
      this.logError(error as Error);
    }
  }

  async ping(timeoutMs = 1000): Promise<boolean> {
    if (!this.up) return false;
    const answer = await withTimeout(
      this.client.ping().catch(() => undefined),
      timeoutMs,
    );
    return answer === 'PONG';
  }

  async pauseRemaining(id: string): Promise<number> {
    if (!this.up) return 0;
    const ttl = await withTimeout(
      this.client.pttl(`${id}:pause`).catch(() => 0),
      500,
    );
    return typeof ttl === 'number' && ttl > 0 ? ttl : 0;
  }

  setPause(id: string, ms: number): void {
    if (!this.up) return;
    this.client.eval(PAUSE_SCRIPT, 1, `${id}:pause`, Math.max(1, Math.round(ms))).catch((error: Error) => this.logError(error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    if (this.up)
      await withTimeout(
        this.client.zrem('svc-mcp:peers', this.instanceId).catch(() => undefined),
        500,
      );
    // QUIT is answered after the unsubscribes that removing the limiters queued. Bottleneck drops
    // those promises, so a hard disconnect under them rejected with no handler (seen in CI under
    // load); it remains the fallback when Redis does not answer. Either way the connection closes
    // both the client it was given and its subscriber.
    const quit = await withTimeout(
      this.connection.disconnect(true).then(
        () => true,
        () => false,
      ),
      1000,
    );
    if (!quit) await this.connection.disconnect(false).catch(() => undefined);
  }
}

/**
 * A key's budget shared by every process on the same Redis: the same sliding-window slots, held
 * through Bottleneck clustering (`maxConcurrent` counted in Redis), under one id derived from the
 * key hash. While Redis is unreachable, requests go through a local limiter holding
 * budget / (processes last seen) slots, so the fleet as a whole stays inside the budget; when Redis
 * returns, this process goes back to the shared slots once its local slots have expired.
 */
class SharedSlidingWindowLimiter implements KeyLimiter {
  private readonly cluster: Bottleneck;
  private readonly holdMs: number;
  private clusterReady = false;
  private readonly ready: Promise<void>;
  private fallback?: SlidingWindowLimiter;
  private pausedUntil = 0;
  /** Acquires not yet answered, and when the last shared slot handed out is released. */
  private pending = 0;
  private sharedBusyUntil = 0;

  constructor(
    readonly budget: RateLimit,
    readonly id: string,
    private readonly shared: RedisShared,
  ) {
    this.holdMs = holdFor(budget);
    this.cluster = new Bottleneck({
      id,
      maxConcurrent: budget.limit,
      datastore: 'ioredis',
      connection: shared.connection,
      clearDatastore: false,
      // Idle state leaves Redis on its own.
      timeout: Math.max(30 * 60_000, 2 * this.holdMs),
    });
    this.cluster.on('error', () => undefined);
    this.ready = this.cluster
      .ready()
      // The newest process's budget wins, so a changed SVC_RATE_LIMIT is not masked by stored settings.
      .then(() => this.cluster.updateSettings({ maxConcurrent: budget.limit }))
      .then(() => {
        this.clusterReady = true;
      })
      .catch(() => undefined);
  }

  async acquire(signal?: AbortSignal, priority: Priority = 'user'): Promise<void> {
    this.pending++;
    try {
      // Just created (first call of a key): wait briefly for the shared state rather than bypass it.
      if (this.shared.up && !this.clusterReady) await withTimeout(this.ready, 2000);
      if (this.shared.up && this.clusterReady && !(this.fallback && this.fallback.busyUntil > Date.now())) {
        if ((await this.acquireShared(signal, priority)) === 'ok') return;
      }
      await this.local().acquire(signal, priority);
    } finally {
      this.pending--;
    }
  }

  idle(): boolean {
    const now = Date.now();
    return this.pending === 0 && this.sharedBusyUntil <= now && this.pausedUntil <= now && (this.fallback?.idle() ?? true);
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.fallback?.pause(ms);
    this.shared.setPause(this.id, ms);
  }

  private local(): SlidingWindowLimiter {
    const limit = Math.max(1, Math.floor(this.budget.limit / Math.max(1, this.shared.peers)));
    if (!this.fallback || (this.fallback.budget.limit !== limit && this.fallback.busyUntil <= Date.now())) {
      const previous = this.fallback;
      this.fallback = new SlidingWindowLimiter({ limit, windowMs: this.budget.windowMs });
      void previous?.stop();
    }
    const pausedFor = this.pausedUntil - Date.now();
    if (pausedFor > 0) this.fallback.pause(pausedFor);
    return this.fallback;
  }

  /** 'lost' when Redis failed or went away before a slot was granted: the caller falls back. */
  private acquireShared(signal: AbortSignal | undefined, priority: Priority): Promise<'ok' | 'lost'> {
    return new Promise<'ok' | 'lost'>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let settled = false;
      const settle = (action: () => void): boolean => {
        if (settled) return false;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        unsubscribe();
        action();
        return true;
      };
      const onAbort = () => settle(() => reject(signal?.reason));
      const unsubscribe = this.shared.onLost(() => settle(() => resolve('lost')));
      signal?.addEventListener('abort', onAbort, { once: true });
      // Redis frees the slot by itself after `expiration`, so a process that dies holding slots
      // gives them back; the job never runs longer (pause wait capped, then the hold).
      this.cluster
        // Bottleneck runs a node's queued jobs by priority (0 first): a person's call before a sync's page.
        .schedule({ expiration: this.holdMs + PAUSE_CAP_MS + 5000, priority: priority === 'user' ? 4 : 9 }, async () => {
          // Given up (cancelled, or fell back) while queued: nothing sent, the slot is freed at once.
          if (settled) return;
          const started = Date.now();
          const remote = await this.shared.pauseRemaining(this.id);
          if (remote > 0) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + remote);
          await waitUntil(() => Math.min(this.pausedUntil, started + PAUSE_CAP_MS), signal);
          if (!settle(() => resolve('ok'))) return;
          this.sharedBusyUntil = Date.now() + this.holdMs;
          await sleep(this.holdMs);
        })
        .catch(() => settle(() => resolve('lost')));
    });
  }

  async stop(): Promise<void> {
    // Held slots are not released early: Redis lets them expire, so a stopping process never lets
    // the rest of the fleet exceed the window.
    await withTimeout(
      this.cluster.stop({ dropWaitingJobs: true }).catch(() => undefined),
      1000,
    );
    // A Group on a shared connection answers disconnect() with undefined, not a promise.
    await withTimeout(
      Promise.resolve(this.cluster.disconnect()).catch(() => undefined),
      1000,
    );
    await this.fallback?.stop();
  }
}

/** The Redis side of a LimiterRegistry: one connection for every budget, one shared limiter per budget id. */
export class RedisBudgets implements SharedBudgets {
  private readonly shared: RedisShared;

  constructor(url: string, logger: Logger) {
    this.shared = new RedisShared(url, logger);
  }

  start(): Promise<void> {
    return this.shared.start();
  }

  limiter(budget: RateLimit, id: string): KeyLimiter {
    return new SharedSlidingWindowLimiter(budget, id, this.shared);
  }

  ping(): Promise<boolean> {
    return this.shared.ping();
  }

  stop(): Promise<void> {
    return this.shared.stop();
  }
}
