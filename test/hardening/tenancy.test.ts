import type http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { ClientAddresses } from '../../src/client-address.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { acceptedKey, apiRequests, connect, initializeRequest, madeUpKey, sandboxEnv, textOf, waitFor } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';
import { RUN_ENV } from '../support/run-env.js';

/**
 * Issue 32 over HTTP, in process: nothing of a request is read past its headers until its key and
 * session are known good; request bodies are held within a total and a per-address share; only the
 * proxies SVC_TRUST_PROXY lists may say who the client is; prototype names never reach the SDK.
 */
const PROTOCOL = '2025-06-18';
const FOUR_MIB = 4 * 1024 * 1024;
const sandbox = useSandbox();
const servers: Record<string, HttpServerHandle> = {};

async function startServer(env: Record<string, string> = {}): Promise<HttpServerHandle> {
  const config = loadConfig(['--transport', 'http', '--http-port', '0'], { ...RUN_ENV, SVC_BASE_URL: sandbox.url, SVC_CONFIRM: 'none', ...env });
  return startHttpServer(await createRuntime(config, createLogger('silent')));
}

beforeAll(async () => {
  servers.plain = await startServer();
  servers.proxied = await startServer({ SVC_TRUST_PROXY: '127.0.0.1/32, ::1' });
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.shutdown('test over')));
});

const validKey = () => acceptedKey(sandbox, 'tenancy');

async function openSession(url: string, key: string): Promise<string> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initializeRequest('tenant')),
  });
  expect(answer.status).toBe(200);
  return answer.headers.get('mcp-session-id')!;
}

interface HalfSent {
  /** The status line and headers, once the server answers (before the body is all sent, if it does). */
  answer: Promise<{ status: number; headers: string }>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  socket: net.Socket;
}

/** Until the server holds the four 4 MiB bodies an address may: then the next one from that address is one too many. */
const addressShareHeld = (server: HttpServerHandle) => waitFor(() => server.bodyBytesHeld() === 4 * FOUR_MIB, 'the four bodies to be held');

/** A POST to /mcp declaring a 4 MiB body and sending `sent` bytes of it, then holding. */
function halfSent(url: string, headers: Record<string, string>, sent = 64 * 1024, localAddress = '127.0.0.1'): HalfSent {
  const { port } = new URL(url);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port), localAddress });
  const lines = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(FOUR_MIB), ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  socket.write(`POST /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  let received = '';
  const answer = new Promise<{ status: number; headers: string }>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) resolve({ status: Number(received.slice(9, 12)), headers: received.slice(0, end).toLowerCase() });
    });
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  return { answer, closed, socket };
}

describe('nothing of a request is read past its headers until its key and session are known good (issue 32)', () => {
  it('answers a made-up session id, or a real one with another key, before its body arrives, and closes the connection', async () => {
    const url = servers.plain.url;
    const owner = validKey();
    const realSession = await openSession(url, owner);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('made-up key', 'another valid key', 'the owner'), fc.constantFrom('made-up session', 'real session'), async (who, which) => {
        fc.pre(!(who === 'the owner' && which === 'real session'));
        const key = who === 'made-up key' ? madeUpKey() : who === 'the owner' ? owner : validKey();
        const session = which === 'real session' ? realSession : randomBytes(16).toString('hex');
        const request = halfSent(url, { authorization: `Bearer ${key}`, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL });
        const { status, headers } = await request.answer;
        expect(status).toBe(which === 'made-up session' ? 404 : 403);
        expect(headers).toContain('connection: close');
        await request.closed;
      }),
      { numRuns: 12 },
    );
  });

  it('holds at most 16 MiB of bodies per client address: a fifth 4 MiB body from one address is refused at once, one from another address is not', async () => {
    const url = servers.plain.url;
    const key = validKey();
    const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': await openSession(url, key), 'mcp-protocol-version': PROTOCOL };
    const requests = Array.from({ length: 4 }, () => halfSent(url, headers));
    try {
      await addressShareHeld(servers.plain);
      const fifth = halfSent(url, headers);
      requests.push(fifth);
      expect((await fifth.answer).status).toBe(429);
      const elsewhere = halfSent(url, headers, 1024, '127.0.0.2');
      requests.push(elsewhere);
      const early = await Promise.race([elsewhere.answer, new Promise((resolve) => setTimeout(() => resolve('still reading'), 300))]);
      expect(early).toBe('still reading');
    } finally {
      for (const request of requests) request.socket.destroy();
    }
  });

  it('refuses a body that grows past its address share as it arrives (no declared length) as one declared past it is: 429 with Retry-After', async () => {
    const url = servers.plain.url;
    const key = validKey();
    const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': await openSession(url, key), 'mcp-protocol-version': PROTOCOL };
    const requests = Array.from({ length: 4 }, () => halfSent(url, headers));
    const { port } = new URL(url);
    const chunked = net.connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.1' });
    try {
      await addressShareHeld(servers.plain);
      const lines = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'transfer-encoding': 'chunked', ...headers });
      chunked.write(`POST /mcp HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n400\r\n${' '.repeat(1024)}\r\n`);
      const head = await new Promise<string>((resolve) => {
        let received = '';
        chunked.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (received.includes('\r\n\r\n')) resolve(received.toLowerCase());
        });
      });
      expect(head.slice(9, 12)).toBe('429');
      expect(head).toMatch(/retry-after: 2/);
    } finally {
      chunked.destroy();
      for (const request of requests) request.socket.destroy();
    }
  });
});

describe('SVC_TRUST_PROXY (issue 32)', () => {
  it('believes X-Forwarded-For only from a listed proxy: without one, no header buys another share', async () => {
    const key = validKey();
    for (const [name, server, separate] of [
      ['no proxy trusted', servers.plain, false],
      ['127.0.0.1 trusted', servers.proxied, true],
    ] as const) {
      const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': await openSession(server.url, key), 'mcp-protocol-version': PROTOCOL };
      const requests = Array.from({ length: 4 }, () => halfSent(server.url, { ...headers, 'x-forwarded-for': '198.51.100.1' }));
      try {
        await addressShareHeld(server);
        const sameClient = halfSent(server.url, { ...headers, 'x-forwarded-for': '10.9.9.9, 198.51.100.1' });
        requests.push(sameClient);
        expect((await sameClient.answer).status, name).toBe(429);
        const otherClient = halfSent(server.url, { ...headers, 'x-forwarded-for': '198.51.100.2' }, 1024);
        requests.push(otherClient);
        const early = await Promise.race([otherClient.answer.then(({ status }) => status), new Promise((resolve) => setTimeout(() => resolve('still reading'), 300))]);
        expect(early, name).toBe(separate ? 'still reading' : 429);
      } finally {
        for (const request of requests) request.socket.destroy();
      }
    }
  });

  it('reads the chain from its right end, past trusted proxies only, and never takes a forged hop from an untrusted socket', () => {
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(fc.array(ipv4, { maxLength: 5 }), ipv4, fc.array(ipv4, { maxLength: 3 }), fc.boolean(), (forged, socket, proxies, socketTrusted) => {
        const trusted = socketTrusted ? [...proxies, socket] : proxies.filter((proxy) => proxy !== socket);
        const addresses = new ClientAddresses(trusted);
        const request = { socket: { remoteAddress: `::ffff:${socket}` }, headers: { 'x-forwarded-for': forged.join(', ') } } as unknown as http.IncomingMessage;
        const client = addresses.of(request);
        if (!socketTrusted) {
          expect(client).toBe(socket);
          return;
        }
        const chain = [...forged].reverse();
        const expected = chain.find((hop) => !trusted.includes(hop)) ?? chain.at(-1) ?? socket;
        expect(client).toBe(expected);
      }),
      { numRuns: 500 },
    );
    expect(ClientAddresses.share('2001:db8:abcd:12ff::1')).toBe(ClientAddresses.share('2001:db8:abcd:1200:ffff::9'));
    expect(ClientAddresses.share('2001:db8:abcd:12ff::1')).not.toBe(ClientAddresses.share('2001:db8:abcd:1300::1'));
    expect(() => loadConfig([], { SVC_SANDBOX: 'true', SVC_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/SVC_TRUST_PROXY must be a comma list of IP addresses or CIDR ranges/);
  });
});

describe('prototype names over HTTP (issue 32)', () => {
  it('refuses params.__proto__ with 400 and sends nothing', async () => {
    const key = validKey();
    const session = await openSession(servers.plain.url, key);
    sandbox.clearRequests();
    const answer = await fetch(servers.plain.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"__proto__":{"name":"create_folder","arguments":{"name":"polluted"}}}}',
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('params.__proto__');
    expect(apiRequests(sandbox)).toEqual([]);
  });
});

describe('a key without the write scope (issue 32)', () => {
  it("meets the API's 403 once; its next writes are refused before any preview or token, and nothing is sent", async () => {
    const readOnly = await connect({ env: sandboxEnv(sandbox, sandbox.keys.readOnly) });
    const admin = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin) });
    try {
      const preview = await readOnly.call('create_folder', { name: 'scope-1' });
      const token = (preview.structuredContent as { confirmToken: string }).confirmToken;
      const refused = await readOnly.call('create_folder', { name: 'scope-1', confirm: token });
      expect(textOf(refused)).toContain('403');
      sandbox.clearRequests();
      for (const [tool, args] of [
        ['create_folder', { name: 'scope-2' }],
        ['delete_conversation', { interactionId: 'c-1' }],
      ] as const) {
        const again = await readOnly.call(tool, args);
        expect(again.isError).toBe(true);
        expect(textOf(again)).toMatch(/was not previewed and nothing was sent: the workspace API refused this key's last write with 403/);
        expect(again.structuredContent).toBeUndefined();
      }
      expect(sandbox.requests).toEqual([]);
      // Reads go on; another key's writes are its own.
      expect((await readOnly.call('list_folders')).isError).toBeFalsy();
      expect((await admin.call('create_folder', { name: 'scope-3' })).structuredContent).toHaveProperty('confirmToken');
    } finally {
      await readOnly.close();
      await admin.close();
    }
  });
});
