/**
 * The OAuth authorization page in Debian's Chromium (`npm run test:views`, CI only): a person types the
 * key and is sent back to the client with a code; a wrong key is refused on the page, which keeps the
 * person's choice of read-only; read-only is honoured; the page cannot be framed, nor its form posted
 * from another site. It also covers Chromium's two traps: under
 * `Referrer-Policy: no-referrer` the form's POST carries `Origin: null`, and a CSP `form-action 'self'`
 * would block the redirect back to the client.
 */
import http from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { clientDocument, json, startDocumentHost, type DocumentHost } from '../support/client-documents.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';
import { connectWithTokens, TestOAuthClient } from '../support/oauth.js';
import { keepScreenshot, launchBrowser, SCREENSHOTS } from './host.js';

const sandbox = useSandbox();
let server: HttpServerHandle;
let mcpUrl: string;
let browser: Browser;
let page: Page;
let stateDir: string;
/** The client's side: where the browser lands after the page, and a page of another site that tries to frame it. */
let clientSite: http.Server;
let clientOrigin: string;
let frameTarget = '';
/** Origin headers of the form's POSTs, as Chromium sent them. */
let postOrigins: Array<string | undefined> = [];
/** Clients' metadata documents, over https on loopback under the tests' CA (NODE_EXTRA_CA_CERTS, test/views/vitest.config.ts). */
let documents: DocumentHost;

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  const config = loadConfig(['--transport', 'http', '--http-port', String(port), '--base-url', sandbox.url, '--auth', 'oauth', '--public-url', `http://127.0.0.1:${port}`], {
    SVC_STATE_DIR: (stateDir = await mkdtemp(path.join(os.tmpdir(), 'svc-mcp-oauth-browser-'))),
    SVC_AUTH_SECRET: 'a-test-secret-of-at-least-32-characters!',
  });
  server = await startHttpServer(await createRuntime(config, createLogger('silent')));
  mcpUrl = server.url;
  clientSite = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      req.url === '/frame'
        ? `<!doctype html><title>another site</title><iframe src="${frameTarget}" width="600" height="400"></iframe>`
        : '<!doctype html><title>client</title><p>back at the client</p>',
    );
  });
  await new Promise<void>((resolve) => clientSite.listen(0, '127.0.0.1', resolve));
  clientOrigin = `http://127.0.0.1:${(clientSite.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  documents = await startDocumentHost();
});

afterAll(async () => {
  await browser?.close();
  await server?.shutdown('test over');
  await new Promise((resolve) => clientSite?.close(resolve));
  await documents?.close();
  await rm(stateDir, { recursive: true, force: true });
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  postOrigins = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') void request.allHeaders().then((headers) => postOrigins.push(headers.origin));
  });
});

/**
 * The server and the client's site listen on ports picked for each run, which the page names: the
 * screenshot shows SVC_HTTP_PORT's default and a fixed client port instead, so that the tracked
 * picture changes only when the page does. Only the text shown changes, not the form.
 */
async function showPortsFixed(shown: Page) {
  const ports: Array<[string, string]> = [
    [new URL(mcpUrl).host, '127.0.0.1:3000'],
    [new URL(clientOrigin).host, '127.0.0.1:8080'],
  ];
  await shown.evaluate((replacements) => {
    const { document, NodeFilter } = globalThis as unknown as { document: any; NodeFilter: { SHOW_TEXT: number } };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const [from, to] of replacements) node.textContent = node.textContent.replaceAll(from, to);
    }
  }, ports);
}

/** A client registered with a return address on the client's site, sent to the page as a host would send the person. */
async function startSignIn() {
  const oauth = new TestOAuthClient('Browser test client', `${clientOrigin}/callback`);
  expect(await auth(oauth, { serverUrl: mcpUrl })).toBe('REDIRECT');
  await page.goto(oauth.authorizationUrl!.href);
  return oauth;
}

/** What the client does with the code it got back: exchange it, then open a session on the tokens. */
async function finish(oauth: TestOAuthClient, code: string) {
  await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth }).finishAuth(code);
  return connectWithTokens(mcpUrl, oauth);
}

describe('the authorization page in Chromium', () => {
  it('takes the key and sends the person back to the client with a code, though the POST carries Origin: null', async () => {
    const oauth = await startSignIn();
    await expect(page.getByText('Browser test client')).toBeTruthy();
    expect(await page.locator('#api_key').getAttribute('type')).toBe('password');
    await showPortsFixed(page);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await keepScreenshot(`oauth-page-${scheme}`, await page.screenshot({ fullPage: true }));
    }
    await page.locator('#api_key').fill(sandbox.keys.admin);
    await Promise.all([page.waitForURL(`${clientOrigin}/callback?**`), page.getByRole('button', { name: 'Allow access' }).click()]);
    expect(postOrigins).toEqual(['null']);
    const code = new URL(page.url()).searchParams.get('code')!;
    expect(code).toBeTruthy();
    const signed = await finish(oauth, code);
    expect((await signed.client.listTools()).tools.some((tool) => tool.annotations?.readOnlyHint === false)).toBe(true);
    await signed.close();
    await page.close();
  });

  it('refuses a wrong key on the page, and takes the right one on a second try', async () => {
    await startSignIn();
    await page.locator('#api_key').fill(sandbox.keys.revoked);
    await page.getByRole('button', { name: 'Allow access' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('The workspace API refused this key');
    expect(page.url()).not.toContain(clientOrigin);
    expect(await page.content()).not.toContain(sandbox.keys.revoked);
    await page.locator('#api_key').fill(sandbox.keys.admin);
    await Promise.all([page.waitForURL(`${clientOrigin}/callback?**`), page.getByRole('button', { name: 'Allow access' }).click()]);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    await page.close();
  });

  it('honours read-only: the session lists read tools only', async () => {
    const oauth = await startSignIn();
    await page.locator('#api_key').fill(sandbox.keys.admin);
    await page.getByLabel(/Read only/).check();
    await Promise.all([page.waitForURL(`${clientOrigin}/callback?**`), page.getByRole('button', { name: 'Allow access' }).click()]);
    const signed = await finish(oauth, new URL(page.url()).searchParams.get('code')!);
    const { tools } = await signed.client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    await signed.close();
    await page.close();
  });

  it('keeps "Read only" after a wrong key, so the grant the person then makes is read-only (issue 32)', async () => {
    const oauth = await startSignIn();
    await page.getByLabel(/Read only/).check();
    for (const wrong of [sandbox.keys.revoked, 'not a key at all']) {
      await page.locator('#api_key').fill(wrong);
      await page.getByRole('button', { name: 'Allow access' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByLabel(/Read only/).isChecked(), `after ${wrong === sandbox.keys.revoked ? 'a refused key' : 'a malformed key'}`).toBe(true);
    }
    await page.locator('#api_key').fill(sandbox.keys.admin);
    await Promise.all([page.waitForURL(`${clientOrigin}/callback?**`), page.getByRole('button', { name: 'Allow access' }).click()]);
    const signed = await finish(oauth, new URL(page.url()).searchParams.get('code')!);
    const { tools } = await signed.client.listTools();
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    await signed.close();
    await page.close();
  });

  it('refuses its form posted from another site: no code, and the person stays off the client (issue 32)', async () => {
    const oauth = new TestOAuthClient('Cross-site', `${clientOrigin}/callback`);
    await auth(oauth, { serverUrl: mcpUrl });
    // The page's own fields, copied into a form on another site that posts itself there.
    await page.goto(oauth.authorizationUrl!.href);
    const fields = await page.locator('input[type=hidden]').evaluateAll((inputs) => inputs.map((input) => [input.getAttribute('name') ?? '', input.getAttribute('value') ?? '']));
    const hidden = fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${value.replaceAll('"', '&quot;')}">`).join('');
    frameTarget = '';
    await page.goto(`${clientOrigin}/frame`);
    await page.setContent(
      `<form method="post" action="${new URL('/authorize', mcpUrl).href}">${hidden}<input name="api_key" value="${sandbox.keys.admin}"><input name="decision" value="allow"></form><script>document.forms[0].submit()</script>`,
    );
    await page.waitForLoadState('load');
    await page.waitForURL(/\/authorize$/);
    expect(page.url()).not.toContain(`${clientOrigin}/callback`);
    expect(await page.content()).toContain('This form was not sent from this page');
    await page.close();
  });

  it('cannot be framed by another site', async () => {
    const oauth = new TestOAuthClient('Framed', `${clientOrigin}/callback`);
    await auth(oauth, { serverUrl: mcpUrl });
    frameTarget = oauth.authorizationUrl!.href;
    await page.goto(`${clientOrigin}/frame`);
    await page.waitForLoadState('load');
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    expect(await frame.locator('#api_key').count()).toBe(0);
    await page.close();
  });

  it('signs in a client known by its metadata document (CIMD): the page names its host, the code comes back with iss, the token calls', async () => {
    const callback = `${clientOrigin}/callback`;
    const documentUrl = documents.serve('browser-client.json', json(clientDocument(documents.url('browser-client.json'), [callback], { client_name: 'Document client in Chromium' })));
    const oauth = new TestOAuthClient('ignored', callback, documentUrl);
    expect(await auth(oauth, { serverUrl: mcpUrl })).toBe('REDIRECT');
    expect(oauth.information?.client_id).toBe(documentUrl);
    await page.goto(oauth.authorizationUrl!.href);
    expect(await page.locator('main p').first().textContent()).toContain(`An application at ${new URL(documentUrl).host} that calls itself “Document client in Chromium”`);
    await page.locator('#api_key').fill(sandbox.keys.admin);
    await Promise.all([page.waitForURL(`${callback}?**`), page.getByRole('button', { name: 'Allow access' }).click()]);
    const back = new URL(page.url());
    expect(back.searchParams.get('iss')).toBe(new URL('/', mcpUrl).href);
    const signed = await finish(oauth, back.searchParams.get('code')!);
    expect((await signed.client.callTool({ name: 'list_agents', arguments: {} })).isError).toBeFalsy();
    await signed.close();
    await page.close();
  });

  it('shows an unknown application a page of guidance, then sends the browser back to it with invalid_client', async () => {
    const link = new URL('/authorize', mcpUrl);
    for (const [name, value] of Object.entries({
      client_id: 'forgotten-client',
      redirect_uri: `${clientOrigin}/callback`,
      response_type: 'code',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      state: 'st',
    })) {
      link.searchParams.set(name, value);
    }
    await page.goto(link.href);
    expect(await page.locator('h1').textContent()).toBe('This server does not know the application');
    await page.waitForURL(`${clientOrigin}/callback?**`, { timeout: 10_000 });
    const back = new URL(page.url());
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'invalid_client', state: 'st', iss: new URL('/', mcpUrl).href });
    await page.close();
  });
});
