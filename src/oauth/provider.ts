import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ClientAddresses } from '../client-address.js';
import {
  AccessDeniedError,
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
  RETURN_SHOWN,
  type AuthInfo,
  type AuthorizationParams,
  type AuthorizationProvider,
  type ClientsStore,
} from './authorization-server.js';
import { authMethodOf, checkCodeChallenge, checkCodeVerifier, checkRedirectUris, checkResource, crossSiteRefusal } from './checks.js';
import { isDocumentUrl, type ClientDocuments } from './client-documents.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashKey } from '../redaction/key-hash.js';
import type { Runtime } from '../runtime.js';
import type { StateStore } from '../state/store.js';
import { KEY_SHAPE, type KeyCheck } from '../access.js';
import { visibleName } from '../hidden-characters.js';
import { authorizePage, messagePage, pageHeaders } from './page.js';
import { newSecret, Sealer } from './seal.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** How long each thing lives. Access tokens are short: a revoked grant or key stops working within one. */
export const LIFETIMES = {
  /** From showing the page to submitting it. */
  authorizationRequestMs: 10 * MINUTE,
  /** From the redirect back to the client to its token request. */
  codeMs: 5 * MINUTE,
  accessTokenMs: 60 * MINUTE,
  /** A refresh token, and the grant with it: each refresh starts a new period. */
  refreshTokenMs: 30 * DAY,
  /** A registration that has not yet led to a grant (dynamic registration is open to anyone). */
  unusedClientMs: 60 * MINUTE,
};

/** State spaces (see src/state/store.ts: ids are stored only as their SHA-256). */
const SPACE = {
  client: 'oauth-client',
  request: 'oauth-request',
  code: 'oauth-code',
  grant: 'oauth-grant',
  access: 'oauth-access',
  refresh: 'oauth-refresh',
  /** Codes and refresh tokens already used, with their grant: presenting one again revokes the grant (OAuth 2.1, section 4.3.1 and 4.1.3). */
  spent: 'oauth-spent',
  /** `<client id> <redirect URI>` a person allowed access for: the only places an error is sent back to. */
  approved: 'oauth-approved',
} as const;

/** A registered client as stored: the secret of a confidential client sealed, never in clear. */
type StoredClient = OAuthClientInformationFull & { sealed_secret?: string };

/** What a person agreed to, kept until its refresh token expires or it is revoked. */
interface Grant {
  clientId: string;
  resource: string;
  readOnly: boolean;
  /** The workspace API key, sealed to this grant's id. */
  sealedKey: string;
}

interface PendingRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  resource: string;
}

interface Code extends Grant {
  grantId: string;
  redirectUri: string;
  codeChallenge: string;
}

interface TokenRecord {
  grantId: string;
  clientId: string;
  resource: string;
  expiresAt: number;
}

/** What this provider uses of the express response the SDK hands to `authorize` (the SDK's types name express's, which this package does not install). */
interface PageResponse {
  req: IncomingMessage & { body?: unknown };
  locals: Record<string, unknown>;
  status(code: number): PageResponse;
  set(headers: Record<string, string>): PageResponse;
  send(body: string): void;
  redirect(status: number, url: string): void;
}

/** Who a request with an access token acts for: the grant's workspace key, and whether the grant is read-only. */
export interface Caller {
  key: string;
  readOnly: boolean;
}

/** An RFC 8707 resource as compared: a trailing slash aside, exactly (one with a fragment is refused before). */
export function sameResource(a: string | URL | undefined, b: string): boolean {
  const plain = (value: string | URL) => String(value).replace(/\/$/, '');
  return a !== undefined && plain(a) === plain(b);
}

/**
 * The OAuth server provider the SDK's authorization server (`mcpAuthRouter`) calls: the SDK parses and
 * checks requests (client, redirect URI, PKCE S256, grant types) and answers them; this class decides
 * and keeps what it decided in the runtime's state store, so every node of a fleet (Redis) or the next
 * start (SVC_STATE_DIR) honours it. Tokens are opaque random strings, stored only as their hashes.
 */
export class StateOAuthProvider implements AuthorizationProvider {
  private readonly state: StateStore;
  private readonly keys: Sealer;
  private readonly clientSecrets: Sealer;
  /** `<public-url>/mcp`: the one resource tokens are issued for. */
  readonly resource: string;
  /** The issuer identifier, sent as `iss` with every authorization response (RFC 9207). */
  private readonly issuer: string;

  constructor(
    private readonly runtime: Runtime,
    names: { resource: string; issuer: string },
    private readonly keyCheck: KeyCheck,
    private readonly documents: ClientDocuments,
    private readonly addresses: ClientAddresses,
  ) {
    this.state = runtime.state;
    this.resource = names.resource;
    this.issuer = names.issuer;
    this.keys = new Sealer(runtime.config.authSecret!, 'api key of a grant');
    this.clientSecrets = new Sealer(runtime.config.authSecret!, 'client secret');
  }

  /** Registered clients from the state store; a client_id that is an https URL, from its client metadata document (design §17). */
  readonly clientsStore: ClientsStore = {
    getClient: async (clientId) => {
      if (isDocumentUrl(clientId)) {
        const outcome = await this.documents.resolve(clientId);
        if ('client' in outcome) return outcome.client;
        this.runtime.logger.warn({ client: clientId, reason: outcome.refusal }, 'oauth client metadata document refused');
        return undefined;
      }
      const text = await this.state.get(SPACE.client, clientId);
      if (!text) return undefined;
      const { sealed_secret: sealed, ...client } = JSON.parse(text) as StoredClient;
      if (sealed === undefined) return client;
      const secret = this.clientSecrets.open(sealed, clientId);
      // A secret this SVC_AUTH_SECRET cannot open: the client is unknown here rather than public.
      return secret === undefined ? undefined : { ...client, client_secret: secret };
    },
    registerClient: async (client) => {
      const registered = { ...client, token_endpoint_auth_method: authMethodOf(client) } as OAuthClientInformationFull;
      checkRedirectUris(registered.redirect_uris);
      await this.saveClient(registered, Date.now() + LIFETIMES.unusedClientMs);
      this.runtime.logger.info({ client: registered.client_id, name: registered.client_name }, 'oauth client registered');
      return registered;
    },
  };

  /**
   * Shows the page (GET, or an OAuth POST), or acts on the page's form. The SDK has already checked the
   * client and its redirect URI, and hands back the same parameters for the form's POST, which carries
   * them in hidden fields: the request token must match them all, so a form cannot be replayed onto
   * another request (CSRF is refused by this binding, not by the Origin header, which Chromium sends as
   * `null` under `Referrer-Policy: no-referrer`).
   */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: PageResponse): Promise<void> {
    checkResource(params.resource);
    const resource = params.resource?.href ?? this.resource;
    if (!sameResource(resource, this.resource)) throw new InvalidTargetError(`This server grants access to ${this.resource} only`);
    checkCodeChallenge(params.codeChallenge);
    const form = (res.req.method === 'POST' ? res.req.body : undefined) as Record<string, unknown> | undefined;
    if (typeof form?.request === 'string') {
      const crossSite = crossSiteRefusal(res.req.headers, new URL(this.resource).origin);
      if (crossSite) return this.deadEnd(res, client, 403, 'This form was not sent from this page', `Nothing was done: ${crossSite}. Start again from the application.`);
      return this.decide(client, params, form, res);
    }
    const request = newSecret('');
    const pending: PendingRequest = { clientId: client.client_id, redirectUri: params.redirectUri, codeChallenge: params.codeChallenge, state: params.state, resource: this.resource };
    await this.state.put(SPACE.request, request, JSON.stringify(pending), Date.now() + LIFETIMES.authorizationRequestMs);
    this.showPage(res, client, params, request);
  }

  private async decide(client: OAuthClientInformationFull, params: AuthorizationParams, form: Record<string, unknown>, res: PageResponse): Promise<void> {
    const request = form.request as string;
    const text = await this.state.get(SPACE.request, request);
    const pending = text ? (JSON.parse(text) as PendingRequest) : undefined;
    if (!pending || !matches(pending, client, params)) return this.deadEnd(res, client);
    if (form.decision === 'deny') {
      if (!(await this.state.take(SPACE.request, request))) return this.deadEnd(res, client);
      // The page showed where the person returns, and they chose to go back there.
      res.locals[RETURN_SHOWN] = true;
      throw new AccessDeniedError('The person declined to allow access');
    }
    // Whatever goes wrong below, the page comes back with the person's choice as they left it.
    const showAgain = (error: string) => this.showPage(res, client, params, request, form.access === 'read', error);
    const apiKey = typeof form.api_key === 'string' ? form.api_key.trim() : '';
    if (!KEY_SHAPE.test(apiKey)) return showAgain('That is not a workspace API key: it begins with svc_ followed by letters, digits, _ or -. Copy it again from the workspace settings.');
    // The transport's own check, by the client address /mcp counts (express's req.ip keeps a dual-stack socket's ::ffff: form).
    const verdict = await this.keyCheck.verify(apiKey, hashKey(apiKey), this.addresses.shareOf(res.req));
    if (verdict.kind === 'refused') return showAgain('The workspace API refused this key (invalid or revoked). Check that you copied the whole key, or create a new one.');
    if (verdict.kind === 'unchecked') return showAgain('The workspace API could not be reached to check the key. Nothing was saved; try again in a moment.');
    // Taken only now: one submission wins, and a wrong key could be typed again.
    if (!(await this.state.take(SPACE.request, request))) return this.deadEnd(res, client);
    const grantId = randomBytes(16).toString('hex');
    const code = newSecret('');
    const record: Code = {
      grantId,
      clientId: client.client_id,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      resource: pending.resource,
      readOnly: this.runtime.config.readOnly || form.access === 'read',
      sealedKey: this.keys.seal(apiKey, grantId),
    };
    await Promise.all([
      this.state.put(SPACE.code, code, JSON.stringify(record), Date.now() + LIFETIMES.codeMs),
      this.state.put(SPACE.approved, approvedReturn(client.client_id, pending.redirectUri), '1', Date.now() + LIFETIMES.refreshTokenMs),
    ]);
    this.runtime.logger.info({ client: client.client_id, grant: grantId, key: hashKey(apiKey), readOnly: record.readOnly }, 'oauth access allowed');
    const back = new URL(pending.redirectUri);
    back.searchParams.set('code', code);
    if (pending.state !== undefined) back.searchParams.set('state', pending.state);
    back.searchParams.set('iss', this.issuer);
    // 303: the browser follows with a GET, never re-posting the form (and its key) to the client.
    res.redirect(303, back.href);
  }

  private showPage(res: PageResponse, client: OAuthClientInformationFull, params: AuthorizationParams, request: string, readOnly = false, error?: string): void {
    const hidden: Record<string, string> = {
      client_id: client.client_id,
      redirect_uri: params.redirectUri,
      response_type: 'code',
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      request,
    };
    if (params.state !== undefined) hidden.state = params.state;
    if (params.resource) hidden.resource = params.resource.href;
    if (params.scopes?.length) hidden.scope = params.scopes.join(' ');
    const html = authorizePage({
      clientName: client.client_name,
      documentHost: isDocumentUrl(client.client_id) ? new URL(client.client_id).host : undefined,
      redirectUri: params.redirectUri,
      serverHost: new URL(this.resource).host,
      hidden,
      serverReadOnly: this.runtime.config.readOnly,
      readOnly,
      error,
    });
    res
      .status(error ? 400 : 200)
      .set(pageHeaders(params.redirectUri))
      .send(html);
  }

  private deadEnd(res: PageResponse, client: OAuthClientInformationFull, status = 400, title = 'This sign-in has expired', message?: string): void {
    const name = visibleName(client.client_name) ?? 'the application';
    res
      .status(status)
      .set(pageHeaders())
      .send(messagePage(title, message ?? `This request was already answered or is too old. Start again from ${name}.`));
  }

  /** Whether a person allowed `clientId` access with this return address: an error may be sent back there. */
  async approvedReturn(clientId: string, redirectUri: string): Promise<boolean> {
    return (await this.state.get(SPACE.approved, approvedReturn(clientId, redirectUri))) !== undefined;
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const text = await this.state.get(SPACE.code, code);
    const record = text ? (JSON.parse(text) as Code) : undefined;
    if (!record || record.clientId !== client.client_id) {
      await this.revokeIfSpent(code, 'authorization code');
      throw new InvalidGrantError('The authorization code is invalid, expired or already used');
    }
    return record.codeChallenge;
  }

  /** The SDK leaves PKCE to this provider (`skipLocalPkceValidation`), which also holds the verifier to RFC 7636's 43-128 characters. */
  readonly skipLocalPkceValidation = true;

  /** The verifier is checked before the code is taken, so a wrong one does not spend it; `take` then makes it single-use across every node. */
  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    checkResource(resource);
    if (resource && !sameResource(resource, this.resource)) throw new InvalidTargetError(`This server issues tokens for ${this.resource} only`);
    checkCodeVerifier(verifier, await this.challengeForAuthorizationCode(client, code));
    const record = await this.redeem<Code>(SPACE.code, code, 'authorization code');
    if (record.clientId !== client.client_id) throw new InvalidGrantError('The authorization code was issued to another client');
    if (redirectUri !== undefined && redirectUri !== record.redirectUri) throw new InvalidGrantError('redirect_uri differs from the one of the authorization request');
    const grant: Grant = { clientId: record.clientId, resource: record.resource, readOnly: record.readOnly, sealedKey: record.sealedKey };
    return this.issueTokens(client, record.grantId, grant);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    checkResource(resource);
    if (resource && !sameResource(resource, this.resource)) throw new InvalidTargetError(`This server issues tokens for ${this.resource} only`);
    const record = await this.redeem<TokenRecord>(SPACE.refresh, refreshToken, 'refresh token');
    if (record.clientId !== client.client_id) {
      await this.revokeGrant(record.grantId, 'a refresh token was presented by another client');
      throw new InvalidGrantError('The refresh token was issued to another client');
    }
    const grant = await this.grant(record.grantId);
    if (!grant) throw new InvalidGrantError('The grant was revoked: sign in again');
    return this.issueTokens(client, record.grantId, grant);
  }

  /**
   * Takes a code or refresh token out of the store (once, across every node) and keeps it as spent, so that
   * presenting it again revokes its grant; one that is not there may be such a replay.
   */
  private async redeem<T extends { grantId: string }>(space: typeof SPACE.code | typeof SPACE.refresh, token: string, what: 'authorization code' | 'refresh token'): Promise<T> {
    const text = await this.state.take(space, token);
    if (!text) {
      await this.revokeIfSpent(token, what);
      throw new InvalidGrantError(`The ${what} is invalid, expired or already used`);
    }
    const record = JSON.parse(text) as T;
    await this.state.put(SPACE.spent, token, record.grantId, Date.now() + LIFETIMES.refreshTokenMs);
    return record;
  }

  /** A new access token and refresh token; the grant (and its client's registration) live as long as the refresh token. */
  private async issueTokens(client: OAuthClientInformationFull, grantId: string, grant: Grant): Promise<OAuthTokens> {
    const now = Date.now();
    const accessToken = newSecret('svcmcp_at_');
    const refreshToken = newSecret('svcmcp_rt_');
    const until = now + LIFETIMES.refreshTokenMs;
    const access: TokenRecord = { grantId, clientId: client.client_id, resource: grant.resource, expiresAt: now + LIFETIMES.accessTokenMs };
    const refresh: TokenRecord = { ...access, expiresAt: until };
    await Promise.all([
      this.state.put(SPACE.grant, grantId, JSON.stringify(grant), until),
      this.state.put(SPACE.access, accessToken, JSON.stringify(access), access.expiresAt),
      this.state.put(SPACE.refresh, refreshToken, JSON.stringify(refresh), until),
      // A registration lives as long as its grants; a client known by its document is read from it each time.
      isDocumentUrl(client.client_id) ? undefined : this.saveClient(client, until),
    ]);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: LIFETIMES.accessTokenMs / 1000, refresh_token: refreshToken };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const text = await this.state.get(SPACE.access, token);
    const record = text ? (JSON.parse(text) as TokenRecord) : undefined;
    const grant = record && (await this.grant(record.grantId));
    if (!record || !grant) throw new InvalidTokenError('The access token is expired, revoked or unknown');
    const apiKey = this.keys.open(grant.sealedKey, record.grantId);
    if (apiKey === undefined) throw new InvalidTokenError('The grant was made under another SVC_AUTH_SECRET');
    const caller: Caller = { key: apiKey, readOnly: grant.readOnly };
    return { token, clientId: record.clientId, scopes: [], expiresAt: Math.floor(record.expiresAt / 1000), resource: new URL(record.resource), extra: { caller } };
  }

  /** RFC 7009: a client's own access token stops; its own refresh token ends the whole grant. Anything else is ignored, as the RFC asks. */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const [access, refresh] = await Promise.all([this.state.get(SPACE.access, request.token), this.state.get(SPACE.refresh, request.token)]);
    const owned = (text: string | undefined) => (text ? (JSON.parse(text) as TokenRecord) : undefined)?.clientId === client.client_id;
    if (owned(access)) await this.state.delete(SPACE.access, request.token);
    if (owned(refresh)) {
      await this.state.delete(SPACE.refresh, request.token);
      await this.revokeGrant((JSON.parse(refresh!) as TokenRecord).grantId, 'its refresh token was revoked');
    }
  }

  /** A code or refresh token used a second time means someone else may hold it: its grant ends for everyone (OAuth 2.1 guidance). */
  private async revokeIfSpent(token: string, what: string): Promise<void> {
    const grantId = await this.state.get(SPACE.spent, token);
    if (grantId) await this.revokeGrant(grantId, `a used ${what} was presented again`);
  }

  /** Every token of the grant fails from now on: each check reads the grant. */
  private async revokeGrant(grantId: string, reason: string): Promise<void> {
    await this.state.delete(SPACE.grant, grantId);
    this.runtime.logger.warn({ grant: grantId, reason }, 'oauth grant revoked');
  }

  private async grant(grantId: string): Promise<Grant | undefined> {
    const text = await this.state.get(SPACE.grant, grantId);
    return text ? (JSON.parse(text) as Grant) : undefined;
  }

  private async saveClient(client: OAuthClientInformationFull, until: number): Promise<void> {
    const { client_secret: secret, ...rest } = client;
    const stored: StoredClient = secret === undefined ? rest : { ...rest, sealed_secret: this.clientSecrets.seal(secret, client.client_id) };
    await this.state.put(SPACE.client, client.client_id, JSON.stringify(stored), until);
  }
}

function approvedReturn(clientId: string, redirectUri: string): string {
  return `${clientId} ${redirectUri}`;
}

function matches(pending: PendingRequest, client: OAuthClientInformationFull, params: AuthorizationParams): boolean {
  return pending.clientId === client.client_id && pending.redirectUri === params.redirectUri && pending.codeChallenge === params.codeChallenge && pending.state === params.state;
}
