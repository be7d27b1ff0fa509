import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import type { ClientAddresses } from '../client-address.js';
import { messagePage, pageHeaders } from './page.js';

/**
 * The one module that knows the OAuth authorization server underneath: the MCP SDK's `mcpAuthRouter`
 * (RFC 8414 metadata, RFC 7591 registration, authorization code with PKCE S256, token, RFC 7009
 * revocation) on the SDK's express app. The router is frozen in SDK v2 and planned for removal in v3
 * (design §17): replacing it touches this file alone, which is also the only one to name its errors and
 * its provider interface (a test holds that). What this server adds around it lives here too: the
 * metadata the SDK does not write (client ID metadata documents, `iss` in responses), `iss` on its error
 * redirects (RFC 9207), errors shown as pages rather than JSON in a person's browser, and
 * `application_type`, which the SDK's registration drops.
 */

export {
  AccessDeniedError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
export type { OAuthRegisteredClientsStore as ClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
export type { AuthorizationParams, OAuthServerProvider as AuthorizationProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
export type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/** The largest registration accepted (RFC 7591 metadata is a few hundred bytes; 90 KB ones were a way to fill memory and disk). */
export const REGISTRATION_BYTES = 16 * 1024;

/**
 * Per client address (the SDK's defaults are lower): hosted connectors reach the server from a few
 * shared addresses for all their users. Each sign-in attempt with a key asks the API about it, and
 * each authorization request naming a client metadata document may fetch it, so `authorize` also
 * bounds the key guesses and the fetches per address.
 */
const RATE_LIMITS = {
  authorize: { windowMs: 15 * 60_000, max: 100 },
  register: { windowMs: 60 * 60_000, max: 100 },
  token: { windowMs: 15 * 60_000, max: 1000 },
  revoke: { windowMs: 15 * 60_000, max: 1000 },
};

/** What `res.locals` carries from the provider's `authorize` to the error redirect guard: the person saw where they return and chose to go back. */
export const RETURN_SHOWN = 'svc-mcp return shown';

export interface AuthorizationServerOptions {
  provider: OAuthServerProvider;
  publicUrl: string;
  /** RFC 8414's issuer identifier (the public URL's href): the `iss` of every authorization response (RFC 9207). */
  issuer: string;
  /** `<public-url>/mcp`. */
  resource: string;
  resourceName: string;
  /** The scopes the metadata lists (the resource's, and offline_access). */
  scopes: string[];
  addresses: ClientAddresses;
  logger: Logger;
  /** Whether a person allowed `clientId` access with this return address: an error may be sent back there. */
  approvedReturn(clientId: string, redirectUri: string): Promise<boolean>;
  /** Refuses (with InvalidClientMetadataError) a registration's `application_type` that its redirect URIs do not suit. */
  checkApplicationType(type: unknown, redirectUris: string[]): void;
  /** What a person is told when an authorization request names a client this server does not know. */
  unknownClient(clientId: string): string;
}

export interface AuthorizationServer {
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The little of express's request and response the guards use (the SDK's types name express's, which this package does not install). */
interface Request {
  method: string;
  body?: unknown;
  query: Record<string, unknown>;
}
interface Response {
  statusCode: number;
  locals: Record<string, unknown>;
  redirect(status: number, url: string): void;
  status(code: number): Response;
  set(headers: Record<string, string>): Response;
  send(body: string): void;
  json(body: unknown): void;
}
type Guard = (req: Request, res: Response, next: () => void) => void;

export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { provider, publicUrl, issuer, resource, resourceName, scopes, logger } = options;
  const issuerUrl = new URL(issuer);
  // The SDK's own express app; for a loopback public URL it checks the Host header as the transport already does.
  const app = createMcpExpressApp({ host: issuerUrl.hostname });
  app.disable('x-powered-by');
  app.use('/register', refuseLargeRegistration, honourApplicationType(options));
  app.use('/authorize', guardErrorRedirects(options, issuer), showErrorsAsPages(options, issuer));
  // Counted per client address as every other per-address limit is (ClientAddresses: SVC_TRUST_PROXY), not by express's own req.ip.
  const rateLimit = (window: { windowMs: number; max: number }) => ({ ...window, validate: false, keyGenerator: (req: IncomingMessage) => options.addresses.shareOf(req) });
  try {
    const metadata = createOAuthMetadata({ provider, issuerUrl, scopesSupported: scopes });
    // The SDK lists client_secret_post alone for revocation, yet its revocation endpoint takes a public client by its client_id, as its token endpoint does.
    const revocationMethods = metadata.revocation_endpoint ? metadata.token_endpoint_auth_methods_supported : undefined;
    // Served before the SDK's router, which writes neither of the last two fields.
    app.use(
      '/.well-known/oauth-authorization-server',
      metadataHandler({
        ...metadata,
        revocation_endpoint_auth_methods_supported: revocationMethods,
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      }),
    );
    app.use(
      mcpAuthRouter({
        provider,
        issuerUrl,
        resourceServerUrl: new URL(resource),
        resourceName,
        scopesSupported: scopes,
        authorizationOptions: { rateLimit: rateLimit(RATE_LIMITS.authorize) },
        clientRegistrationOptions: { rateLimit: rateLimit(RATE_LIMITS.register), clientSecretExpirySeconds: 0 },
        tokenOptions: { rateLimit: rateLimit(RATE_LIMITS.token) },
        revocationOptions: { rateLimit: rateLimit(RATE_LIMITS.revoke) },
      }),
    );
  } catch (error) {
    throw new ConfigError(`SVC_PUBLIC_URL=${publicUrl} cannot be the OAuth issuer: ${(error as Error).message}`);
  }
  // RFC 9728 at the origin too, for clients that look there first: the same document, naming /mcp.
  app.use('/.well-known/oauth-protected-resource', metadataHandler({ resource, authorization_servers: [issuer], scopes_supported: scopes, resource_name: resourceName }));
  app.use((_req: unknown, res: Response) => res.status(404).json({ error: 'not_found' }));
  app.use((error: Error & { status?: number }, _req: unknown, res: Response, _next: unknown) => {
    // What a body parser refused (a body over its limit, JSON it cannot read) is the client's fault, and says so.
    if (error.status === 413) return res.status(413).json({ error: 'invalid_request', error_description: `The request body is too large (a registration may be ${REGISTRATION_BYTES} bytes)` });
    if (error.status === 415) return res.status(415).json({ error: 'invalid_request', error_description: 'The request body is in a charset this server does not read: send UTF-8' });
    if (error.status === 400) return res.status(400).json({ error: 'invalid_request', error_description: 'The request body could not be read' });
    logger.error({ err: error }, 'oauth route failed');
    res.status(500).json({ error: 'server_error' });
  });
  return { handle: (req, res) => app(req, res) };
}

/** A registration sent without a declared length is measured once parsed. */
function refuseLargeRegistration(req: { body?: unknown }, res: ServerResponse, next: () => void): void {
  if (req.body !== undefined && Buffer.byteLength(JSON.stringify(req.body)) > REGISTRATION_BYTES) registrationTooLarge(res);
  else next();
}

export function registrationTooLarge(res: ServerResponse): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: 'invalid_client_metadata', error_description: `A registration may be at most ${REGISTRATION_BYTES} bytes` }));
}

/**
 * OpenID Connect's `application_type`, which the SDK's registration drops: checked against the redirect
 * URIs (a web application returns to https on a host that is not the person's machine), and echoed in
 * the registration's answer as RFC 7591 asks of every field the server kept.
 */
function honourApplicationType(options: AuthorizationServerOptions): Guard {
  return (req, res, next) => {
    const body = (req.body ?? {}) as { application_type?: unknown; redirect_uris?: unknown };
    if (req.method !== 'POST' || body.application_type === undefined) return next();
    try {
      options.checkApplicationType(body.application_type, Array.isArray(body.redirect_uris) ? body.redirect_uris.map(String) : []);
    } catch (error) {
      if (!(error instanceof InvalidClientMetadataError)) throw error;
      res.status(400).json(error.toResponseObject());
      return;
    }
    const json = res.json.bind(res);
    res.json = (answer: unknown) => json(res.statusCode === 201 ? { ...(answer as object), application_type: body.application_type } : answer);
    next();
  };
}

/** The authorization request's parameters, from the query or (the page's form) the parsed body. */
function requestParams(req: Request): Record<string, unknown> {
  return ((req.method === 'POST' ? req.body : req.query) ?? {}) as Record<string, unknown>;
}

/**
 * The SDK sends an authorization request's errors back to its redirect URI with a 302, so anyone who
 * registered a client could have our address redirect a person anywhere. An error goes back only to a
 * return address a person allowed that client (or chose to return to from our page, by Cancel), with
 * `iss` (RFC 9207); any other error is shown on our own page.
 */
function guardErrorRedirects(options: AuthorizationServerOptions, issuer: string): Guard {
  return (req, res, next) => {
    const redirect = res.redirect.bind(res);
    res.redirect = (status: number, url: string) => {
      if (status !== 302) return redirect(status, url);
      const target = new URL(url);
      const params = requestParams(req);
      const clientId = typeof params.client_id === 'string' ? params.client_id : '';
      const allowed = res.locals[RETURN_SHOWN] === true ? Promise.resolve(true) : options.approvedReturn(clientId, String(params.redirect_uri ?? `${target.origin}${target.pathname}`));
      void allowed.then(
        (yes) => {
          if (yes) {
            target.searchParams.set('iss', issuer);
            return redirect(302, target.href);
          }
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
  };
}

/**
 * What the SDK answers an authorization request with JSON (an unknown client, a return address the
 * client never listed, too many requests) lands in a person's browser: it becomes a page saying what
 * to do. An unknown client whose return address is on the person's own machine (a native application,
 * RFC 8252) is also told at once: the page sends the browser back to it with `invalid_client` after a
 * few seconds, so the application stops waiting. Anywhere else, an unknown client's return address is
 * not trusted with even an error.
 */
function showErrorsAsPages(options: AuthorizationServerOptions, issuer: string): Guard {
  return (req, res, next) => {
    res.json = (answer: unknown) => {
      const { error, error_description: description } = (answer ?? {}) as { error?: string; error_description?: string };
      const params = requestParams(req);
      const clientId = typeof params.client_id === 'string' ? params.client_id : '';
      if (error !== 'invalid_client') {
        const title = res.statusCode === 429 ? 'Too many sign-in attempts' : 'This sign-in request cannot go on';
        return res.set(pageHeaders()).send(messagePage(title, `${description ?? error ?? 'The request is not valid'}. Nothing was shared with the application. Start again from the application.`));
      }
      const guidance = options.unknownClient(clientId);
      const back = loopbackReturn(params.redirect_uri);
      if (back) {
        // A sentence of ours, not the page's guidance, which quotes what the link chose (a local application shows it as its own).
        for (const [name, value] of Object.entries({ error: 'invalid_client', error_description: UNKNOWN_CLIENT, iss: issuer })) back.searchParams.set(name, value);
        if (typeof params.state === 'string') back.searchParams.set('state', params.state);
      }
      res.set(pageHeaders()).send(messagePage('This server does not know the application', guidance, back && { href: back.href, label: 'the application on this machine' }));
    };
    next();
  };
}

const UNKNOWN_CLIENT = 'This server does not know this application (its registration expired, or its client metadata document was refused): connect again.';

/** The return address if it is plain http on a loopback address (an application on the person's own machine), else undefined. */
function loopbackReturn(redirectUri: unknown): URL | undefined {
  if (typeof redirectUri !== 'string' || !URL.canParse(redirectUri)) return undefined;
  const url = new URL(redirectUri);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && !url.username && !url.password ? url : undefined;
}
