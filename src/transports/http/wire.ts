/**
 * JSON-RPC over HTTP, below the MCP SDK: the answers this server writes itself (errors, refusals,
 * probes) and the request bodies it reads before handing them to a transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Refusal } from '../../access.js';
import type { BodyLease } from './body-budget.js';

/** Free-form fields of a request's log line: never the key or the body (the key hash identifies the tenant). */
export type RequestLog = Record<string, unknown>;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A body not yet whole (refused before it was read, or cut off) is neither waited for nor read to its
  // end: the connection closes once the answer is out, so a made-up key's 4 MiB costs its headers only.
  const unread = !res.req.complete;
  // The response's socket, taken now: a request whose reading stopped part way (its stream
  // destroyed) has none of its own any more, and by 'finish' the response has let go of it too.
  const { socket } = res;
  if (unread) res.once('finish', () => socket?.destroy());
  res.writeHead(status, { 'content-type': 'application/json', ...(unread ? { connection: 'close' } : {}), ...headers });
  res.end(JSON.stringify(body));
}

export function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** A refusal as JSON-RPC: -32001 for what is about the key, -32000 otherwise. */
export function refuse(res: ServerResponse, refusal: Refusal): void {
  rpcError(res, refusal.status, refusal.status === 401 ? -32001 : -32000, refusal.message, refusal.headers);
}

/** A request the server cannot read: answered with `status` and the JSON-RPC `code`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The body as JSON, read within `lease` (the body budget holds its declared length already, and
 * grows with what arrives beyond it) and SVC_MAX_MESSAGE_BYTES.
 */
export async function readJson(req: IncomingMessage, maxBytes: number, lease: BodyLease): Promise<unknown> {
  const tooLarge = () => new HttpError(413, -32600, `Request body over ${maxBytes} bytes (SVC_MAX_MESSAGE_BYTES)`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  let held = Math.min(declared || 0, maxBytes);
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    if (size > held) {
      const refusal = lease.grow(size - held);
      if (refusal) throw new HttpError(refusal.status, -32000, refusal.message, refusal.headers);
      held = size;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, -32700, 'Parse error: the body is not valid JSON');
  }
}

/** Ids of the JSON-RPC requests in a body: the calls to stop if the client goes away before they are answered. */
export function requestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    message && typeof message === 'object' && 'method' in message && 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [],
  );
}

/** The JSON-RPC methods of a body, for its log line. */
export function rpcMethods(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const methods = messages.map((message) => (message && typeof message === 'object' && 'method' in message ? String(message.method) : 'response'));
  return methods.length ? methods.join(',') : undefined;
}
