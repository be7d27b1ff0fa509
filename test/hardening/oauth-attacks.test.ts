import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { storedId } from '../../src/state/store.js';
import { KeyVerifier } from '../../src/transports/http/key-check.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';
import { allowOnPage, hiddenFields, openPage, postForm, signIn, submitPage, TestOAuthClient } from '../support/oauth.js';
import { RUN_ENV } from '../support/run-env.js';

/**
 * Issue 32's OAuth findings, in process: an open redirect through a bad /authorize link, registrations
 * without limits on size or return addresses, short PKCE verifiers, fragments in `resource`, day-long
 * unused registrations, a cross-site consent POST that issued a code, and a page that forgot "Read only"
 * after a wrong key.
 */
const SECRET = 'a-test-secret-of-at-least-32-characters!';
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-oauth-attacks-'));
const sandbox = useSandbox();
let server: HttpServerHandle;
let publicUrl: string;
let mcpUrl: string;

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  mcpUrl = `${publicUrl}/mcp`;
  const config = loadConfig(['--transport', 'http', '--http-port', String(port), '--base-url', sandbox.url, '--auth', 'oauth', '--public-url', publicUrl], {
    ...RUN_ENV,
    SVC_STATE_DIR: stateDir,
    SVC_AUTH_SECRET: SECRET,
  });
  server = await startHttpServer(await createRuntime(config, createLogger('silent')));
});

afterAll(async () => {
  await server?.shutdown('test over');
  rmSync(stateDir, { recursive: true, force: true });
});

const register = (metadata: unknown, headers: Record<string, string> = {}) =>
  fetch(`${publicUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata) });

async function registeredClient(redirectUri: string, name = 'attack tests'): Promise<string> {
  const answer = await register({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, redirectUri: string, extra: Record<string, string> = {}): URL {
  const url = new URL(`${publicUrl}/authorize`);
  for (const [name, value] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', ...extra })) {
    url.searchParams.set(name, value);
  }
  return url;
}

describe('error redirects (issue 32: open redirect)', () => {
  it('never send a person to a return address nobody allowed: every bad /authorize link shows our page', async () => {
    const clientId = await registeredClient('https://evil.example/landing');
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            response_type: fc.constantFrom('token', 'code id_token', ''),
            code_challenge_method: fc.constantFrom('plain', 'S256'),
            resource: fc.constantFrom('https://other.example/mcp', `${'x'}`, `${'http://127.0.0.1:1/mcp#x'}`),
          },
          { requiredKeys: [] },
        ),
        async (bad) => {
          const page = await openPage(authorizeUrl(clientId, 'https://evil.example/landing', bad as Record<string, string>));
          expect(page.location).toBeUndefined();
          expect([200, 400]).toContain(page.status);
        },
      ),
      { numRuns: 25 },
    );
    const refused = await openPage(authorizeUrl(clientId, 'https://evil.example/landing', { response_type: 'token' }));
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('This sign-in request cannot go on');
  });

  it('send a Cancel back to the return address the page showed', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const page = await openPage(oauth.authorizationUrl!);
    const cancelled = await submitPage(oauth.authorizationUrl!, { ...hiddenFields(page.html), decision: 'deny' });
    expect(cancelled.status).toBe(302);
    expect(new URL(cancelled.location!).searchParams.get('error')).toBe('access_denied');
  });
});

describe('registration (issue 32)', () => {
  it('answers 413 for a body over 16 KiB, declared or not, before or after reading it, and 413 not 500 for 120 KB', async () => {
    const big = (bytes: number) => ({ client_name: 'x'.repeat(bytes), redirect_uris: ['https://app.example/cb'] });
    expect((await register(big(17 * 1024))).status).toBe(413);
    expect((await register(big(120 * 1024))).status).toBe(413);
    // Chunked, no length declared: measured once parsed.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(big(20 * 1024))));
        controller.close();
      },
    });
    const streamed = await fetch(`${publicUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunked, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await register(big(1000))).status).toBe(201);
  });

  it('refuses a registration without a redirect URI', async () => {
    const answer = await register({ client_name: 'none', redirect_uris: [] });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('at least one redirect URI');
  });

  it('keeps an unused registration an hour, not a day', async () => {
    const clientId = await registeredClient('https://app.example/hour');
    const { expiresAt } = JSON.parse(readFileSync(path.join(stateDir, 'oauth-client', storedId(clientId)), 'utf8')) as { expiresAt: number };
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect(expiresAt - Date.now()).toBeGreaterThan(59 * 60_000);
  });
});

describe('PKCE and resource (issue 32)', () => {
  async function code(): Promise<{ oauth: TestOAuthClient; code: string; clientId: string }> {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const answer = await allowOnPage(oauth.authorizationUrl!, sandbox.keys.admin);
    return { oauth, code: new URL(answer.location!).searchParams.get('code')!, clientId: oauth.information!.client_id };
  }

  it('refuses a code_verifier outside 43-128 unreserved characters, without spending the code', async () => {
    const grant = await code();
    for (const verifier of ['a', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(50)} `, `${'a'.repeat(50)}+`]) {
      const answer = await postForm(`${publicUrl}/token`, { grant_type: 'authorization_code', code: grant.code, code_verifier: verifier, client_id: grant.clientId });
      expect(answer.status, verifier).toBe(400);
      expect(String(answer.json.error_description)).toContain('43 to 128 characters');
    }
    const right = await postForm(`${publicUrl}/token`, { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.oauth.verifier, client_id: grant.clientId });
    expect(right.status).toBe(200);
  });

  it('refuses a resource with a fragment at the page and at the token endpoint', async () => {
    const grant = await code();
    const answer = await postForm(`${publicUrl}/token`, {
      grant_type: 'authorization_code',
      code: grant.code,
      code_verifier: grant.oauth.verifier,
      client_id: grant.clientId,
      resource: `${mcpUrl}#x`,
    });
    expect(answer).toMatchObject({ status: 400, json: { error: 'invalid_target' } });
    const page = await openPage(authorizeUrl(grant.clientId, grant.oauth.redirectUrl, { resource: `${mcpUrl}#x` }));
    // This client was allowed before, with this return address: the error goes back there.
    expect(new URL(page.location!).searchParams.get('error_description')).toContain('must not have a fragment');
  });
});

describe('the consent page (issue 32)', () => {
  it('refuses a cross-site POST of the form, with the right fields and a key: no code', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const page = await openPage(oauth.authorizationUrl!);
    const fields = { ...hiddenFields(page.html), api_key: sandbox.keys.admin, decision: 'allow' };
    const crossSite: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, { origin: 'http://127.0.0.1:1' }];
    for (const headers of crossSite) {
      const answer = await submitPage(oauth.authorizationUrl!, fields, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.location).toBeUndefined();
    }
    // What our page itself sends passes: same origin, or `null` under no-referrer.
    const allowed = await submitPage(oauth.authorizationUrl!, fields, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(allowed.status).toBe(303);
  });

  it('keeps "Read only" after a wrong key, and the grant is read-only', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const page = await openPage(oauth.authorizationUrl!);
    for (const wrong of ['svc_wrongwrongwrong', 'not a key']) {
      const again = await submitPage(oauth.authorizationUrl!, { ...hiddenFields(page.html), api_key: wrong, access: 'read', decision: 'allow' });
      expect(again.status).toBe(400);
      expect(again.html).toMatch(/name="access" value="read" checked/);
    }
    const unticked = await submitPage(oauth.authorizationUrl!, { ...hiddenFields(page.html), api_key: 'svc_wrongwrongwrong', decision: 'allow' });
    expect(unticked.html).not.toMatch(/value="read" checked/);
  });

  it('shows a client name of hidden characters as no name, and one with U+202E escaped', async () => {
    for (const [name, shown] of [
      ['\u202e\u200b\u2800\u3164', 'An application without a name'],
      ['Claude\u202egnp.exe', 'Claude\\u202Egnp.exe'],
      ['\ufe0f\u{e0100}  ', 'An application without a name'],
    ] as const) {
      const clientId = await registeredClient('https://app.example/named', name);
      const page = await openPage(authorizeUrl(clientId, 'https://app.example/named'));
      expect(page.html).toContain(shown);
      expect(page.html).not.toMatch(/\u202e|\u200b|\u2800|\u3164|\ufe0f/u);
    }
  });

  it('names the grant, not SVC_READ_ONLY, when a read-only grant is asked to write', async () => {
    const signed = await signIn(mcpUrl, sandbox.keys.admin, { readOnly: true });
    try {
      await expect(signed.call('create_folder', { name: 'x' })).rejects.toThrow(/the access granted when this application was signed in is read-only/);
    } finally {
      await signed.close();
    }
  });
});

describe('client addresses on a dual-stack listener (an IPv4 client is ::ffff:a.b.c.d) behind a trusted proxy', () => {
  let dualStack: HttpServerHandle;
  let dualStackUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    dualStackUrl = `http://127.0.0.1:${port}`;
    const args = ['--transport', 'http', '--http-host', '::', '--http-port', String(port), '--base-url', sandbox.url, '--auth', 'oauth', '--public-url', dualStackUrl, '--trust-proxy', '127.0.0.1'];
    const config = loadConfig(args, { SVC_STATE_DIR: stateDir, SVC_AUTH_SECRET: SECRET, SVC_ALLOWED_HOSTS: `127.0.0.1:${port}` });
    dualStack = await startHttpServer(await createRuntime(config, createLogger('silent')));
  });

  afterAll(() => dualStack?.shutdown('test over'));

  it('counts a sign-in key check under the IPv4 address /mcp counts, not one ::ffff: share for every IPv4 client', async () => {
    const verify = vi.spyOn(KeyVerifier.prototype, 'verify');
    try {
      const oauth = new TestOAuthClient();
      expect(await auth(oauth, { serverUrl: `${dualStackUrl}/mcp` })).toBe('REDIRECT');
      const answer = await allowOnPage(oauth.authorizationUrl!, sandbox.keys.admin);
      expect(answer.status).toBe(303);
      expect(verify.mock.calls.map((call) => call[2])).toEqual(['127.0.0.1']);
    } finally {
      verify.mockRestore();
    }
  });

  it('counts the registration limit per forwarded client, as SVC_TRUST_PROXY names it: one spending its 100 an hour leaves the next its own', async () => {
    const registerAs = async (forwardedFor?: string) =>
      (
        await fetch(`${dualStackUrl}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
          body: JSON.stringify({ client_name: 'limit tests', redirect_uris: ['https://app.example/limit'], token_endpoint_auth_method: 'none' }),
        })
      ).status;
    const spent = await Promise.all(Array.from({ length: 101 }, () => registerAs('198.51.100.7')));
    expect(spent.filter((status) => status === 201)).toHaveLength(100);
    expect(spent.filter((status) => status === 429)).toHaveLength(1);
    expect(await registerAs('10.9.9.9, 198.51.100.7')).toBe(429);
    expect(await registerAs('198.51.100.8')).toBe(201);
    expect(await registerAs()).toBe(201);
  });
});
