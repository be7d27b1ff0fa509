import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { DOCUMENT_LIMITS } from '../../src/oauth/client-documents.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { clientDocument, huge, json, redirect, slow, startDocumentHost, type DocumentHandler, type DocumentHost } from '../support/client-documents.js';
import { apiRequests } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';
import { openPage, postForm, signIn, TestOAuthClient } from '../support/oauth.js';
import { RUN_ENV } from '../support/run-env.js';

/**
 * Client ID Metadata Documents (design §17) end to end: the SDK client's own CIMD support names its
 * document's URL as its client_id, the document is served over https on loopback, the page is
 * answered, and the token makes calls. Then the same flow with every document an attacker would
 * serve, each refused with a page that says why, no code, and a token endpoint that does not know
 * the client. The page in Chromium: test/views/oauth.browser.ts; against dist/: the guarantees.
 */
const SECRET = 'a-test-secret-of-at-least-32-characters!';
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-oauth-cimd-'));
const sandbox = useSandbox();
const logs: string[] = [];
let host: DocumentHost;
let server: HttpServerHandle;
let hosted: HttpServerHandle;
let publicUrl: string;
let mcpUrl: string;
const CALLBACK = 'http://127.0.0.1:9/callback';

async function start(publicUrlOf: (port: number) => string): Promise<HttpServerHandle> {
  const port = await freePort();
  const config = loadConfig(['--transport', 'http', '--http-port', String(port), '--base-url', sandbox.url, '--auth', 'oauth', '--public-url', publicUrlOf(port)], {
    ...RUN_ENV,
    SVC_STATE_DIR: stateDir,
    SVC_AUTH_SECRET: SECRET,
  });
  return startHttpServer(await createRuntime(config, createLogger('info', 'json', { write: (line: string) => void logs.push(line) })));
}

beforeAll(async () => {
  host = await startDocumentHost();
  server = await start((port) => `http://127.0.0.1:${port}`);
  publicUrl = server.url.replace(/\/mcp$/, '');
  mcpUrl = server.url;
  // A server as deployed: its public URL is not loopback, so documents on private addresses are refused.
  hosted = await start(() => 'https://mcp.example.com');
});

afterAll(async () => {
  await Promise.all([server?.shutdown('test over'), hosted?.shutdown('test over'), host?.close()]);
  rmSync(stateDir, { recursive: true, force: true });
});

/** A document at `name` on the https host: by default a good one for the test client's return address. */
function serveDocument(name: string, handler?: DocumentHandler): string {
  return host.serve(name, handler ?? json(clientDocument(host.url(name), [CALLBACK])));
}

/** An authorization link as a client would send the person (to the server whose /mcp is `serverUrl`). */
function authorizeLink(serverUrl: string, clientId: string, extra: Record<string, string> = {}): URL {
  const url = new URL('/authorize', serverUrl);
  for (const [name, value] of Object.entries({ client_id: clientId, redirect_uri: CALLBACK, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', ...extra })) {
    url.searchParams.set(name, value);
  }
  return url;
}

/** The SDK client's first steps with its document's URL: it takes the URL as its client_id and sends the person to the page. */
async function authorizationUrl(documentUrl: string, serverUrl = mcpUrl): Promise<{ oauth: TestOAuthClient; url: URL }> {
  const oauth = new TestOAuthClient('ignored: the document names the client', CALLBACK, documentUrl);
  expect(await auth(oauth, { serverUrl })).toBe('REDIRECT');
  expect(oauth.information?.client_id).toBe(documentUrl);
  return { oauth, url: oauth.authorizationUrl! };
}

describe('a client known by its metadata document', () => {
  it('signs in with the SDK client: no registration, the page names the document host, the token calls tools and refreshes', async () => {
    const documentUrl = serveDocument('good.json');
    const oauth = new TestOAuthClient('ignored', CALLBACK, documentUrl);
    const signed = await signIn(mcpUrl, sandbox.keys.readOnly, { oauth });
    expect(oauth.information).toMatchObject({ client_id: documentUrl });
    expect(oauth.information).not.toHaveProperty('client_secret');
    expect((await signed.call('list_agents')).isError).toBeFalsy();
    expect(apiRequests(sandbox).map((request) => request.keyName)).toEqual(['readOnly', 'readOnly']);
    const refreshed = await postForm(`${publicUrl}/token`, { grant_type: 'refresh_token', refresh_token: oauth.saved!.refresh_token!, client_id: documentUrl });
    expect(refreshed.status).toBe(200);
    await signed.close();
    const page = await openPage((await authorizationUrl(documentUrl)).url);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`An application at <strong>${new URL(documentUrl).host}</strong> that calls itself <strong>“Document client”</strong>`);
    expect(logs.join('\n')).not.toContain('oauth client registered');
  });

  it('keeps a document as long as its caching headers say, and fetches a no-store one each time', async () => {
    const kept = host.serve('kept.json', json(clientDocument(host.url('kept.json'), [CALLBACK]), { 'cache-control': 'max-age=300' }));
    const unkept = host.serve('unkept.json', json(clientDocument(host.url('unkept.json'), [CALLBACK]), { 'cache-control': 'no-store' }));
    for (let round = 0; round < 3; round++) {
      for (const documentUrl of [kept, unkept]) expect((await openPage((await authorizationUrl(documentUrl)).url)).status).toBe(200);
    }
    expect(host.hits('kept.json')).toBe(1);
    expect(host.hits('unkept.json')).toBe(3);
  });
});

describe('documents refused, each with a page that says why and no code', () => {
  /** What the document does, how it is served, why the page says it was refused; the token endpoint then knows no such client, except where the document itself is fine. */
  const refusals: Array<[string, (name: string) => DocumentHandler, RegExp, string?]> = [
    ['whose client_id differs from its URL', () => json(clientDocument(host.url('someone-else.json'), [CALLBACK])), /names the client_id .* not its own URL/],
    ['whose client_id differs by a trailing slash', (name) => json(clientDocument(`${host.url(name)}/`, [CALLBACK])), /not its own URL/],
    ['whose redirect_uris lack the one asked for', (name) => json(clientDocument(host.url(name), ['http://127.0.0.1:9/elsewhere'])), /Unregistered redirect_uri/, 'invalid_grant'],
    ['that redirects to a good document', () => redirect(serveDocument('target.json')), /redirects \(HTTP 302\); redirects are not followed/],
    ['that is too large, declared', (name) => huge(host.url(name), 70 * 1024, true), /larger than 64 KB/],
    ['that is too large, chunked', (name) => huge(host.url(name), 70 * 1024, false), /larger than 64 KB/],
    ['that is served as HTML', (name) => (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(JSON.stringify(clientDocument(host.url(name), [CALLBACK]))), /served as text\/html/],
    ['that holds a client secret', (name) => json(clientDocument(host.url(name), [CALLBACK], { client_secret: 'shh' })), /client_secret/],
    ['that is not there', () => (_req, res) => res.writeHead(404).end(), /answered HTTP 404/],
  ];

  it.each(refusals)('a document %s', async (_what, handler, reason, tokenError = 'invalid_client') => {
    const name = `refused-${Math.random().toString(36).slice(2)}.json`;
    const documentUrl = host.serve(name, handler(name));
    const { url } = await authorizationUrl(documentUrl);
    const page = await openPage(url);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.location).toBeUndefined();
    expect(page.html.replaceAll('&#34;', '"').replaceAll('&#39;', "'")).toMatch(reason);
    expect(page.html).not.toContain('"error":');
    const token = await postForm(`${publicUrl}/token`, { grant_type: 'authorization_code', code: 'x', code_verifier: 'v'.repeat(43), client_id: documentUrl });
    expect(token).toMatchObject({ status: 400, json: { error: tokenError } });
  });

  it('a document that is too slow: cut off at the time limit though a byte arrives every 100 ms', async () => {
    const limit = DOCUMENT_LIMITS.timeoutMs;
    DOCUMENT_LIMITS.timeoutMs = 600;
    try {
      const { url } = await authorizationUrl(host.serve('slow.json', slow(100)));
      const started = Date.now();
      const page = await openPage(url);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(page.status).toBe(400);
      expect(page.html).toContain('did not arrive within');
    } finally {
      DOCUMENT_LIMITS.timeoutMs = limit;
    }
  });

  it('a document on a private or loopback address while the server is not on loopback: refused before any connection', async () => {
    const before = host.connections();
    for (const documentUrl of [serveDocument('private.json'), serveDocument('private.json').replace('127.0.0.1', 'localhost'), serveDocument('private.json').replace('127.0.0.1', '[::1]')]) {
      const page = await openPage(authorizeLink(hosted.url, documentUrl));
      expect(page.status).toBe(400);
      expect(page.html).toMatch(/is at (127\.0\.0\.1|::1), which is not a public address/);
    }
    expect(host.connections()).toBe(before);
  });
});

describe('first contact: an application this server does not know', () => {
  it('gets a page of guidance rather than JSON, and an application on this machine is sent invalid_client with iss', async () => {
    const unknown = authorizeLink(mcpUrl, 'static-client-id', { state: 's1' });
    const page = await openPage(unknown);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.html).toContain('This server does not know the application');
    expect(page.html).toContain('connect again');
    const refresh = /<meta http-equiv="refresh" content="\d+; url=([^"]+)">/.exec(page.html)?.[1];
    const back = new URL(refresh!.replaceAll('&#38;', '&'));
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'invalid_client', state: 's1', iss: `${publicUrl}/` });
    // A return address off this machine is not trusted with even an error.
    unknown.searchParams.set('redirect_uri', 'https://evil.example/callback');
    const elsewhere = await openPage(unknown);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.html).toContain('This server does not know the application');
    expect(elsewhere.html).not.toContain('evil.example');
  });
});

describe('dynamic registration stays the fallback', () => {
  it('registers a client that offers no document URL, and signs it in', async () => {
    const oauth = new TestOAuthClient('registers');
    const signed = await signIn(mcpUrl, sandbox.keys.admin, { oauth });
    expect(oauth.information?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await signed.call('list_agents')).isError).toBeFalsy();
    await signed.close();
  });

  it('honours application_type: web returns to https off this machine only, native may use loopback, anything else is refused', async () => {
    const register = async (metadata: Record<string, unknown>) => {
      const answer = await fetch(`${publicUrl}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'typed', token_endpoint_auth_method: 'none', ...metadata }),
      });
      return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
    };
    expect(await register({ application_type: 'web', redirect_uris: ['https://app.example/cb'] })).toMatchObject({ status: 201, json: { application_type: 'web' } });
    expect(await register({ application_type: 'native', redirect_uris: [CALLBACK] })).toMatchObject({ status: 201, json: { application_type: 'native' } });
    for (const uri of [CALLBACK, 'http://localhost:8080/cb', 'cursor://anysphere.cursor-retrieval/oauth']) {
      const refused = await register({ application_type: 'web', redirect_uris: ['https://app.example/cb', uri] });
      expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_client_metadata' } });
      expect(refused.json.error_description).toContain('application_type web');
    }
    expect(await register({ application_type: 'service', redirect_uris: [CALLBACK] })).toMatchObject({ status: 400, json: { error: 'invalid_client_metadata' } });
  });
});
