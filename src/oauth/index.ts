import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost, type AccessTokens, type KeyCheck, type Refusal } from '../access.js';
import type { Runtime } from '../runtime.js';
import { tellPerson } from '../tell.js';
import type { ClientAddresses } from '../client-address.js';
import { createAuthorizationServer, InvalidTokenError, REGISTRATION_BYTES, registrationTooLarge } from './authorization-server.js';
import { checkApplicationType } from './checks.js';
import { ClientDocuments, isDocumentUrl } from './client-documents.js';
import { LIFETIMES, sameResource, StateOAuthProvider, type Caller } from './provider.js';

/**
 * SVC_AUTH=oauth: this server is the OAuth 2.1 authorization server and the protected resource for its
 * own /mcp, so hosted connectors (Claude, ChatGPT), which cannot send a header, can sign in. The
 * authorization server underneath lives behind src/oauth/authorization-server.ts; `StateOAuthProvider`
 * decides and remembers; clients are registered (RFC 7591) or known by their client ID metadata
 * document (`ClientDocuments`). Loaded only in that mode: the key mode never loads express or this module.
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
 * The one scope of this resource: the workspace's tools in the person's name (read-only or not is
 * the person's choice on the page). `offline_access` is listed too: every grant has a refresh token.
 */
const SCOPE = 'workspace';
const SCOPES = [SCOPE, 'offline_access'];

/**
 * The OAuth routes, and the access tokens /mcp accepts: the transport resolves a bearer that is not a
 * workspace key through `resolve`, and answers every 401 with `challenge`, which starts the OAuth flow.
 */
export interface OAuthGate extends AccessTokens {
  /** Whether `path` is one of the OAuth routes (metadata, register, authorize, token, revoke). */
  serves(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

export function createOAuthGate(runtime: Runtime, publicUrl: string, keys: KeyCheck, addresses: ClientAddresses): OAuthGate {
  const resource = `${publicUrl}/mcp`;
  const resourceMetadataUrl = `${publicUrl}/.well-known/oauth-protected-resource/mcp`;
  // Private and loopback addresses only for a server that is itself on loopback (design §17).
  const documents = new ClientDocuments({ allowPrivate: isLoopbackHost(new URL(publicUrl).hostname) });
  const issuer = new URL(publicUrl).href;
  const provider = new StateOAuthProvider(runtime, { resource, issuer }, keys, documents, addresses);
  const server = createAuthorizationServer({
    provider,
    publicUrl,
    issuer,
    resource,
    resourceName: 'Support-Agent Workspace (svc-mcp)',
    scopes: SCOPES,
    addresses,
    logger: runtime.logger,
    approvedReturn: (clientId, redirectUri) => provider.approvedReturn(clientId, redirectUri),
    checkApplicationType,
    unknownClient: (clientId) => unknownClientGuidance(clientId, documents, runtime.sandbox !== undefined && !runtime.config.stateDirGiven && !runtime.config.redisUrl),
  });

  const challenge = `Bearer resource_metadata="${resourceMetadataUrl}", scope="${SCOPE}"`;
  const refuse = (message: string): Refusal => ({
    status: 401,
    message: `Unauthorized: ${message}`,
    headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${message.replaceAll('"', "'")}", resource_metadata="${resourceMetadataUrl}", scope="${SCOPE}"` },
  });

  if (runtime.sandbox) tellSandboxUser(runtime, resource);

  return {
    serves: (path) => ROUTES.has(path),
    handle: (req, res) => {
      // A registration declared too large is refused before a byte of it is read.
      if (req.url?.split('?')[0] === '/register' && Number(req.headers['content-length']) > REGISTRATION_BYTES) registrationTooLarge(res);
      else server.handle(req, res);
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
    close: () => documents.close(),
  };
}

/**
 * What a person reads when an application's client_id is unknown here: why that may be (its document
 * refused, a registration forgotten, a restart that kept nothing), and what to do about it.
 */
function unknownClientGuidance(clientId: string, documents: ClientDocuments, forgetsOnRestart: boolean): string {
  if (isDocumentUrl(clientId)) {
    const why = documents.refusalOf(clientId) ?? `its client metadata document at ${clientId} could not be used`;
    return `The application names itself by a client metadata document, and ${why}. Nothing was shared with it. Its makers can fix the document; until then, connect it again from the application.`;
  }
  const forgotten = [
    `an application that registered but never completed a sign-in is forgotten after ${LIFETIMES.unusedClientMs / 60_000} minutes`,
    `one that signed in, ${LIFETIMES.refreshTokenMs / 86_400_000} days after its last use`,
    forgetsOnRestart ? 'and this sandbox run keeps its registrations in memory only, so a restart forgets them all' : 'or the server may have been moved to another SVC_AUTH_SECRET or state',
  ].join('; ');
  return `The application asked to sign in as "${clientId}", a client_id this server never issued or no longer knows (${forgotten}). Nothing was shared with it. In the application, remove this server's sign-in (or the connector) and connect again: it registers anew. In Claude Code: claude mcp logout <name>, then claude mcp login <name>.`;
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
