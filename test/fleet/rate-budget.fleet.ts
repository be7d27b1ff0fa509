import { describe, expect, it } from 'vitest';
import { apiRequests, connectProcess, sandboxEnv } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';

/**
 * The rate budget against a strict upstream on real time, in a process of its own. It runs in the
 * CI-only suite, alone, because its margin (200 ms + 1 %) is what absorbs delays, and a machine
 * busy with other test files can delay the sandbox's clock by more than that. The limiter's
 * window rules are covered on a virtual clock in test/unit/limiter.test.ts.
 */
const sandbox = useSandbox();

describe('rate budget', () => {
  // A process of its own, as in use: in this process the sandbox shares an event loop with the
  // server, so a busy loop would delay requests after they were admitted by more than the margin.
  // A short window keeps the test quick; the limiter's margin (200 ms + 1 %) is the same at any length.
  it('makes 30 concurrent reads against 10 per any 500 ms window with zero 429s, a window apart', async () => {
    sandbox.setRateLimit(10, 500);
    const client = await connectProcess({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_RATE_LIMIT: '10/500ms' }) });
    try {
      await client.client.listTools();
      sandbox.clearRequests();
      const started = Date.now();
      const calls = await Promise.all(Array.from({ length: 30 }, () => client.call('list_agents')));
      const elapsed = Date.now() - started;
      expect(calls.every((result) => !result.isError)).toBe(true);
      const requests = apiRequests(sandbox);
      expect(requests.filter((request) => request.status === 429)).toHaveLength(0);
      expect(requests).toHaveLength(30);
      // Bursts go at once: three batches of ten, each one hold (500 + 200 + 5 ms) after the last.
      const times = requests.map((request) => request.at).sort((a, b) => a - b);
      for (let index = 10; index < times.length; index++) expect(times[index] - times[index - 10]).toBeGreaterThanOrEqual(500);
      expect(elapsed).toBeGreaterThanOrEqual(2 * 705);
      expect(elapsed).toBeLessThan(4000);
    } finally {
      sandbox.setRateLimit(100, 60_000);
      await client.close();
    }
  }, 30_000);
});
