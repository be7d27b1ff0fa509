import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient, ApiRequest } from '../../src/upstream/client.js';
import { AuthenticationError, ConnectionError, PermissionError, RateLimitError } from '../../src/upstream/errors.js';
import { hashKey } from '../../src/redaction/key-hash.js';
import { createLogger } from '../../src/log.js';
import type { AccessTokens } from '../../src/access.js';
import { resolveCredentials, type CredentialRules } from '../../src/transports/http/credentials.js';
import { CHECKS_PER_SECOND, KeyVerifier } from '../../src/transports/http/key-check.js';

const PROBE = { method: 'GET', path: '/v2/bots/public' };

/** An API client whose answers the test releases by hand, counting the checks running at once. */
function fakeApi(answer: (key: string) => unknown = () => []) {
  const seen: string[] = [];
  let running = 0;
  let most = 0;
  const release: Array<() => void> = [];
  const client = {
    baseUrl: 'http://api.test',
    forKey: (key: string) => ({
      request: async (request: ApiRequest) => {
        expect(request).toMatchObject({ ...PROBE, read: true, backoff: false });
        seen.push(key);
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        const result = answer(key);
        if (result instanceof Error) throw result;
        return result;
      },
    }),
  } as unknown as ApiClient;
  /** Lets every check that has begun, and every one that begins meanwhile, answer until `pending` settles. */
  const settle = async <T>(pending: Promise<T>): Promise<T> => {
    let done = false;
    void pending.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      for (const go of release.splice(0)) go();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return pending;
  };
  return { client, seen, most: () => most, settle };
}

const key = (index: number) => `svc_${String(index).padStart(32, '0')}`;
const verifierFor = (client: ApiClient) => new KeyVerifier(client, createLogger('silent'));
const ADDRESS = '127.0.0.1';

afterEach(() => vi.useRealTimers());

describe('KeyVerifier', () => {
  it('asks once per key however many ask at once, and runs at most 8 checks at once', async () => {
    const api = fakeApi();
    const verifier = verifierFor(api.client);
    const verdicts = Array.from({ length: 40 }, (_, index) => verifier.verify(key(index % 20), hashKey(key(index % 20)), ADDRESS));
    expect(await api.settle(Promise.all(verdicts))).toEqual(Array(40).fill({ kind: 'accepted' }));
    expect(api.seen).toHaveLength(20);
    expect(api.most()).toBe(8);
  });

  it('remembers an accepted key 5 minutes and a refused one 1 minute, and never an unanswered check', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verdictOf = new Map<string, unknown>([
      [key(1), []],
      [key(2), new AuthenticationError('401', PROBE, 401)],
      [key(3), new ConnectionError('refused', PROBE, undefined, [], false)],
      [key(4), new PermissionError('403', PROBE, 403)],
      [key(5), new RateLimitError('429', PROBE, 429)],
    ]);
    const api = fakeApi((asked) => verdictOf.get(asked));
    const verifier = verifierFor(api.client);
    const verifyAll = async () => {
      const pending = [1, 2, 3, 4, 5].map((index) => verifier.verify(key(index), hashKey(key(index)), ADDRESS));
      return (await api.settle(Promise.all(pending))).map((verdict) => verdict.kind);
    };
    expect(await verifyAll()).toEqual(['accepted', 'refused', 'unchecked', 'accepted', 'unchecked']);
    expect(api.seen).toHaveLength(5);
    vi.setSystemTime(Date.now() + 59_000);
    await verifyAll();
    expect(api.seen.slice(5)).toEqual([key(3), key(5)]);
    vi.setSystemTime(Date.now() + 2_000);
    await verifyAll();
    expect(api.seen.slice(7)).toEqual([key(2), key(3), key(5)]);
    vi.setSystemTime(Date.now() + 4 * 60_000);
    await verifyAll();
    expect(api.seen.slice(10).sort()).toEqual([key(1), key(2), key(3), key(4), key(5)]);
  });
});

/**
 * Issue 32: 1,100 made-up keys in flight shut a tenant out (503, three times in three), 10,500 pushed
 * accepted keys out of the cache, and each one cost a request to the real API (1,500-2,900 in 15 s).
 */
describe('KeyVerifier under a flood of made-up keys (issue 32)', () => {
  /** The verifier on a clock the test moves; the fake API answers after `latencyMs` of that clock. */
  function flooded(latencyMs = 200, refuses = (asked: string) => asked.startsWith('svc_madeup')) {
    let now = 1_000_000;
    const starts: number[] = [];
    const started: string[] = [];
    const timers: Array<{ at: number; run: () => void }> = [];
    const later = (ms: number) => new Promise<void>((resolve) => timers.push({ at: now + ms, run: resolve }));
    const client = {
      baseUrl: 'http://api.test',
      forKey: (asked: string) => ({
        request: async () => {
          starts.push(now);
          started.push(asked);
          await later(latencyMs);
          if (refuses(asked)) throw new AuthenticationError('401', PROBE, 401);
          return [];
        },
      }),
    } as unknown as ApiClient;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const verifier = new KeyVerifier(client, createLogger('silent'), () => now);
    /** Moves the clock in steps of 5 ms until `pending` settles (or `limitMs` passes), running what falls due. */
    const run = async <T>(pending: Promise<T>, limitMs = 120_000): Promise<{ value?: T; tookMs: number }> => {
      const began = now;
      let done = false;
      let value: T | undefined;
      void pending.then((result) => {
        done = true;
        value = result;
      });
      while (!done && now - began < limitMs) {
        await new Promise((resolve) => setImmediate(resolve));
        now += 5;
        vi.advanceTimersByTime(5);
        for (const timer of timers.filter((entry) => entry.at <= now)) {
          timers.splice(timers.indexOf(timer), 1);
          timer.run();
        }
      }
      return { value, tookMs: now - began };
    };
    return { verifier, starts, started, run };
  }
  const madeUp = (index: number) => `svc_madeup${String(index).padStart(24, '0')}`;
  const FLOODER = '203.0.113.7';
  const TENANT = '198.51.100.20';

  it('sends the upstream at most 50 checks in any second, whatever arrives, from however many addresses', async () => {
    const { verifier, starts, run } = flooded();
    const pending = Array.from({ length: 600 }, (_, index) => verifier.verify(madeUp(index), hashKey(madeUp(index)), `10.0.${index % 30}.1`));
    await run(Promise.all(pending));
    expect(starts).toHaveLength(600);
    for (const start of starts) expect(starts.filter((other) => other >= start && other < start + 1000).length).toBeLessThanOrEqual(CHECKS_PER_SECOND);
  });

  it('checks a tenant with an unknown valid key within a turn or two of 1,100 made-up keys from one address, and lets the flood wait behind itself', async () => {
    const { verifier, run } = flooded();
    const flood = Array.from({ length: 1_100 }, (_, index) => verifier.verify(madeUp(index), hashKey(madeUp(index)), FLOODER));
    // Give the flood a head start: its checks hold every slot and the rate window.
    await run(new Promise((resolve) => setTimeout(resolve, 500)));
    const tenant = await run(verifier.verify(key(1), hashKey(key(1)), TENANT));
    expect(tenant.value).toEqual({ kind: 'accepted' });
    expect(tenant.tookMs).toBeLessThan(1_000);
    const answers = (await run(Promise.all(flood))).value!;
    // The flood's own address holds at most 200 waiting checks; the rest are told so at once.
    expect(answers.filter((verdict) => verdict.kind === 'unchecked').length).toBeGreaterThanOrEqual(1_100 - 200 - 8);
  });

  it('puts an address whose keys the API keeps refusing behind one whose keys it accepts', async () => {
    const { verifier, started, run } = flooded();
    const flood = Array.from({ length: 150 }, (_, index) => verifier.verify(madeUp(index), hashKey(madeUp(index)), FLOODER));
    await run(new Promise((resolve) => setTimeout(resolve, 2_000)));
    const before = started.length;
    const tenants = Array.from({ length: 20 }, (_, index) => verifier.verify(key(index), hashKey(key(index)), `${TENANT.slice(0, -2)}${index}`));
    await run(Promise.all(tenants));
    // Twenty tenants from twenty addresses took the next twenty turns: no made-up key started before the last of them.
    const after = started.slice(before);
    const lastTenant = after.findLastIndex((asked) => !asked.startsWith('svc_madeup'));
    expect(after.slice(0, lastTenant).filter((asked) => asked.startsWith('svc_madeup'))).toEqual([]);
    await run(Promise.all(flood));
  });

  it('keeps every accepted verdict through 12,000 made-up keys (more than the verdicts kept), and the flood never evicts one', async () => {
    const { verifier, starts, run } = flooded(1);
    const tenants = Array.from({ length: 50 }, (_, index) => key(index));
    await run(Promise.all(tenants.map((tenant) => verifier.verify(tenant, hashKey(tenant), TENANT))));
    for (let batch = 0; batch < 60; batch++) {
      await run(Promise.all(Array.from({ length: 200 }, (_, index) => verifier.verify(madeUp(batch * 200 + index), hashKey(madeUp(batch * 200 + index)), `10.${batch}.0.1`))));
    }
    const probes = starts.length;
    const again = await run(Promise.all(tenants.map((tenant) => verifier.verify(tenant, hashKey(tenant), TENANT))));
    expect(again.value!.every((verdict) => verdict.kind === 'accepted')).toBe(true);
    expect(starts.length).toBe(probes);
  });

  it('when 2,000 checks wait, a newcomer takes the place of the newest check of the address with most waiting', async () => {
    const { verifier, run } = flooded(60_000);
    const floods = Array.from({ length: 10 }, (_, address) =>
      Array.from({ length: 200 }, (_, index) => verifier.verify(madeUp(address * 200 + index), hashKey(madeUp(address * 200 + index)), `10.1.${address}.1`)),
    );
    await run(new Promise((resolve) => setTimeout(resolve, 10)));
    // Eight are running; eight more from another address fill the line.
    floods.push(Array.from({ length: 8 }, (_, index) => verifier.verify(madeUp(5_000 + index), hashKey(madeUp(5_000 + index)), '10.1.99.1')));
    expect(verifier.waiting()).toBe(2_000);
    const tenant = verifier.verify(key(1), hashKey(key(1)), TENANT);
    expect(verifier.waiting(TENANT)).toBe(1);
    const dropped = await Promise.race(floods.flat().map((pending) => pending.then((verdict) => verdict)));
    expect(dropped).toMatchObject({ kind: 'unchecked', reason: expect.stringContaining('most of them from your address') });
    void tenant;
  });
});

describe('resolveCredentials', () => {
  const request = (authorization?: string) => ({ headers: { host: '127.0.0.1:3000', ...(authorization ? { authorization } : {}) } }) as IncomingMessage;
  const rules = (client: ApiClient, accessTokens?: AccessTokens): CredentialRules => ({ port: 3000, allowedHosts: [], allowedOrigins: [], verifier: verifierFor(client), accessTokens });

  it('takes a bearer access token through the hook, as the key it stands for, checked when it was granted', async () => {
    const api = fakeApi();
    const challenge = 'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"';
    const tokens: AccessTokens = {
      resolve: async (token) =>
        token === 'opaque-token' ? { key: key(7), readOnly: true } : { status: 401, message: 'Unauthorized: unknown token', headers: { 'www-authenticate': `${challenge}, error="invalid_token"` } },
      challenge,
    };
    const resolved = resolveCredentials(request('Bearer opaque-token'), rules(api.client, tokens), true, ADDRESS);
    expect(await api.settle(resolved)).toEqual({ key: key(7), keyHash: hashKey(key(7)), from: 'grant', readOnly: true });
    expect(api.seen).toEqual([]);
    const unknown = await resolveCredentials(request('Bearer expired-token'), rules(api.client, tokens), true, ADDRESS);
    expect(unknown).toMatchObject({ status: 401, headers: { 'www-authenticate': `${challenge}, error="invalid_token"` } });
    const nothing = await resolveCredentials(request(), { ...rules(api.client, tokens), serverKey: key(8) }, true, ADDRESS);
    expect(nothing).toMatchObject({ status: 401, headers: { 'www-authenticate': challenge } });
  });

  it("names SVC_API_KEY when the API refuses the server's own key, and the header when it refuses the client's", async () => {
    const api = fakeApi(() => new AuthenticationError('401', PROBE, 401));
    const serving = { ...rules(api.client), serverKey: key(8) };
    const own = await api.settle(resolveCredentials(request(), serving, true, ADDRESS));
    expect(own).toMatchObject({ status: 401, message: expect.stringContaining("this server's own key (SVC_API_KEY)") });
    const client = await api.settle(resolveCredentials(request(`Bearer ${key(9)}`), serving, true, ADDRESS));
    expect(client).toMatchObject({ status: 401, message: expect.stringContaining('"Authorization: Bearer svc_..."') });
    expect((client as { message: string }).message).not.toContain('SVC_API_KEY');
  });

  it('checks Host first, then the key, and asks the API only when told to', async () => {
    const api = fakeApi();
    expect(await resolveCredentials({ headers: { host: 'evil.example.com', authorization: `Bearer ${key(1)}` } } as IncomingMessage, rules(api.client), true, ADDRESS)).toMatchObject({ status: 403 });
    expect(await resolveCredentials(request(`Bearer ${key(1)}`), rules(api.client), false, ADDRESS)).toMatchObject({ key: key(1), from: 'client' });
    expect(api.seen).toEqual([]);
  });
});
