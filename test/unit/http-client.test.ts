import { describe, expect, it } from 'vitest';
import { ApiClient, type RetryPolicy } from '../../src/upstream/client.js';
import { AuthenticationError, CancelledError, ConnectionError, NotAcceptableError, PermissionError, RateLimitError, TimeoutError, UpstreamServerError } from '../../src/upstream/errors.js';
import { LimiterRegistry } from '../../src/upstream/limiter.js';
import { createLogger } from '../../src/log.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';

const FAST_RETRY: RetryPolicy = { baseMs: 20, maxDelayMs: 80, maxRetries: 3, maxElapsedMs: 2000 };
const logger = createLogger('silent');
const sandbox = useSandbox();

/** The budget's window in these tests: a start holds its slot at least this long. */
const WINDOW_MS = 1000;

function clientFor(baseUrl: string, options: { timeoutMs?: number; limit?: number } = {}) {
  const limiters = new LimiterRegistry({ budget: { limit: options.limit ?? 1000, windowMs: WINDOW_MS } });
  return new ApiClient({ baseUrl, timeoutMs: options.timeoutMs ?? 2000, limiters, logger, retry: FAST_RETRY });
}

const agents = { method: 'GET' as const, path: '/v2/bots/public', read: true };
const feedback = { method: 'POST' as const, path: '/v2/hc-interactions/x/feedback/public', body: { eventId: 'e', approved: true }, read: false };

describe('ApiClient', () => {
  it('sends the key only as a bearer token and decodes JSON', async () => {
    const api = clientFor(sandbox.url).forKey(sandbox.keys.admin);
    const result = await api.request<unknown[]>(agents);
    expect(Array.isArray(result)).toBe(true);
    expect(sandbox.requests[0]).toMatchObject({ keyName: 'admin', headers: { authorization: 'Bearer <redacted:admin>' } });
  });

  it('retries reads on 429, 502, 503, 504 and dropped connections', async () => {
    const api = clientFor(sandbox.url).forKey(sandbox.keys.admin);
    for (const fault of [{ status: 502 }, { status: 503 }, { status: 504 }, { drop: true }]) {
      sandbox.clearRequests();
      sandbox.injectFaults([{ path: '/v2/bots/public', ...fault }]);
      await expect(api.request(agents)).resolves.toBeDefined();
      expect(sandbox.requests).toHaveLength(2);
    }
  });

  it('gives up on reads after the retry budget with a typed error', async () => {
    const api = clientFor(sandbox.url).forKey(sandbox.keys.admin);
    sandbox.injectFaults([{ path: '/v2/bots/public', status: 503, times: 10 }]);
    await expect(api.request(agents)).rejects.toBeInstanceOf(UpstreamServerError);
    expect(sandbox.requests).toHaveLength(FAST_RETRY.maxRetries + 1);
  });

  it('never sends a write twice once it may have reached the server', async () => {
    const api = clientFor(sandbox.url).forKey(sandbox.keys.admin);
    for (const fault of [{ status: 503 }, { status: 429 }, { drop: true }, { status: 500 }]) {
      sandbox.clearRequests();
      sandbox.injectFaults([{ path: '/v2/hc-interactions/x/feedback/public', ...fault }]);
      await expect(api.request(feedback)).rejects.toBeDefined();
      expect(sandbox.requests).toHaveLength(1);
    }
  });

  it('classifies a refused connection as never sent, the one case a write may be retried', async () => {
    const port = await freePort();
    const api = clientFor(`http://127.0.0.1:${port}`).forKey(sandbox.keys.admin);
    const error = await api.request(feedback).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).mayHaveReachedServer).toBe(false);
  });

  it('types 401, 403, 406 and 429 errors and quotes the upstream message as data', async () => {
    const client = clientFor(sandbox.url);
    await expect(client.forKey(sandbox.keys.revoked).request(agents)).rejects.toBeInstanceOf(AuthenticationError);
    const forbidden = await client
      .forKey(sandbox.keys.readOnly)
      .request(feedback)
      .catch((caught: unknown) => caught);
    expect(forbidden).toBeInstanceOf(PermissionError);
    expect((forbidden as PermissionError).upstreamMessages).toEqual(['API key does not have the required scope for this operation']);
    await expect(client.forKey(sandbox.keys.admin).request(feedback)).rejects.toBeInstanceOf(NotAcceptableError);
    sandbox.injectFaults([{ path: '/v2/bots/public', status: 429, times: 10 }]);
    await expect(client.forKey(sandbox.keys.admin).request(agents)).rejects.toBeInstanceOf(RateLimitError);
  });

  it('times out slow responses and honours cancellation', async () => {
    const api = clientFor(sandbox.url, { timeoutMs: 150 }).forKey(sandbox.keys.admin);
    sandbox.injectFaults([{ path: '/v2/hc-interactions/x/feedback/public', delayMs: 1000 }]);
    await expect(api.request(feedback)).rejects.toBeInstanceOf(TimeoutError);
    sandbox.injectFaults([{ path: '/v2/bots/public', delayMs: 1000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(
      clientFor(sandbox.url)
        .forKey(sandbox.keys.admin)
        .request({ ...agents, signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
  });

  it('keeps a separate budget per key and never starts more than N in a window', async () => {
    const client = clientFor(sandbox.url, { limit: 3 });
    const started = Date.now();
    await Promise.all(Array.from({ length: 3 }, () => client.forKey(sandbox.keys.admin).request(agents)));
    await Promise.all(Array.from({ length: 3 }, () => client.forKey(sandbox.keys.readOnly).request(agents)));
    // Had the keys shared one budget of 3, the other key's starts would have waited a window for
    // the first three slots to free; on their own budget they reach the upstream within it.
    const otherKey = sandbox.requests.filter((request) => request.keyName === 'readOnly');
    expect(otherKey).toHaveLength(3);
    for (const request of otherKey) expect(request.at - started).toBeLessThan(WINDOW_MS);
    await client.forKey(sandbox.keys.admin).request(agents);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS);
  });
});
