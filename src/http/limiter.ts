import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { Logger } from '../log.js';
import type { RateLimit } from '../config.js';

/**
 * A sliding-window budget: each request holds one of `limit` slots from the moment it starts
 * until `windowMs + margin` later, so no window of that length can ever see more than `limit`
 * starts, while a burst uses every free slot at once. Bottleneck's fixed-interval reservoir is
 * not used because it can let 2N through across a refresh boundary.
 */
export class SlidingWindowLimiter {
  private readonly bottleneck: Bottleneck;
  private readonly holdMs: number;
  private pausedUntil = 0;

  constructor(
    readonly budget: RateLimit,
    bottleneckOptions: Bottleneck.ConstructorOptions = {},
  ) {
    this.holdMs = budget.windowMs + marginFor(budget.windowMs);
    this.bottleneck = new Bottleneck({ maxConcurrent: budget.limit, ...bottleneckOptions });
  }

  /** Resolves when a request may start; the slot stays held for the window whatever the request does. */
  acquire(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.bottleneck
        .schedule(async () => {
          // A caller that gave up while queued sent nothing, so its slot is released at once.
          if (signal?.aborted) return;
          await waitUntil(() => this.pausedUntil, signal);
          if (signal?.aborted) return;
          signal?.removeEventListener('abort', onAbort);
          resolve();
          await sleep(this.holdMs);
        })
        .catch((error: unknown) => reject(error));
    });
  }

  /** After a 429 (another client of the key spent the budget) every request of this key waits. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  async stop(): Promise<void> {
    await this.bottleneck.stop({ dropWaitingJobs: true });
    await this.bottleneck.disconnect().catch(() => undefined);
  }
}

/** Room for network delay between our start and the upstream's arrival clock. */
function marginFor(windowMs: number): number {
  return Math.round(200 + windowMs * 0.01);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

async function waitUntil(deadline: () => number, signal?: AbortSignal): Promise<void> {
  for (let wait = deadline() - Date.now(); wait > 0 && !signal?.aborted; wait = deadline() - Date.now()) {
    await sleep(Math.min(wait, 250));
  }
}

export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

export interface LimiterRegistryOptions {
  budget: RateLimit;
  redisUrl?: string;
  logger: Logger;
}

/** One limiter per API key (by hash, never the key itself), created on first use. */
export class LimiterRegistry {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  constructor(private readonly options: LimiterRegistryOptions) {}

  forKey(apiKey: string): SlidingWindowLimiter {
    const id = hashKey(apiKey);
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(this.options.budget, this.bottleneckOptions(id));
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private bottleneckOptions(id: string): Bottleneck.ConstructorOptions {
    if (!this.options.redisUrl) return {};
    return {
      id: `svc-mcp:${id}`,
      datastore: 'ioredis',
      clearDatastore: false,
      clientOptions: this.options.redisUrl,
    };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.limiters.values()].map((limiter) => limiter.stop()));
    this.limiters.clear();
  }
}
