import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiRequests, connect, sandboxEnv, textOf, type Connection } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';

const impostors: http.Server[] = [];

/** A server that is not the workspace API: it answers every request with one fixed response, and counts them (closed after all tests). */
async function impostor(status: number, body: string, contentType = 'application/json'): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(status, { 'content-type': contentType }).end(body);
  });
  impostors.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const KEY = 'svc_0123456789abcdef0123456789abcdef';
const open: Connection[] = [];

async function serverAt(baseUrl: string, extra: Record<string, string> = {}): Promise<Connection> {
  const connection = await connect({ env: { SVC_BASE_URL: baseUrl, SVC_API_KEY: KEY, SVC_CONFIRM: 'none', ...extra } });
  open.push(connection);
  return connection;
}

/** What the model reads of a call: whether it failed, and its text. */
const seen = (result: CallToolResult) => ({ isError: Boolean(result.isError), text: textOf(result) });

/** How many times the server tried the upstream for failed requests, from its own log. */
const attemptsLogged = (connection: Connection) =>
  connection
    .stderr()
    .split('\n')
    .filter((line) => line.includes('"msg":"upstream request failed')).length;

const sandbox = useSandbox();
afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await Promise.all(impostors.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('first contact with a wrong SVC_BASE_URL (issue 21 item 10)', () => {
  it('sends nothing at start: connecting and listing tools reach no server', async () => {
    const upstream = await impostor(200, '[]');
    const connection = await serverAt(upstream.url);
    await connection.client.listTools();
    expect(upstream.requests).toEqual([]);
  });

  it('names SVC_BASE_URL and its value when nothing listens there, after one quick retry at most', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const connection = await serverAt(url);
    const { isError, text } = seen(await connection.call('list_agents'));
    expect(isError).toBe(true);
    expect(text).toContain(`SVC_BASE_URL=${url}`);
    expect(text).toContain('connection was refused');
    expect(attemptsLogged(connection)).toBe(2);
  });

  it('names SVC_BASE_URL and its value at once when its name does not resolve, without asking the network', async () => {
    const connection = await serverAt('https://api.svc-mcp-test.invalid');
    const { isError, text } = seen(await connection.call('list_agents'));
    expect(isError).toBe(true);
    expect(text).toContain('SVC_BASE_URL=https://api.svc-mcp-test.invalid');
    expect(text).toContain('does not resolve');
    expect(attemptsLogged(connection)).toBe(1);
  });

  it('says the TLS handshake failed when https is spoken to a plain-HTTP server', async () => {
    const upstream = await impostor(200, '[]');
    const url = upstream.url.replace('http:', 'https:');
    const connection = await serverAt(url);
    const { isError, text } = seen(await connection.call('list_agents'));
    expect(isError).toBe(true);
    expect(text).toContain(`SVC_BASE_URL=${url}`);
    expect(text).toMatch(/TLS handshake failed.*http:\/\/ rather than https:\/\//);
    expect(attemptsLogged(connection)).toBe(1);
    expect(upstream.requests).toEqual([]);
  });

  it('reads a 404 on a path that names no item as a wrong base URL, and one without statusCode on an item as that item not found (the spec shows no 404 body)', async () => {
    for (const body of [JSON.stringify({ error: 'no such page' }), '', JSON.stringify({ message: 'Replay not found' })]) {
      const upstream = await impostor(404, body);
      const connection = await serverAt(upstream.url);
      const agents = seen(await connection.call('list_agents'));
      expect(agents.isError).toBe(true);
      expect(agents.text).toContain('SVC_BASE_URL is probably wrong');
      const replay = seen(await connection.call('get_replay', { replayId: '00000000-0000-4000-8000-000000000000' }));
      expect(replay.isError).toBe(true);
      expect(replay.text, body).toMatch(/^Not found \(404\): no replay/);
      expect(replay.text).not.toContain('SVC_BASE_URL');
    }
  });

  it('says a redirect is not followed and SVC_BASE_URL should name where it points', async () => {
    const upstream = await impostor(301, '', 'text/html');
    const { isError, text } = seen(await (await serverAt(upstream.url)).call('list_agents'));
    expect(isError).toBe(true);
    expect(text).toMatch(/redirect \(HTTP 301\).*set SVC_BASE_URL/);
    expect(upstream.requests).toHaveLength(1);
  });

  it('names SVC_API_KEY when the API refuses the configured key', async () => {
    const connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.revoked) });
    open.push(connection);
    const { isError, text } = seen(await connection.call('list_agents'));
    expect(isError).toBe(true);
    expect(text).toContain('SVC_API_KEY');
  });
});

describe('odd upstream answers (design 10.6)', () => {
  it('makes a 200 that is not JSON an error at once, naming its method and path', async () => {
    for (const body of ['<html>oops</html>', '', '{"agents": [']) {
      const upstream = await impostor(200, body, 'text/html');
      const connection = await serverAt(upstream.url);
      const { isError, text } = seen(await connection.call('list_agents'));
      expect(isError).toBe(true);
      expect(text).toContain('GET /v2/bots/public answered HTTP 200');
      expect(text).toContain('SVC_BASE_URL probably points at something other than the workspace API');
      expect(upstream.requests).toHaveLength(1);
    }
  });

  it('reports a write answered 2xx with a body that is not JSON as applied, sent once', async () => {
    const upstream = await impostor(201, '<html>created</html>', 'text/html');
    const connection = await serverAt(upstream.url);
    const { isError, text } = seen(await connection.call('create_folder', { name: 'Once' }));
    expect(isError).toBe(true);
    expect(text).toMatch(/^Sent; the API answered HTTP 201, so the request was applied\./);
    expect(text).toContain('POST /v2/');
    expect(text).toContain('Do not send it again');
    expect(upstream.requests).toHaveLength(1);
  });

  it('reports a write that got one 429 as not sent, with the budget, and claims no backoff', async () => {
    const connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none', SVC_RATE_LIMIT: '80/60s' }) });
    open.push(connection);
    sandbox.clearRequests();
    sandbox.injectFaults([{ method: 'POST', path: '/v2/hc-folders/public', status: 429 }]);
    const { isError, text } = seen(await connection.call('create_folder', { name: 'Limited' }));
    expect(isError).toBe(true);
    expect(text).toMatch(/^Not sent: the API refused the write as rate limited \(429\), so nothing changed/);
    expect(text).toContain('80 requests per 60 s (SVC_RATE_LIMIT)');
    expect(text).not.toMatch(/backing off|backoff|retr(y|ied) after/i);
    expect(apiRequests(sandbox).filter((request) => request.method === 'POST')).toHaveLength(1);
  });
});
