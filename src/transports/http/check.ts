/**
 * The checks a request passes before it is served. A request to /mcp: none while draining unless it
 * names a session, then Host, Origin and the key or access token (`resolveCredentials`). Every
 * other route: Host, which a probe may leave out.
 */
import type { IncomingMessage } from 'node:http';
import type { Refusal } from '../../access.js';
import { hostRefusal, resolveCredentials, type CredentialRules, type Credentials } from './credentials.js';
import type { HttpContext } from './context.js';

const SHUTTING_DOWN: Refusal = { status: 503, message: 'Server is shutting down: retry on another node', headers: { connection: 'close' } };

/** A request to /mcp that passed: whose key it carries, the open session it names (stateful mode only), and who sent it. */
export interface McpCaller {
  credentials: Credentials;
  sessionId?: string;
  /** The client address the per-address limits count it under (ClientAddresses.share). */
  from: string;
}

/** Which Host check a route other than /mcp passes: always, or only when a Host is sent (probes). */
export type HostCheck = 'always' | 'when sent';

export async function checkMcpRequest(ctx: HttpContext, req: IncomingMessage): Promise<McpCaller | Refusal> {
  const header = req.headers['mcp-session-id'];
  const sessionId = !ctx.config.stateless && typeof header === 'string' && header !== '' ? header : undefined;
  if (ctx.draining && !sessionId) return SHUTTING_DOWN;
  const from = ctx.addresses.shareOf(req);
  // A request that would open a session has its key checked with the API first; one on a session was checked when it opened.
  const credentials = await resolveCredentials(req, ctx.rules, req.method === 'POST' && !sessionId, from);
  return 'key' in credentials ? { credentials, sessionId, from } : credentials;
}

/** A probe without any Host (HAProxy's httpchk speaks HTTP/1.0) cannot be a browser's: browsers always send one. */
export function routeHostRefusal(req: IncomingMessage, rules: CredentialRules, check: HostCheck): Refusal | undefined {
  if (check === 'when sent' && req.headers.host === undefined) return undefined;
  return hostRefusal(req, rules);
}
