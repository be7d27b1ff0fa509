import type { lookup as systemLookup, LookupAddress } from 'node:dns';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientDocuments, DOCUMENT_LIMITS, documentUrlRefusal, freshFor } from '../../src/oauth/client-documents.js';
import { isPublicAddress } from '../../src/oauth/public-address.js';
import { clientDocument, json, redirect, slow, startDocumentHost, type DocumentHost } from '../support/client-documents.js';

/**
 * The fetch of client metadata documents as an attacker uses it: every spelling of a private address,
 * a DNS server that answers differently the second time (rebinding) or with a private address among
 * public ones, redirects of every kind, floods of URLs and of one URL, and caching headers that try to
 * keep a document longer than allowed. The https host is on loopback; names under cimd.test are resolved
 * by each test's own DNS.
 */
const CALLBACK = 'http://127.0.0.1:9/callback';
let host: DocumentHost;
let port: string;

beforeAll(async () => {
  host = await startDocumentHost();
  port = new URL(host.origin).port;
});
afterAll(() => host.close());

/** A DNS server of the test's making: each lookup of a name gets the next answer, the last one repeating. */
function dns(answers: Record<string, string[][]>): { lookup: typeof systemLookup; asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) => {
    asked.push(hostname);
    const list = answers[hostname] ?? [];
    const answer = list[Math.min(asked.filter((name) => name === hostname).length - 1, list.length - 1)] ?? [];
    process.nextTick(() =>
      callback(
        null,
        answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  }) as unknown as typeof systemLookup;
  return { lookup, asked };
}

const cimdUrl = (name: string, path: string) => `https://${name}.cimd.test:${port}/${path}`;

describe('which addresses are public', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  const inRange = (network: string, prefix: number) =>
    fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => {
      const base = network.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
      const value = base + offset;
      return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
    });
  const ipv4Hex = (address: string) => {
    const [a, b, c, d] = address.split('.').map(Number);
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };

  it('refuses every address of the private, loopback, link-local, shared, reserved and multicast ranges, in every IPv6 spelling', () => {
    const special = fc.oneof(
      inRange('10.0.0.0', 8),
      inRange('127.0.0.0', 8),
      inRange('169.254.0.0', 16),
      inRange('172.16.0.0', 12),
      inRange('192.168.0.0', 16),
      inRange('100.64.0.0', 10),
      inRange('0.0.0.0', 8),
      inRange('224.0.0.0', 4),
      inRange('240.0.0.0', 4),
    );
    fc.assert(
      fc.property(special, (address) => {
        for (const form of [address, `::ffff:${address}`, `::FFFF:${address}`, `::ffff:${ipv4Hex(address)}`, `0:0:0:0:0:ffff:${ipv4Hex(address)}`, `64:ff9b::${ipv4Hex(address)}`, `::${address}`]) {
          expect(isPublicAddress(form), form).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives an IPv4 address and its IPv4-mapped IPv6 forms the same answer', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (parts) => {
        const address = parts.join('.');
        const verdict = isPublicAddress(address);
        expect(isPublicAddress(`::ffff:${address}`)).toBe(verdict);
        expect(isPublicAddress(`::ffff:${ipv4Hex(address)}`)).toBe(verdict);
      }),
      { numRuns: 500 },
    );
  });

  it('allows global unicast only in IPv6', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) expect(isPublicAddress(address)).toBe(true);
    for (const address of ['::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '2002:7f00:1::1', '2001:0:4136:e378::1', '3fff::1', 'not an address', '']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});

describe('which client_ids name a document', () => {
  it('refuses every other spelling of a URL, so one document has one URL (and one cache entry)', () => {
    for (const [clientId, rule] of [
      ['http://app.example/client.json', 'https'],
      ['https://app.example', 'path'],
      ['https://app.example/', 'path'],
      ['https://user:pass@app.example/client.json', 'user name'],
      ['https://app.example/client.json#x', 'fragment'],
      ['https://app.example/client.json#', 'fragment'],
      ['https://APP.example/client.json', 'standard form'],
      ['https://app.example:443/client.json', 'standard form'],
      ['https://app.example/a/../client.json', 'standard form'],
      ['https://app.example/%2e%2e/client.json', 'standard form'],
      ['https://app.example/./client.json', 'standard form'],
      ['https://0x7f.1/client.json', 'standard form'],
      ['https://2130706433/client.json', 'standard form'],
      ['https://017700000001/client.json', 'standard form'],
      ['https://127.1/client.json', 'standard form'],
      ['https://[::ffff:127.0.0.1]/client.json', 'standard form'],
      ['https://app.example./client.json', undefined],
      ['https://app.example/client.json', undefined],
    ] as const) {
      const refusal = documentUrlRefusal(clientId);
      if (rule === undefined) expect(refusal, clientId).toBeUndefined();
      else expect(refusal, clientId).toContain(rule);
    }
  });
});

describe('how long a document is kept (RFC 9111)', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it('follows max-age, s-maxage, Age and Expires, never past a day, and keeps nothing no-store or no-cache', () => {
    expect(freshFor({ 'cache-control': 'max-age=300' }, now)).toBe(300_000);
    expect(freshFor({ 'cache-control': 'public, max-age=300', age: '100' }, now)).toBe(200_000);
    expect(freshFor({ 'cache-control': 'max-age=300, s-maxage=60' }, now)).toBe(60_000);
    expect(freshFor({ 'cache-control': 'max-age=31536000' }, now)).toBe(DOCUMENT_LIMITS.maxAgeMs);
    expect(freshFor({ 'cache-control': 'max-age=300, no-store' }, now)).toBe(0);
    expect(freshFor({ 'cache-control': 'no-cache, max-age=300' }, now)).toBe(0);
    expect(freshFor({ 'cache-control': 'max-age=-5' }, now)).toBe(0);
    expect(freshFor({ 'cache-control': 'max-age=1e9' }, now)).toBe(0);
    expect(freshFor({ expires: 'Fri, 27 Nov 2026 12:10:00 GMT', date: 'Fri, 27 Nov 2026 12:00:00 GMT' }, now)).toBe(600_000);
    expect(freshFor({ expires: '0' }, now)).toBe(0);
    expect(freshFor({}, now)).toBe(0);
  });

  it('never keeps anything longer than a day, nor for a negative time, whatever the headers', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (cacheControl, age, expires) => {
        const kept = freshFor({ 'cache-control': cacheControl, age, expires }, now);
        expect(kept).toBeGreaterThanOrEqual(0);
        expect(kept).toBeLessThanOrEqual(DOCUMENT_LIMITS.maxAgeMs);
      }),
    );
  });
});

describe('the fetch', () => {
  it('resolves a name once per connection and connects to the address it checked (DNS rebinding)', async () => {
    // A rebinding DNS server: an address this test may reach first, then the cloud metadata service.
    const resolver = dns({ 'rebind.cimd.test': [['127.0.0.1'], ['169.254.169.254']] });
    const documents = new ClientDocuments({ allowPrivate: true, lookup: resolver.lookup });
    const url = cimdUrl('rebind', 'rebind.json');
    host.serve('rebind.json', json(clientDocument(url, [CALLBACK])));
    expect(await documents.resolve(url)).toHaveProperty('client.client_id', url);
    expect(resolver.asked).toEqual(['rebind.cimd.test']);
    await documents.close();
  });

  it('refuses a name with a private address among public ones, or only private ones, before connecting', async () => {
    const resolver = dns({
      'mixed.cimd.test': [['93.184.215.14', '10.0.0.7']],
      'metadata.cimd.test': [['169.254.169.254']],
      'mapped.cimd.test': [['::ffff:127.0.0.1']],
      'v6.cimd.test': [['2606:4700::1111', 'fd00::1']],
    });
    const documents = new ClientDocuments({ allowPrivate: false, lookup: resolver.lookup });
    const connections = host.connections();
    for (const [name, address] of [
      ['mixed', '10.0.0.7'],
      ['metadata', '169.254.169.254'],
      ['mapped', '::ffff:127.0.0.1'],
      ['v6', 'fd00::1'],
    ]) {
      const outcome = await documents.resolve(cimdUrl(name, 'x.json'));
      expect(outcome).toEqual({ refusal: expect.stringContaining(`is at ${address}, which is not a public address`) });
    }
    expect(host.connections()).toBe(connections);
    await documents.close();
  });

  it('follows no redirect of any kind, and never fetches where it points', async () => {
    const documents = new ClientDocuments({ allowPrivate: true });
    const target = host.serve('redirect-target.json', json(clientDocument(host.url('redirect-target.json'), [CALLBACK])));
    for (const status of [301, 302, 303, 307, 308]) {
      const url = host.serve(`redirect-${status}.json`, redirect(target, status));
      expect(await documents.resolve(url)).toEqual({ refusal: expect.stringContaining(`redirects (HTTP ${status})`) });
    }
    expect(host.hits('redirect-target.json')).toBe(0);
    await documents.close();
  });

  it('fetches a document once however many ask for it at the same time, and a bounded number of documents at once', async () => {
    const documents = new ClientDocuments({ allowPrivate: true });
    const url = host.serve('popular.json', json(clientDocument(host.url('popular.json'), [CALLBACK])));
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => documents.resolve(url)));
    expect(outcomes.every((outcome) => 'client' in outcome)).toBe(true);
    expect(host.hits('popular.json')).toBe(1);
    // A flood of slow documents: the ones past the bound are refused at once, not queued.
    const limit = DOCUMENT_LIMITS.timeoutMs;
    DOCUMENT_LIMITS.timeoutMs = 400;
    try {
      const flood = await Promise.all(Array.from({ length: 40 }, (_, index) => documents.resolve(host.serve(`flood-${index}.json`, slow(50)))));
      const busy = flood.filter((outcome) => 'refusal' in outcome && outcome.refusal.includes('too many'));
      expect(busy.length).toBe(40 - DOCUMENT_LIMITS.fetchesAtOnce);
      expect(flood.filter((outcome) => 'refusal' in outcome && outcome.refusal.includes('did not arrive')).length).toBe(DOCUMENT_LIMITS.fetchesAtOnce);
    } finally {
      DOCUMENT_LIMITS.timeoutMs = limit;
    }
    await documents.close();
  });

  it('caches only a valid document, under its exact URL: a refused one is fetched again, and its refusal poisons no other URL', async () => {
    const documents = new ClientDocuments({ allowPrivate: true });
    const victim = host.url('victim.json');
    // A document that claims another client's URL, with a long cache lifetime.
    const liar = host.serve('liar.json', json(clientDocument(victim, ['https://evil.example/cb']), { 'cache-control': 'max-age=86400' }));
    host.serve('victim.json', json(clientDocument(victim, [CALLBACK]), { 'cache-control': 'max-age=60' }));
    expect(await documents.resolve(liar)).toHaveProperty('refusal');
    expect(await documents.resolve(liar)).toHaveProperty('refusal');
    expect(host.hits('liar.json')).toBe(2);
    expect(await documents.resolve(victim)).toMatchObject({ client: { redirect_uris: [CALLBACK] } });
    expect(await documents.resolve(`${victim}?`)).toHaveProperty('refusal');
    await documents.close();
  });

  it('keeps documents within a weight in memory, the oldest making room, and quotes a document in a refusal only briefly', async () => {
    const documents = new ClientDocuments({ allowPrivate: true });
    const bound = DOCUMENT_LIMITS.cachedBytes;
    DOCUMENT_LIMITS.cachedBytes = 3000;
    try {
      const heavy = (name: string) => host.serve(name, json(clientDocument(host.url(name), [CALLBACK], { client_name: 'x'.repeat(1200) }), { 'cache-control': 'max-age=600' }));
      const [first, second, third] = ['heavy-1.json', 'heavy-2.json', 'heavy-3.json'].map(heavy);
      for (const url of [first, second, third, second, third, first]) expect(await documents.resolve(url)).toHaveProperty('client');
      expect(['heavy-1.json', 'heavy-2.json', 'heavy-3.json'].map((name) => host.hits(name))).toEqual([2, 1, 1]);
    } finally {
      DOCUMENT_LIMITS.cachedBytes = bound;
    }
    const liar = host.serve('long-liar.json', json(clientDocument('y'.repeat(60_000), [CALLBACK])));
    const outcome = await documents.resolve(liar);
    expect('refusal' in outcome && outcome.refusal.length).toBeLessThan(600);
    await documents.close();
  });
});
