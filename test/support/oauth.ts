import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { caller, type Connection } from './harness.js';

/**
 * The SDK client's own OAuth support, with the browser played by the test: the provider keeps what a
 * host would keep (registration, tokens, PKCE verifier) in memory and records where it was sent to sign in.
 */
export class TestOAuthClient implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  constructor(
    private readonly name = 'svc-mcp tests',
    /** By default never reached: the test reads the redirect's Location instead of following it. */
    readonly redirectUrl = 'http://127.0.0.1:9/callback',
    /** The client's own metadata document (CIMD): its client_id where the server supports them, else it registers. */
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export interface PageAnswer {
  status: number;
  /** Where the browser is sent next (the client's return address with code or error), if anywhere. */
  location?: string;
  html: string;
  headers: Headers;
}

/** The form's fields as the page wrote them (hidden inputs, HTML-unescaped). */
export function hiddenFields(html: string): Record<string, string> {
  const htmlUnescape = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[htmlUnescape(match[1])] = htmlUnescape(match[2]);
  return fields;
}

/** GET the authorization page. */
export async function openPage(url: URL | string): Promise<PageAnswer> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location') ?? undefined, html: await response.text(), headers: response.headers };
}

/** POST the page's form as a browser would, with what the person typed and chose. */
export async function submitPage(authorizationUrl: URL | string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
  const action = new URL('/authorize', authorizationUrl);
  const response = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, location: response.headers.get('location') ?? undefined, html: await response.text(), headers: response.headers };
}

/** The person's part: open the page, type the key, choose the access, submit. */
export async function allowOnPage(authorizationUrl: URL, key: string, options: { readOnly?: boolean } = {}): Promise<PageAnswer> {
  const page = await openPage(authorizationUrl);
  if (page.status !== 200) throw new Error(`authorization page answered ${page.status}: ${page.html}`);
  return submitPage(authorizationUrl, { ...hiddenFields(page.html), api_key: key, decision: 'allow', ...(options.readOnly ? { access: 'read' } : {}) });
}

export interface SignedIn {
  client: Client;
  call: Connection['call'];
  transport: StreamableHTTPClientTransport;
  oauth: TestOAuthClient;
  close(): Promise<void>;
}

/** Connects with the SDK's OAuth support: registration, the page, the code exchange, then a session on the access token. */
export async function signIn(mcpUrl: string, key: string, options: { readOnly?: boolean; oauth?: TestOAuthClient } = {}): Promise<SignedIn> {
  const oauth = options.oauth ?? new TestOAuthClient();
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth });
  const probe = new Client({ name: 'svc-mcp-oauth-tests', version: '1.0.0' });
  await probe.connect(first).then(
    () => {
      throw new Error('connected without signing in');
    },
    (error: unknown) => {
      if (!(error instanceof UnauthorizedError)) throw error;
    },
  );
  const answer = await allowOnPage(oauth.authorizationUrl!, key, options);
  const code = answer.location ? new URL(answer.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code from the page (status ${answer.status}): ${answer.html}`);
  await first.finishAuth(code);
  return connectWithTokens(mcpUrl, oauth);
}

/** A new session on the tokens `oauth` holds (refreshing them if the server asks). */
export async function connectWithTokens(mcpUrl: string, oauth: TestOAuthClient): Promise<SignedIn> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth });
  const client = new Client({ name: 'svc-mcp-oauth-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, call: caller(client), transport, oauth, close: () => client.close() };
}

/** A raw form POST to an OAuth endpoint (token, revoke), as a client's back end sends it. */
export async function postForm(url: string, fields: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Every file under the server's state folder (SVC_STATE_DIR), where grants and spent tokens are kept. */
export function stateFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    return statSync(file).isDirectory() ? stateFiles(file) : [file];
  });
}
