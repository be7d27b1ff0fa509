/**
 * Design §10.8 and §11 on the shipped binary: `dist/svc-mcp.js --sandbox --auth oauth --transport http`
 * (run `npm run build` first) signs a client in through OAuth end to end. The process runs on a
 * pseudo-terminal (`script`), as a person trying the flow would start it, since that is when it prints
 * the simulated workspace's keys to type on the page; its logs are JSON lines (SVC_LOG_FORMAT=json).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedEntry } from '../support/built.js';
import { clientDocument, huge, json, redirect, slow, startDocumentHost, TEST_CA, type DocumentHost } from '../support/client-documents.js';
import { freePort, waitForHealth } from '../support/network.js';
import { hiddenFields, openPage, postForm, signIn, stateFiles, submitPage, TestOAuthClient } from '../support/oauth.js';
import { ROOT } from '../support/paths.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { RUN_ENV } from '../support/run-env.js';

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-oauth-shipped-'));
let child: ChildProcess;
let output = '';
let base: string;
const keys: Record<string, string> = {};
const tokens: string[] = [];
/** The https host of clients' metadata documents, under the tests' CA, which each binary is told of as a private CA would be. */
let documents: DocumentHost;
/** The same binary as deployed: its public URL is not on loopback, so documents on private addresses are refused. */
let deployed: ChildProcess;
let deployedBase: string;

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

beforeAll(async () => {
  const entry = shippedEntry();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const command = [process.execPath, entry, '--sandbox', '--auth', 'oauth', '--transport', 'http', '--http-port', String(port), '--confirm', 'none'].map(quote).join(' ');
  child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    // A given secret, as a hosted server has: only then are grants kept on disk (a sandbox's throwaway secret keeps them in memory).
    env: {
      PATH: process.env.PATH ?? '',
      ...RUN_ENV,
      SVC_LOG_FORMAT: 'json',
      SVC_STATE_DIR: stateDir,
      SVC_AUTH_SECRET: 'oauth-guarantee-secret-of-32-characters!',
      TERM: 'dumb',
      NODE_EXTRA_CA_CERTS: TEST_CA,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForHealth(base, 30_000, () => child.exitCode !== null);
  for (let waited = 0; !/read only\s+svc_\w+/.test(output) && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  keys.admin = /read and write\s+(svc_\w+)/.exec(output)?.[1] ?? '';
  keys.readOnly = /read only\s+(svc_\w+)/.exec(output)?.[1] ?? '';
  if (!keys.admin || !keys.readOnly) throw new Error(`no sandbox keys on the terminal:\n${output}`);
  documents = await startDocumentHost();
  const deployedPort = await freePort();
  deployedBase = `http://127.0.0.1:${deployedPort}`;
  deployed = spawn(process.execPath, [entry, '--sandbox', '--auth', 'oauth', '--transport', 'http', '--http-port', String(deployedPort), '--public-url', 'https://mcp.example.com'], {
    env: { PATH: process.env.PATH ?? '', ...RUN_ENV, SVC_LOG_LEVEL: 'warn', NODE_EXTRA_CA_CERTS: TEST_CA },
    stdio: 'ignore',
  });
  await waitForHealth(deployedBase, 30_000, () => deployed.exitCode !== null);
});

afterAll(async () => {
  deployed?.kill('SIGTERM');
  await documents?.close();
  child?.kill('SIGTERM');
  if (child && child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  rmSync(stateDir, { recursive: true, force: true });
});

describe('the shipped binary with --sandbox --auth oauth', () => {
  it("publishes its metadata under the address it listens on (the sandbox's default public URL)", async () => {
    const resource = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource).toEqual(expect.objectContaining({ resource: `${base}/mcp`, authorization_servers: [`${base}/`] }));
    const anonymous = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="workspace"`);
  });

  it("signs the SDK client in, and its calls carry the key typed on the page, not the server's own", async () => {
    const signed = await signIn(`${base}/mcp`, keys.readOnly);
    tokens.push(signed.oauth.saved!.access_token, signed.oauth.saved!.refresh_token!);
    const read = await signed.call('list_agents');
    expect(read.isError).toBeFalsy();
    // The workspace's read-only key may not write: the sandbox's 403 shows which key went upstream.
    const write = await signed.call('create_tag', { tagGroupId: 'tg_1', tagName: 'oauth' });
    expect(write.isError).toBe(true);
    expect(JSON.stringify(write.content)).toMatch(/403|scope/i);
    await signed.close();
  });

  it('refuses a wrong key on the page and gives no code', async () => {
    const oauth = new TestOAuthClient();
    await auth(oauth, { serverUrl: `${base}/mcp` });
    const fields = hiddenFields((await openPage(oauth.authorizationUrl!)).html);
    const answer = await submitPage(oauth.authorizationUrl!, { ...fields, api_key: `svc_${'0'.repeat(32)}`, decision: 'allow' });
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toContain('refused this key');
  });

  it('keeps the key and the tokens out of its state folder and its log lines', async () => {
    const files = stateFiles(stateDir);
    expect(files.some((file) => file.includes('oauth-grant'))).toBe(true);
    const stored = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    const logLines = output.split(/\r?\n/).filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes('oauth access allowed'))).toBe(true);
    for (const secret of [keys.readOnly, ...tokens]) {
      for (const form of [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')]) {
        expect(stored).not.toContain(form);
        expect(logLines.join('\n')).not.toContain(form);
      }
    }
  });
});

describe('client ID metadata documents on the shipped binary (design §17)', () => {
  const CALLBACK = 'http://127.0.0.1:9/callback';
  const link = (origin: string, clientId: string) => {
    const url = new URL('/authorize', origin);
    for (const [name, value] of Object.entries({ client_id: clientId, redirect_uri: CALLBACK, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }))
      url.searchParams.set(name, value);
    return url;
  };

  it('advertises them, and signs in the SDK client that names its document, which no one registered', async () => {
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ client_id_metadata_document_supported: true, authorization_response_iss_parameter_supported: true });
    const documentUrl = documents.serve('client.json', json(clientDocument(documents.url('client.json'), [CALLBACK])));
    const oauth = new TestOAuthClient('ignored', CALLBACK, documentUrl);
    const signed = await signIn(`${base}/mcp`, keys.readOnly, { oauth });
    tokens.push(signed.oauth.saved!.access_token, signed.oauth.saved!.refresh_token!);
    expect(oauth.information?.client_id).toBe(documentUrl);
    expect((await signed.call('list_agents')).isError).toBeFalsy();
    await signed.close();
  });

  it.each([
    ['whose client_id is not its URL', (name: string) => json(clientDocument(`${documents.url(name)}x`, [CALLBACK])), 'not its own URL'],
    ['whose redirect_uris lack the one asked for', (name: string) => json(clientDocument(documents.url(name), ['http://127.0.0.1:9/other'])), 'Unregistered redirect_uri'],
    ['that redirects', () => redirect(documents.url('client.json')), 'redirects are not followed'],
    ['that is too large', (name: string) => huge(documents.url(name), 100 * 1024, false), 'larger than 64 KB'],
    ['that is too slow (5 s)', () => slow(200), 'did not arrive within 5 s'],
  ])('refuses a document %s, on a page, with no code', async (_what, handler, reason) => {
    const name = `refused-${Math.random().toString(36).slice(2)}.json`;
    const page = await openPage(link(base, documents.serve(name, handler(name))));
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.html).toContain(reason);
  });

  it('refuses a document on a private or loopback address when its public URL is not loopback, without connecting', async () => {
    const connections = documents.connections();
    const documentUrl = documents.serve('elsewhere.json', json(clientDocument(documents.url('elsewhere.json'), [CALLBACK])));
    for (const clientId of [documentUrl, documentUrl.replace('127.0.0.1', 'localhost')]) {
      const page = await openPage(link(deployedBase, clientId));
      expect(page.status).toBe(400);
      expect(page.html).toContain('which is not a public address');
      expect((await postForm(`${deployedBase}/token`, { grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId })).json).toMatchObject({ error: 'invalid_client' });
    }
    expect(documents.connections()).toBe(connections);
  });
});

describe('request bodies in the bundle, which carries Node decoders for iconv-lite (test/release/build.ts)', () => {
  it('reads a form in UTF-8 or Latin-1, and answers 415 to a charset it does not decode', async () => {
    const post = (charset: string, body: Buffer) => fetch(`${base}/token`, { method: 'POST', headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` }, body });
    for (const [charset, body] of [
      ['utf-8', Buffer.from('grant_type=refresh_token&refresh_token=é&client_id=nobody', 'utf8')],
      ['iso-8859-1', Buffer.from('grant_type=refresh_token&refresh_token=é&client_id=nobody', 'latin1')],
    ] as const) {
      const answer = await post(charset, body);
      expect(answer.status, charset).toBe(400);
      expect(await answer.json()).toMatchObject({ error: 'invalid_client' });
    }
    expect((await post('utf-16be', Buffer.from('grant_type=x', 'utf16le').swap16())).status).toBe(415);
  });
});
