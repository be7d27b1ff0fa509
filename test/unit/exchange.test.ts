import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../src/upstream/exchange.js';
import { Pool } from '../../src/upstream/pool.js';

/** A server that answers each path its own way: what undici's dispatch sees of a real socket. */
const routes: Record<string, (res: http.ServerResponse) => void> = {
  // 'é' is two bytes in UTF-8, written one byte at a time, 20 ms apart.
  '/split': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const bytes = Buffer.from(JSON.stringify({ word: 'café' }));
    let at = 0;
    const next = () => (at < bytes.length ? res.write(bytes.subarray(at, ++at), () => setTimeout(next, 2)) : res.end());
    next();
  },
  '/stalls': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"started":');
  },
  '/teapot': (res) => res.writeHead(418).end('{"statusCode":418}'),
};
let server: http.Server;
let pool: Pool;
let seen = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen += 1;
    routes[req.url ?? '']?.(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pool = new Pool(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
afterAll(async () => {
  await pool.destroy();
  server.closeAllConnections();
  server.close();
});

describe('exchange: one request through the pool, answered as text', () => {
  it('joins a body that arrives byte by byte, characters split across chunks included', async () => {
    const statuses: number[] = [];
    const answer = await exchange(pool, { method: 'GET', path: '/split' }, new AbortController().signal, (status) => statuses.push(status));
    expect(answer).toEqual({ statusCode: 200, text: '{"word":"café"}' });
    expect(statuses).toEqual([200]);
  });

  it('gives any status with its body, for the caller to judge', async () => {
    expect(await exchange(pool, { method: 'GET', path: '/teapot' }, new AbortController().signal)).toEqual({ statusCode: 418, text: '{"statusCode":418}' });
  });

  it('stops a body that stalls when the signal aborts, with the signal’s reason, and the pool goes on', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => controller.abort(reason), 50);
    await expect(exchange(pool, { method: 'GET', path: '/stalls' }, controller.signal)).rejects.toBe(reason);
    expect((await exchange(pool, { method: 'GET', path: '/teapot' }, new AbortController().signal)).statusCode).toBe(418);
  });

  it('sends nothing for a signal aborted before the request starts', async () => {
    const before = seen;
    const reason = new Error('cancelled');
    await expect(exchange(pool, { method: 'POST', path: '/teapot', body: '{}' }, AbortSignal.abort(reason))).rejects.toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toBe(before);
  });
});
