/**
 * CORS for /mcp: a page of an allowed origin (one in SVC_ALLOWED_ORIGINS, such as the MCP
 * Inspector's UI, or this server's own) may call it and read its answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostRefusal, originRefusal, type CredentialRules } from './credentials.js';
import { refuse } from './wire.js';

/** What a browser page of an allowed origin may send to /mcp and read back. */
const CORS_EXPOSED = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';
const CORS_PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
  'access-control-max-age': '600',
};

/**
 * Lets an allowed origin's page read this answer. Whether the request may go on is decided by
 * `checkMcpRequest`, or for a preflight by `answerPreflight`.
 */
export function allowBrowser(req: IncomingMessage, res: ServerResponse, rules: CredentialRules): void {
  const origin = req.headers.origin;
  if (origin === undefined || originRefusal(req, rules)) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', CORS_EXPOSED);
  res.setHeader('vary', 'Origin');
}

/** A browser's preflight carries no key: it passes the Host and Origin checks alone. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, rules: CredentialRules): void {
  const refusal = hostRefusal(req, rules) ?? originRefusal(req, rules);
  if (refusal) refuse(res, refusal);
  else res.writeHead(204, CORS_PREFLIGHT).end();
}
