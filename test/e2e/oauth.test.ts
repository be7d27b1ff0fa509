import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { apiRequests, initializeRequest } from '../support/harness.js';
import { connectHttp } from '../support/http-harness.js';
import { useSandbox } from '../support/fixture.js';
import { freePort } from '../support/network.js';
import { allowOnPage, connectWithTokens, hiddenFields, openPage, postForm, signIn, stateFiles, submitPage, TestOAuthClient } from '../support/oauth.js';
import { RUN_ENV } from '../support/run-env.js';

/**
 * SVC_AUTH=oauth end to end, in process: the SDK client's own OAuth support registers, the test plays the
 * browser on the authorization page, and the tools run with the key the person typed.
 */
const SECRET = 'a-test-secret-of-at-least-32-characters!';
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-oauth-'));
const logs: string[] = [];
/** Every credential this file saw: none may be found in the state folder or the logs. */
const secretsSeen = new Set<string>();

const sandbox = useSandbox();
let server: HttpServerHandle;
let publicUrl: string;
let mcpUrl: string;
const others: HttpServerHandle[] = [];

async function start(options: { publicUrl: string; secret?: string; port?: number; args?: string[] }): Promise<HttpServerHandle> {
  const config = loadConfig(
    ['--transport', 'http', '--http-port', String(options.port ?? 0), '--base-url', sandbox.url, '--auth', 'oauth', '--public-url', options.publicUrl, ...(options.args ?? [])],
    { ...RUN_ENV, SVC_STATE_DIR: stateDir, SVC_AUTH_SECRET: options.secret ?? SECRET },
  );
  const logger = createLogger('info', 'json', { write: (line: string) => void logs.push(line) });
  return startHttpServer(await createRuntime(config, logger));
}

beforeAll(async () => {
  for (const key of Object.values(sandbox.keys)) secretsSeen.add(key);
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  mcpUrl = `${publicUrl}/mcp`;
  server = await start({ publicUrl, port });
});

afterAll(async () => {
  await Promise.all([server, ...others].map((handle) => handle?.shutdown('test over')));
  rmSync(stateDir, { recursive: true, force: true });
});

/** Registration and the page, by the SDK's `auth()`; what a client holds before its token request. */
async function authorizationCode(key = sandbox.keys.admin, options: { readOnly?: boolean } = {}) {
  const oauth = new TestOAuthClient();
  expect(await auth(oauth, { serverUrl: mcpUrl })).toBe('REDIRECT');
  const answer = await allowOnPage(oauth.authorizationUrl!, key, options);
  expect(answer.status).toBe(303);
  const code = new URL(answer.location!).searchParams.get('code')!;
  secretsSeen.add(code);
  return { oauth, code, clientId: oauth.information!.client_id };
}

async function exchange(grant: { oauth: TestOAuthClient; code: string; clientId: string }, verifier = grant.oauth.verifier) {
  const answer = await postForm(`${publicUrl}/token`, {
    grant_type: 'authorization_code',
    code: grant.code,
    code_verifier: verifier,
    client_id: grant.clientId,
    redirect_uri: grant.oauth.redirectUrl,
  });
  remember(answer.json);
  return answer;
}

async function refresh(clientId: string, refreshToken: string) {
  const answer = await postForm(`${publicUrl}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  remember(answer.json);
  return answer;
}

function remember(tokens: Record<string, unknown>) {
  for (const field of ['access_token', 'refresh_token']) if (typeof tokens[field] === 'string') secretsSeen.add(tokens[field] as string);
}

/** What /mcp answers an initialize with this bearer. */
async function initializeWith(token: string, url = mcpUrl) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify(initializeRequest('t')),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

describe('OAuth sign-in with the SDK client', () => {
  it('registers, authorizes on the page, exchanges the code, and calls tools upstream with the key the person typed', async () => {
    // The workspace's own read-only key, so the upstream record tells it apart from any key of the server.
    const signed = await signIn(mcpUrl, sandbox.keys.readOnly);
    remember(signed.oauth.saved as unknown as Record<string, unknown>);
    const result = await signed.call('list_agents');
    expect(result.isError).toBeFalsy();
    const requests = apiRequests(sandbox);
    // One key check on the page, one call.
    expect(requests.map((request) => `${request.method} ${request.path} ${request.keyName}`)).toEqual(['GET /v2/bots/public readOnly', 'GET /v2/bots/public readOnly']);
    expect(signed.oauth.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(signed.oauth.saved!.access_token).toMatch(/^svcmcp_at_/);
    expect(JSON.stringify(signed.oauth.saved)).not.toContain(sandbox.keys.readOnly);
    await signed.close();
  });

  it('publishes what Claude and ChatGPT check: path-qualified RFC 9728 metadata, RFC 8414 metadata with CIMD, none, offline_access and iss, and a 401 naming both', async () => {
    const [prm, rootPrm, as] = await Promise.all(
      ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server'].map(
        async (route) => (await fetch(`${publicUrl}${route}`)).json() as Promise<Record<string, unknown>>,
      ),
    );
    expect(prm).toMatchObject({ resource: mcpUrl, authorization_servers: [`${publicUrl}/`], scopes_supported: ['workspace', 'offline_access'] });
    expect(rootPrm).toEqual(prm);
    expect(as).toMatchObject({
      issuer: `${publicUrl}/`,
      authorization_endpoint: `${publicUrl}/authorize`,
      token_endpoint: `${publicUrl}/token`,
      registration_endpoint: `${publicUrl}/register`,
      revocation_endpoint: `${publicUrl}/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
    // A public client revokes by its client_id alone (the revocation test below), so the metadata says so.
    expect(as.revocation_endpoint_auth_methods_supported).toEqual(as.token_endpoint_auth_methods_supported);
    expect(as.scopes_supported).toContain('offline_access');
    const anonymous = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp", scope="workspace"`);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toContain('OAuth');
    const unknown = await initializeWith('svcmcp_at_not-a-token');
    expect(unknown.status).toBe(401);
    expect(unknown.challenge).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", scope="workspace"$/,
    );
  });

  it('sends iss (RFC 9207) with the code, and with an error sent back to an allowed return address', async () => {
    const grant = await authorizationCode();
    const signedIn = await allowOnPage(grant.oauth.authorizationUrl!, sandbox.keys.admin);
    expect(new URL(signedIn.location!).searchParams.get('iss')).toBe(`${publicUrl}/`);
    secretsSeen.add(new URL(signedIn.location!).searchParams.get('code')!);
    const refused = new URL(grant.oauth.authorizationUrl!);
    refused.searchParams.set('resource', 'https://other.example.com/mcp');
    const back = new URL((await openPage(refused)).location!);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    expect(back.searchParams.get('iss')).toBe(`${publicUrl}/`);
  });

  it('still serves a bearer workspace key (CLI clients, scripts)', async () => {
    const connection = await connectHttp(mcpUrl, { key: sandbox.keys.admin });
    expect((await connection.client.listTools()).tools.length).toBeGreaterThan(10);
    await connection.close();
  });
});

describe('the authorization page', () => {
  it('names the client and where it returns, and cannot be framed, scripted or leak its address', async () => {
    const oauth = new TestOAuthClient('Acme <b>Assistant</b>');
    await auth(oauth, { serverUrl: mcpUrl });
    const page = await openPage(oauth.authorizationUrl!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('calls itself <strong>“Acme &#60;b&#62;Assistant&#60;/b&#62;”</strong>');
    expect(page.html).toContain('you return to <strong>127.0.0.1:9</strong>');
    expect(page.html).toContain('type="password"');
    expect(page.html).toContain('name="access" value="read"');
    expect(page.html).not.toContain('<script');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9;");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a wrong key on the page with a clear message, then accepts the right one on the same request', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const fields = hiddenFields((await openPage(oauth.authorizationUrl!)).html);
    const revoked = await submitPage(oauth.authorizationUrl!, { ...fields, api_key: sandbox.keys.revoked, decision: 'allow' });
    expect(revoked.status).toBe(400);
    expect(revoked.location).toBeUndefined();
    expect(revoked.html).toContain('The workspace API refused this key');
    expect(revoked.html).not.toContain(sandbox.keys.revoked);
    const malformed = await submitPage(oauth.authorizationUrl!, { ...fields, api_key: 'sk-live-123', decision: 'allow' });
    expect(malformed.html).toContain('That is not a workspace API key');
    expect(apiRequests(sandbox).map((request) => request.keyName)).toEqual(['revoked']);
    const right = await submitPage(oauth.authorizationUrl!, { ...fields, api_key: sandbox.keys.admin, decision: 'allow' });
    expect(right.status).toBe(303);
    expect(new URL(right.location!).searchParams.get('code')).toBeTruthy();
    expect(new URL(right.location!).origin + new URL(right.location!).pathname).toBe(oauth.redirectUrl);
    secretsSeen.add(new URL(right.location!).searchParams.get('code')!);
  });

  it('binds the form to its own authorization request (CSRF), whatever Origin the browser sends', async () => {
    const victim = new TestOAuthClient();
    await auth(victim, { serverUrl: mcpUrl });
    const victimFields = hiddenFields((await openPage(victim.authorizationUrl!)).html);
    const attacker = new TestOAuthClient();
    await auth(attacker, { serverUrl: mcpUrl });
    const attackerFields = hiddenFields((await openPage(attacker.authorizationUrl!)).html);
    // The attacker's own request token on the victim's request, and the reverse: both dead ends.
    for (const fields of [
      { ...victimFields, request: attackerFields.request },
      { ...attackerFields, request: victimFields.request },
    ]) {
      const answer = await submitPage(victim.authorizationUrl!, { ...fields, api_key: sandbox.keys.admin, decision: 'allow' });
      expect(answer.status).toBe(400);
      expect(answer.location).toBeUndefined();
      expect(answer.html).toContain('expired');
    }
    // Without a request token the form is only shown again.
    const { request: _dropped, ...withoutToken } = victimFields;
    const bare = await submitPage(victim.authorizationUrl!, { ...withoutToken, api_key: sandbox.keys.admin, decision: 'allow' });
    expect(bare.status).toBe(200);
    expect(bare.location).toBeUndefined();
    // Chromium sends Origin: null under Referrer-Policy: no-referrer; the binding does not depend on it.
    const allowed = await submitPage(victim.authorizationUrl!, { ...victimFields, api_key: sandbox.keys.admin, decision: 'allow' }, { origin: 'null' });
    expect(allowed.status).toBe(303);
    secretsSeen.add(new URL(allowed.location!).searchParams.get('code')!);
    const again = await submitPage(victim.authorizationUrl!, { ...victimFields, api_key: sandbox.keys.admin, decision: 'allow' });
    expect(again.status).toBe(400);
  });

  it('sends the person back with access_denied when they cancel', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const fields = hiddenFields((await openPage(oauth.authorizationUrl!)).html);
    const answer = await submitPage(oauth.authorizationUrl!, { ...fields, decision: 'deny' });
    const back = new URL(answer.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe(`${publicUrl}/`);
    expect(back.searchParams.get('code')).toBeNull();
    expect(apiRequests(sandbox)).toEqual([]);
  });
});

describe('tokens', () => {
  it('refuses a wrong PKCE verifier, and a code used twice ends what it gave', async () => {
    const grant = await authorizationCode();
    const wrong = await exchange(grant, 'x'.repeat(43));
    expect(wrong).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const right = await exchange(grant);
    expect(right.status).toBe(200);
    expect((await initializeWith(right.json.access_token as string)).status).toBe(200);
    const replay = await exchange(grant);
    expect(replay).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    expect((await initializeWith(right.json.access_token as string)).status).toBe(401);
    expect((await refresh(grant.clientId, right.json.refresh_token as string)).status).toBe(400);
  });

  it('rotates refresh tokens, and a replayed one ends the grant for everyone (theft)', async () => {
    const grant = await authorizationCode();
    const first = (await exchange(grant)).json;
    const second = await refresh(grant.clientId, first.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.json.refresh_token).not.toBe(first.refresh_token);
    expect(second.json.access_token).not.toBe(first.access_token);
    expect((await initializeWith(second.json.access_token as string)).status).toBe(200);
    const replayed = await refresh(grant.clientId, first.refresh_token as string);
    expect(replayed).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    expect((await initializeWith(second.json.access_token as string)).status).toBe(401);
    expect((await refresh(grant.clientId, second.json.refresh_token as string)).status).toBe(400);
    expect(logs.join('')).toContain('a used refresh token was presented again');
  });

  it('revokes an access token, and with a refresh token the whole grant (RFC 7009)', async () => {
    const grant = await authorizationCode();
    const tokens = (await exchange(grant)).json;
    const stranger = await authorizationCode();
    // Another client's revocation of this token is ignored, as the RFC asks.
    expect((await postForm(`${publicUrl}/revoke`, { token: tokens.access_token as string, client_id: stranger.clientId })).status).toBe(200);
    expect((await initializeWith(tokens.access_token as string)).status).toBe(200);
    expect((await postForm(`${publicUrl}/revoke`, { token: tokens.access_token as string, client_id: grant.clientId })).status).toBe(200);
    expect((await initializeWith(tokens.access_token as string)).status).toBe(401);
    const renewed = (await refresh(grant.clientId, tokens.refresh_token as string)).json;
    expect((await initializeWith(renewed.access_token as string)).status).toBe(200);
    await postForm(`${publicUrl}/revoke`, { token: renewed.refresh_token as string, client_id: grant.clientId, token_type_hint: 'refresh_token' });
    expect((await initializeWith(renewed.access_token as string)).status).toBe(401);
  });

  it("keeps a confidential client's secret sealed, and checks it at the token endpoint", async () => {
    const oauth = new (class extends TestOAuthClient {
      override get clientMetadata() {
        return { ...super.clientMetadata, token_endpoint_auth_method: 'client_secret_post' };
      }
    })();
    await auth(oauth, { serverUrl: mcpUrl });
    const secret = oauth.information!.client_secret!;
    expect(secret).toBeTruthy();
    secretsSeen.add(secret);
    const answer = await allowOnPage(oauth.authorizationUrl!, sandbox.keys.admin);
    const code = new URL(answer.location!).searchParams.get('code')!;
    secretsSeen.add(code);
    const fields = { grant_type: 'authorization_code', code, code_verifier: oauth.verifier, client_id: oauth.information!.client_id, redirect_uri: oauth.redirectUrl };
    expect(await postForm(`${publicUrl}/token`, { ...fields, client_secret: `${secret}x` })).toMatchObject({ status: 400, json: { error: 'invalid_client' } });
    const tokens = await postForm(`${publicUrl}/token`, { ...fields, client_secret: secret });
    remember(tokens.json);
    expect(tokens.status).toBe(200);
  });

  it("binds tokens to this server's /mcp (RFC 8707): another resource is refused at every step", async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: mcpUrl });
    const elsewhere = new URL(oauth.authorizationUrl!);
    elsewhere.searchParams.set('resource', 'https://other.example.com/mcp');
    // No one has allowed this client yet: the error is shown on the server's page, not sent to its return address.
    const refused = await openPage(elsewhere);
    expect(refused).toMatchObject({ status: 400, location: undefined });
    expect(refused.html).toContain('This server grants access to');
    const grant = await authorizationCode();
    // Once a person allowed a client, its errors go back to the return address they allowed.
    const allowed = new URL(grant.oauth.authorizationUrl!);
    allowed.searchParams.set('resource', 'https://other.example.com/mcp');
    expect(new URL((await openPage(allowed)).location!).searchParams.get('error')).toBe('invalid_target');
    const wrongTarget = await postForm(`${publicUrl}/token`, {
      grant_type: 'authorization_code',
      code: grant.code,
      code_verifier: grant.oauth.verifier,
      client_id: grant.clientId,
      resource: 'https://other.example.com/mcp',
    });
    expect(wrongTarget).toMatchObject({ status: 400, json: { error: 'invalid_target' } });
    const tokens = (await exchange(grant)).json;
    // A server with another public URL, sharing the state and the secret: the token is not for it.
    const other = await start({ publicUrl: 'https://other.example.com' });
    others.push(other);
    const answer = await initializeWith(tokens.access_token as string, other.url);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('issued for another resource');
  });

  it('refuses any token it did not issue exactly, character for character', async () => {
    const tokens = (await exchange(await authorizationCode())).json;
    const token = tokens.access_token as string;
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom('a', 'B', '0', '-', '_', ''), async (at, replacement) => {
        const altered = token.slice(0, at) + replacement + token.slice(at + 1);
        fc.pre(altered !== token);
        expect((await initializeWith(altered)).status).toBe(401);
      }),
      { numRuns: 25 },
    );
  });
});

describe('grants', () => {
  it('a read-only grant lists and runs read tools only', async () => {
    const full = await signIn(mcpUrl, sandbox.keys.admin);
    const readOnly = await signIn(mcpUrl, sandbox.keys.admin, { readOnly: true });
    remember(full.oauth.saved as unknown as Record<string, unknown>);
    remember(readOnly.oauth.saved as unknown as Record<string, unknown>);
    const all = (await full.client.listTools()).tools;
    const reads = (await readOnly.client.listTools()).tools;
    const writes = all.filter((tool) => tool.annotations?.readOnlyHint === false);
    expect(writes.length).toBeGreaterThan(5);
    expect(reads.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(reads.length).toBe(all.length - writes.length);
    sandbox.clearRequests();
    await expect(readOnly.call(writes[0].name)).rejects.toThrow(/the access granted when this application was signed in is read-only \(the person chose "Read only"\)/);
    expect(apiRequests(sandbox)).toEqual([]);
    // A read-only token cannot ride a session opened with read and write access.
    const hijack = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${readOnly.oauth.saved!.access_token}`,
        'mcp-session-id': full.transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }),
    });
    expect(hijack.status).toBe(403);
    await Promise.all([full.close(), readOnly.close()]);
  });

  it('survive a restart: another runtime on the same SVC_STATE_DIR and secret honours them, another secret does not', async () => {
    const signed = await signIn(mcpUrl, sandbox.keys.admin);
    remember(signed.oauth.saved as unknown as Record<string, unknown>);
    await signed.close();
    const restarted = await start({ publicUrl });
    const wrongSecret = await start({ publicUrl, secret: 'another-secret-of-at-least-32-characters' });
    others.push(restarted, wrongSecret);
    sandbox.clearRequests();
    const again = await connectWithTokens(restarted.url, signed.oauth);
    await again.call('list_agents');
    expect(apiRequests(sandbox).map((request) => request.keyName)).toEqual(['admin']);
    await again.close();
    expect((await initializeWith(signed.oauth.saved!.access_token, wrongSecret.url)).status).toBe(401);
  });

  it('keep no secret in plain text: not in the state folder, not in a log line', () => {
    expect(secretsSeen.size).toBeGreaterThan(20);
    const forms = [...secretsSeen].flatMap((secret) => [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url'), Buffer.from(secret).toString('hex')]);
    const files = stateFiles(stateDir);
    expect(files.length).toBeGreaterThan(20);
    const stored = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(stored).toContain('sealedKey');
    const log = logs.join('');
    for (const form of forms) {
      expect(stored).not.toContain(form);
      expect(log).not.toContain(form);
    }
  });
});
