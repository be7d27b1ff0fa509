import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient, ApiRequest } from '../../src/http/client.js';
import { AuthenticationError, ConnectionError, PermissionError, RateLimitError } from '../../src/http/errors.js';
import { hashKey } from '../../src/key-hash.js';
import { createLogger } from '../../src/log.js';
import type { AccessTokens } from '../../src/access.js';
import { resolveCredentials, type CredentialRules } from '../../src/transports/credentials.js';
import { KeyVerifier } from '../../src/transports/key-check.js';

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

afterEach(() => vi.useRealTimers());

describe('KeyVerifier', () => {
  it('asks once per key however many ask at once, and runs at most 8 checks at once', async () => {
    const api = fakeApi();
    const verifier = verifierFor(api.client);
    const verdicts = Array.from({ length: 40 }, (_, index) => verifier.verify(key(index % 20), hashKey(key(index % 20))));
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
      const pending = [1, 2, 3, 4, 5].map((index) => verifier.verify(key(index), hashKey(key(index))));
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

  it('answers at once, unchecked, when 1,000 checks are already waiting', async () => {
    const api = fakeApi();
    const verifier = verifierFor(api.client);
    const pending = Array.from({ length: 1_009 }, (_, index) => verifier.verify(key(index), hashKey(key(index))));
    expect(await pending[1_008]).toMatchObject({ kind: 'unchecked', reason: expect.stringContaining('already waiting') });
    await api.settle(Promise.all(pending));
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
    const resolved = resolveCredentials(request('Bearer opaque-token'), rules(api.client, tokens), true);
    expect(await api.settle(resolved)).toEqual({ key: key(7), keyHash: hashKey(key(7)), from: 'grant', readOnly: true });
    expect(api.seen).toEqual([]);
    const unknown = await resolveCredentials(request('Bearer expired-token'), rules(api.client, tokens), true);
    expect(unknown).toMatchObject({ status: 401, headers: { 'www-authenticate': `${challenge}, error="invalid_token"` } });
    const nothing = await resolveCredentials(request(), { ...rules(api.client, tokens), serverKey: key(8) }, true);
    expect(nothing).toMatchObject({ status: 401, headers: { 'www-authenticate': challenge } });
  });

  it("names SVC_API_KEY when the API refuses the server's own key, and the header when it refuses the client's", async () => {
    const api = fakeApi(() => new AuthenticationError('401', PROBE, 401));
    const serving = { ...rules(api.client), serverKey: key(8) };
    const own = await api.settle(resolveCredentials(request(), serving, true));
    expect(own).toMatchObject({ status: 401, message: expect.stringContaining("this server's own key (SVC_API_KEY)") });
    const client = await api.settle(resolveCredentials(request(`Bearer ${key(9)}`), serving, true));
    expect(client).toMatchObject({ status: 401, message: expect.stringContaining('"Authorization: Bearer svc_..."') });
    expect((client as { message: string }).message).not.toContain('SVC_API_KEY');
  });

  it('checks Host first, then the key, and asks the API only when told to', async () => {
    const api = fakeApi();
    expect(await resolveCredentials({ headers: { host: 'evil.example.com', authorization: `Bearer ${key(1)}` } } as IncomingMessage, rules(api.client), true)).toMatchObject({ status: 403 });
    expect(await resolveCredentials(request(`Bearer ${key(1)}`), rules(api.client), false)).toMatchObject({ key: key(1), from: 'client' });
    expect(api.seen).toEqual([]);
  });
});
