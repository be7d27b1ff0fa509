import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { ConfigError } from '../config.js';
import type { AccessTokens, KeyCheck, Refusal } from '../access.js';
import type { Runtime } from '../runtime.js';
import { tellPerson } from '../tell.js';
import type { ClientAddresses } from '../transports/http/client-address.js';
import { REGISTRATION_BYTES } from './checks.js';
import { messagePage, pageHeaders } from './page.js';
import { RETURN_SHOWN, sameResource, StateOAuthProvider, type Caller } from './provider.js';

/**
 * SVC_AUTH=oauth: this server is the OAuth 2.1 authorization server and the protected resource for its
 * own /mcp, so hosted connectors (Claude, ChatGPT), which cannot send a header, can sign in. Built on the
 * MCP SDK's authorization server (`mcpAuthRouter`: RFC 8414 and RFC 9728 metadata, RFC 7591
 * registration, authorization code with PKCE S256, token, RFC 7009 revocation); `StateOAuthProvider`
 * decides and remembers. Loaded only in that mode: the key mode never loads express or this module.
 */

/** The paths this module answers; everything else stays with the HTTP transport. */
const ROUTES = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/register',
  '/authorize',
  '/token',
  '/revoke',
]);

/**
 * Per client address (the SDK's defaults are lower): hosted connectors reach the server from a few
 * shared addresses for all their users. The address is the socket's, or the one a proxy listed in
 * SVC_TRUST_PROXY forwarded for (an X-Forwarded-For from anyone else is not believed). Each sign-in
 * attempt with a key asks the API about it, so `authorize` also bounds the key guesses per address.
 */
const RATE_LIMITS = {
  authorize: { windowMs: 15 * 60_000, max: 100 },
  register: { windowMs: 60 * 60_000, max: 100 },
  token: { windowMs: 15 * 60_000, max: 1000 },
  revoke: { windowMs: 15 * 60_000, max: 1000 },
};

/**
 * The OAuth routes, and the access tokens /mcp accepts: the transport resolves a bearer that is not a
 * workspace key through `resolve`, and answers every 401 with `challenge`, which starts the OAuth flow.
 */
export interface OAuthGate extends AccessTokens {
  /** Whether `path` is one of the OAuth routes (metadata, register, authorize, token, revoke). */
  serves(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export function createOAuthGate(runtime: Runtime, publicUrl: string, keys: KeyCheck, addresses: ClientAddresses): OAuthGate {
  const { logger } = runtime;
  const resource = `${publicUrl}/mcp`;
  const resourceMetadataUrl = `${publicUrl}/.well-known/oauth-protected-resource/mcp`;
  const provider = new StateOAuthProvider(runtime, resource, keys);
  // The SDK's own express app; for a loopback public URL it checks the Host header as the transport already does.
  const app = createMcpExpressApp({ host: new URL(publicUrl).hostname });
  app.disable('x-powered-by');
  // Behind the reverse proxies SVC_TRUST_PROXY lists, and no others, the rate limits count each client address they forward.
  app.set('trust proxy', (address: string) => addresses.trusted(address));
  app.use('/register', refuseLargeRegistration);
  app.use('/authorize', (req: GuardedRequest, res: GuardedResponse, next: () => void) => guardErrorRedirects(provider, req, res, next));
  const resourceName = 'Support-Agent Workspace (svc-mcp)';
  try {
    app.use(
      mcpAuthRouter({
        provider,
        issuerUrl: new URL(publicUrl),
        resourceServerUrl: new URL(resource),
        resourceName,
        authorizationOptions: { rateLimit: { ...RATE_LIMITS.authorize, validate: false } },
        clientRegistrationOptions: { rateLimit: { ...RATE_LIMITS.register, validate: false }, clientSecretExpirySeconds: 0 },
        tokenOptions: { rateLimit: { ...RATE_LIMITS.token, validate: false } },
        revocationOptions: { rateLimit: { ...RATE_LIMITS.revoke, validate: false } },
      }),
    );
  } catch (error) {
    throw new ConfigError(`SVC_PUBLIC_URL=${publicUrl} cannot be the OAuth issuer: ${(error as Error).message}`);
  }
  // RFC 9728 at the origin too, for clients that look there first: the same document, naming /mcp.
  app.use('/.well-known/oauth-protected-resource', metadataHandler({ resource, authorization_servers: [new URL(publicUrl).href], resource_name: resourceName }));
  app.use((_req: unknown, res: ExpressResponse) => res.status(404).json({ error: 'not_found' }));
  app.use((error: Error & { status?: number }, _req: unknown, res: ExpressResponse, _next: unknown) => {
    // What a body parser refused (a body over its limit, JSON it cannot read) is the client's fault, and says so.
    if (error.status === 413) return res.status(413).json({ error: 'invalid_request', error_description: `The request body is too large (a registration may be ${REGISTRATION_BYTES} bytes)` });
    if (error.status === 400) return res.status(400).json({ error: 'invalid_request', error_description: 'The request body could not be read' });
    logger.error({ err: error }, 'oauth route failed');
    res.status(500).json({ error: 'server_error' });
  });

  const challenge = `Bearer resource_metadata="${resourceMetadataUrl}"`;
  const refuse = (message: string): Refusal => ({
    status: 401,
    message: `Unauthorized: ${message}`,
    headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${message.replaceAll('"', "'")}", resource_metadata="${resourceMetadataUrl}"` },
  });

  if (runtime.sandbox) tellSandboxUser(runtime, resource);

  return {
    serves: (path) => ROUTES.has(path),
    handle: (req, res) => {
      // A registration declared too large is refused before a byte of it is read.
      if (req.url?.split('?')[0] === '/register' && Number(req.headers['content-length']) > REGISTRATION_BYTES) tooLarge(res);
      else app(req, res);
    },
    challenge,
    async resolve(token) {
      try {
        const info = await provider.verifyAccessToken(token);
        if (!sameResource(info.resource, resource)) return refuse(`the access token was issued for another resource, not ${resource}`);
        return info.extra!.caller as Caller;
      } catch (error) {
        if (error instanceof InvalidTokenError) return refuse(`${error.message}; sign in again`);
        throw error;
      }
    },
  };
}

/** The little of express's response the two fallbacks use. */
interface ExpressResponse {
  status(code: number): { json(body: unknown): void };
}

/** The little of express's request and response the guards use. */
interface GuardedRequest {
  method: string;
  body?: unknown;
  query: Record<string, unknown>;
}
interface GuardedResponse {
  locals: Record<string, unknown>;
  redirect(status: number, url: string): void;
  status(code: number): GuardedResponse;
  set(headers: Record<string, string>): GuardedResponse;
  send(body: string): void;
}

function tooLarge(res: ServerResponse): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: 'invalid_client_metadata', error_description: `A registration may be at most ${REGISTRATION_BYTES} bytes` }));
}

/** A registration sent without a declared length is measured once parsed. */
function refuseLargeRegistration(req: { body?: unknown }, res: ServerResponse, next: () => void): void {
  if (req.body !== undefined && Buffer.byteLength(JSON.stringify(req.body)) > REGISTRATION_BYTES) tooLarge(res);
  else next();
}

/**
 * The SDK sends an authorization request's errors back to its redirect URI with a 302, so anyone
 * who registered a client could have our address redirect a person anywhere. An error goes back
 * only to a return address a person allowed that client (or chose to return to from our page, by
 * Cancel); any other error is shown on our own page.
 */
function guardErrorRedirects(provider: StateOAuthProvider, req: GuardedRequest, res: GuardedResponse, next: () => void): void {
  const redirect = res.redirect.bind(res);
  res.redirect = (status: number, url: string) => {
    if (status !== 302) return redirect(status, url);
    const target = new URL(url);
    const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
    const clientId = typeof params?.client_id === 'string' ? params.client_id : '';
    const returnTo = `${target.origin}${target.pathname}`;
    const allowed = res.locals[RETURN_SHOWN] === true ? Promise.resolve(true) : provider.approvedReturn(clientId, String(params?.redirect_uri ?? returnTo));
    void allowed.then(
      (yes) => {
        if (yes) return redirect(302, url);
        const why = target.searchParams.get('error_description') ?? target.searchParams.get('error') ?? 'the request is not valid';
        res
          .status(400)
          .set(pageHeaders())
          .send(messagePage('This sign-in request cannot go on', `The application's request was refused (${why}). Nothing was shared with it. Start again from the application.`));
      },
      () => res.status(500).set(pageHeaders()).send(messagePage('This sign-in request cannot go on', 'The server could not check the request. Start again from the application.')),
    );
  };
  next();
}

/**
 * With --sandbox, a person trying the flow needs a key of the simulated workspace to type on the page.
 * Its keys are made afresh for each run and are nobody's secret: they go to stderr, which every way of
 * running the process shows or keeps (a terminal, tee, Docker, nohup, an IDE task), as plain lines
 * rather than log records, which the log censor would mask.
 */
function tellSandboxUser(runtime: Runtime, resource: string): void {
  if (!runtime.sandbox) return;
  const { keys } = runtime.sandbox;
  tellPerson(
    [
      '',
      `OAuth sandbox: connect a client on this machine to ${resource} (Claude Code, the MCP Inspector, mcp-remote);`,
      'hosted clients (Claude on the web, ChatGPT) reach only a public https URL: a tunnel to this port, named in SVC_PUBLIC_URL and SVC_ALLOWED_HOSTS.',
      'On the page that opens, paste a key of the simulated workspace:',
      `  read and write  ${keys.admin}`,
      `  read only       ${keys.readOnly}`,
      '',
      '',
    ].join('\n'),
    'stderr',
  );
}
