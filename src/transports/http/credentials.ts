import type { IncomingMessage } from 'node:http';
import { type AccessTokens, KEY_SHAPE, type Refusal } from '../../access.js';
import { hashKey } from '../../redaction/key-hash.js';
import type { KeyVerifier } from './key-check.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const DEFAULT_CHALLENGE = 'Bearer realm="svc-mcp"';
/** How long a client should wait before asking again when the API could not be asked about its key. */
const UNCHECKED_RETRY_AFTER_S = '5';

/**
 * How a client brings its key, in every refusal that is about the key. In key mode (the default) the
 * header is the only way: the workspace API has no OAuth, so this server publishes no OAuth metadata.
 */
export const KEY_HELP =
  'send your workspace API key in the header "Authorization: Bearer svc_..." (this server does not use OAuth; ' + 'client configurations with that header are in the README, section "Hosted HTTP")';
/** The same help in oauth mode, where signing in is the other way. */
const OAUTH_KEY_HELP = 'sign in through OAuth (hosted connectors do it for you), or send a workspace API key as "Authorization: Bearer svc_..."';

/** Whose key a request's upstream calls carry, once the request is allowed. */
export interface Credentials {
  key: string;
  keyHash: string;
  /** `client`: the request's own bearer key; `grant`: an OAuth access token standing for a key; `server`: SVC_API_KEY. */
  from: 'client' | 'grant' | 'server';
  /** Granted read-only access (an OAuth grant): the session lists and runs read tools only. */
  readOnly: boolean;
}

export interface CredentialRules {
  /** The port this server listens on: loopback Host and Origin values must name it. */
  port: number;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** SVC_API_KEY: the key of a request that brings none. */
  serverKey?: string;
  verifier: KeyVerifier;
  accessTokens?: AccessTokens;
}

/** Host header rules: loopback names with our port, plus configured names (any port) or name:port (exact). */
export function hostAllowed(hostHeader: string | undefined, port: number, allowedHosts: string[]): boolean {
  if (!hostHeader) return false;
  let parsed: URL;
  try {
    parsed = new URL(`http://${hostHeader}`);
  } catch {
    return false;
  }
  const name = parsed.hostname.toLowerCase();
  const hostPort = parsed.port === '' ? 80 : Number(parsed.port);
  if (LOOPBACK_NAMES.includes(name) && hostPort === port) return true;
  return allowedHosts.some((entry) => {
    const wanted = entry.trim().toLowerCase();
    if (wanted === name) return true;
    return wanted === `${name}:${hostPort}` || (parsed.port !== '' && wanted === `${name}:${parsed.port}`);
  });
}

/**
 * Origin rules: absent (not a browser) is fine; a loopback origin only with this server's own port
 * (a page served by another local program is another origin); configured origins exactly, which is
 * how a browser-based tool on another port, such as the MCP Inspector's UI, is let in.
 */
export function originAllowed(origin: string | undefined, port: number, allowedOrigins: string[]): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  const web = parsed.protocol === 'http:' || parsed.protocol === 'https:';
  const originPort = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  if (web && LOOPBACK_NAMES.includes(parsed.hostname.toLowerCase()) && originPort === port) return true;
  return allowedOrigins.some((entry) => {
    try {
      return new URL(entry).origin === parsed.origin;
    } catch {
      return false;
    }
  });
}

/** The Host check every route passes (DNS-rebinding protection), health and readiness included. */
export function hostRefusal(req: IncomingMessage, rules: Pick<CredentialRules, 'port' | 'allowedHosts'>): Refusal | undefined {
  if (hostAllowed(req.headers.host, rules.port, rules.allowedHosts)) return undefined;
  return { status: 403, message: 'Forbidden: Host header not allowed (DNS-rebinding protection; see SVC_ALLOWED_HOSTS)' };
}

export function originRefusal(req: IncomingMessage, rules: Pick<CredentialRules, 'port' | 'allowedOrigins'>): Refusal | undefined {
  if (originAllowed(req.headers.origin, rules.port, rules.allowedOrigins)) return undefined;
  return { status: 403, message: 'Forbidden: Origin not allowed (DNS-rebinding protection; see SVC_ALLOWED_ORIGINS)' };
}

/**
 * Everything that decides whose key a request to /mcp carries, in order: Host, then Origin, then
 * the key (the request's own bearer key, an access token standing for one, or the server's), then,
 * when `verify` (a request that would open a session), the API's verdict on that key, its check
 * counted under the client address `from`. The first step that fails refuses the request; nothing
 * after it runs, and nothing of the request is read past its headers.
 */
export async function resolveCredentials(req: IncomingMessage, rules: CredentialRules, verify: boolean, from: string): Promise<Credentials | Refusal> {
  const refusal = hostRefusal(req, rules) ?? originRefusal(req, rules);
  if (refusal) return refusal;
  const credentials = await bearerCredentials(req.headers.authorization, rules);
  // A grant's key was checked with the API when the person granted access, and its tokens cannot be made up.
  if (!('key' in credentials) || !verify || credentials.from === 'grant') return credentials;
  const verdict = await rules.verifier.verify(credentials.key, credentials.keyHash, from);
  if (verdict.kind === 'accepted') return credentials;
  if (verdict.kind === 'refused') {
    return unauthorized(
      credentials.from === 'server'
        ? `Unauthorized: the API refused this server's own key (SVC_API_KEY) as invalid or revoked, so no session was opened; whoever runs svc-mcp must set a valid SVC_API_KEY, or ${KEY_HELP}`
        : `Unauthorized: the API refused this key as invalid or revoked (401), so no session was opened; ${KEY_HELP}`,
      rules,
    );
  }
  return {
    status: 503,
    message: `Service unavailable: svc-mcp could not ask the workspace API whether this key is valid, so no session was opened (${verdict.reason}). Try again shortly; if it persists, whoever runs svc-mcp should check SVC_BASE_URL.`,
    headers: { 'retry-after': UNCHECKED_RETRY_AFTER_S },
  };
}

async function bearerCredentials(header: string | undefined, rules: CredentialRules): Promise<Credentials | Refusal> {
  const { accessTokens } = rules;
  const help = accessTokens ? OAUTH_KEY_HELP : KEY_HELP;
  if (header === undefined || header.trim() === '') {
    if (accessTokens) return unauthorized(`Unauthorized: ${OAUTH_KEY_HELP}`, rules);
    if (rules.serverKey) return { key: rules.serverKey, keyHash: hashKey(rules.serverKey), from: 'server', readOnly: false };
    return unauthorized(`Unauthorized: this server has no API key of its own, so ${KEY_HELP}`, rules);
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return unauthorized(`Unauthorized: the Authorization header is not "Bearer <key>"; ${help}`, rules);
  const token = match[1];
  if (KEY_SHAPE.test(token)) return { key: token, keyHash: hashKey(token), from: 'client', readOnly: false };
  if (accessTokens) {
    const granted = await accessTokens.resolve(token);
    return 'key' in granted ? { key: granted.key, keyHash: hashKey(granted.key), from: 'grant', readOnly: granted.readOnly } : granted;
  }
  return unauthorized(`Unauthorized: the bearer token is not a workspace API key (svc_ followed by 8-200 letters, digits, _ or -); ${KEY_HELP}`, rules);
}

function unauthorized(message: string, rules: CredentialRules): Refusal {
  // RFC 6750 asks for the challenge on a 401.
  return { status: 401, message, headers: { 'www-authenticate': rules.accessTokens?.challenge ?? DEFAULT_CHALLENGE } };
}
