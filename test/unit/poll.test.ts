import { describe, expect, it } from 'vitest';
import type { ProgressUpdate, ToolContext } from '../../src/engine/define.js';
import { pollUntil } from '../../src/engine/poll.js';

function context(signal = new AbortController().signal) {
  const updates: ProgressUpdate[] = [];
  const value = { signal, progress: async (update: ProgressUpdate) => void updates.push(update) } as unknown as ToolContext;
  return { value, updates };
}

describe('pollUntil', () => {
  it('polls until done and reports strictly increasing progress even when nothing moved', async () => {
    const states = [0, 0, 0, 1, 1, 2];
    const { value, updates } = context();
    const outcome = await pollUntil(value, {
      fetch: async () => states.shift()!,
      done: (state) => state === 2,
      describe: (state) => ({ progress: state, total: 2, message: `${state} of 2` }),
      timeoutSeconds: 5,
      intervalMs: 1,
      maxIntervalMs: 2,
    });
    expect(outcome).toMatchObject({ status: 'done', state: 2, rounds: 6 });
    const values = updates.map((update) => update.progress);
    expect(values.at(-1)).toBe(2);
    for (let index = 1; index < values.length; index++) expect(values[index]).toBeGreaterThan(values[index - 1]);
    expect(values.every((progress) => progress <= 2)).toBe(true);
  });

  it('stops at the timeout and on cancellation, returning the last state', async () => {
    const timedOut = await pollUntil(context().value, { fetch: async () => 'busy', done: () => false, describe: () => ({ progress: 0, message: '' }), timeoutSeconds: 0.05, intervalMs: 10 });
    expect(timedOut).toMatchObject({ status: 'timeout', state: 'busy' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const cancelled = await pollUntil(context(controller.signal).value, {
      fetch: async () => 'busy',
      done: () => false,
      describe: () => ({ progress: 0, message: '' }),
      timeoutSeconds: 10,
      intervalMs: 1000,
    });
    expect(cancelled).toMatchObject({ status: 'cancelled', state: 'busy' });
  });
});
