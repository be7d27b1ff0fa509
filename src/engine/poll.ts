import { sleep } from '../sleep.js';
import type { ToolContext } from './define.js';

export interface PollOptions<T> {
  /** Fetches the current state of everything still pending; called once per round. */
  fetch: () => Promise<T>;
  /** True when the job is over. */
  done: (state: T) => boolean;
  /** One line for the progress notification of this round. */
  describe: (state: T) => { progress: number; total?: number; message: string };
  timeoutSeconds: number;
  /** First pause between rounds; it grows by half each round up to `maxIntervalMs`. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

export type PollOutcome<T> = { status: 'done'; state: T; rounds: number } | { status: 'timeout' | 'cancelled'; state: T | undefined; rounds: number };

/**
 * Polls until done, a timeout or cancellation. Every fetch goes through the shared limiter, and
 * the pause grows so that a long wait spends little of the budget. Never throws on cancel or
 * timeout: the caller reports what is still pending.
 */
export async function pollUntil<T>(context: ToolContext, options: PollOptions<T>): Promise<PollOutcome<T>> {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const maxInterval = options.maxIntervalMs ?? 10_000;
  let interval = options.intervalMs ?? 1000;
  let state: T | undefined;
  let rounds = 0;
  let lastProgress = -1;
  while (true) {
    if (context.signal.aborted) return { status: 'cancelled', state, rounds };
    try {
      state = await options.fetch();
    } catch (error) {
      if (context.signal.aborted) return { status: 'cancelled', state, rounds };
      throw error;
    }
    rounds++;
    const update = options.describe(state);
    lastProgress = increasing(update.progress, lastProgress, update.total);
    await context.progress({ ...update, progress: lastProgress });
    if (options.done(state)) return { status: 'done', state, rounds };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { status: 'timeout', state, rounds };
    const cancelled = await sleep(Math.min(interval, remaining), context.signal).then(
      () => false,
      () => true,
    );
    if (cancelled) return { status: 'cancelled', state, rounds };
    interval = Math.min(maxInterval, Math.round(interval * 1.5));
  }
}

/**
 * MCP requires progress to increase with every notification; a round that finished nothing new
 * moves halfway to the next whole step instead of repeating the last value.
 */
function increasing(progress: number, last: number, total: number | undefined): number {
  if (progress > last) return progress;
  const ceiling = Math.min(Math.floor(last) + 1, total ?? Number.POSITIVE_INFINITY);
  return last + (ceiling - last) / 2;
}
