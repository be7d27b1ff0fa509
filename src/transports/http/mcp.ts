/**
 * The handlers of /mcp: how a request that passed `checkMcpRequest` reaches an McpServer.
 * - Stateless (`--stateless`): a fresh McpServer and transport per POST, no elicitation, and no
 *   task augmentation unless a shared task store is configured.
 * - Stateful (default): an initialize opens a session (one McpServer, bound to the key that opened
 *   it) within the caps of the `SessionTable`; every later request names it in Mcp-Session-Id.
 * A call stops when its HTTP connection or its session goes away (tasks excepted: they outlive the
 * request by design).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { messageJson } from '../../engine/render/wire.js';
import { prototypeKeyProblem } from '../../engine/prototype-keys.js';
import { createMcpServer, type EngineServer } from '../../engine/server.js';
import { deliverAsReceived } from '../../sdk/incoming.js';
import { eventsSerialisedOnce } from '../../sdk/shortcuts.js';
import { telemetryObservers } from '../../telemetry.js';
import { allowBrowser, answerPreflight } from './cors.js';
import type { Credentials } from './credentials.js';
import { checkMcpRequest, type McpCaller } from './check.js';
import type { HttpContext } from './context.js';
import { readJson, refuse, rpcError, rpcMethods, requestIds, type RequestLog } from './wire.js';
import { keyBindingRefusal, type OpenSession } from './sessions.js';

const NO_SESSION = 'Bad Request: no valid session id (send initialize first, then the Mcp-Session-Id header)';

/** OPTIONS /mcp: a browser's preflight. */
export function mcpPreflight(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): void {
  allowBrowser(req, res, ctx.rules);
  answerPreflight(req, res, ctx.rules);
}

/**
 * POST /mcp: a stateless call, a call on the session it names, or an initialize that opens one.
 * Nothing of the body is read until the key (or token) and the session it names are known good,
 * and then only within the body budget: a made-up key or session id costs its headers alone.
 */
export async function mcpPost(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, log: RequestLog): Promise<void> {
  const caller = await admit(ctx, req, res, log);
  if (!caller) return;
  const session = caller.sessionId === undefined ? undefined : openedSession(ctx, res, caller, log);
  if (caller.sessionId !== undefined && !session) return;
  const lease = ctx.bodies.take(caller.from, Math.min(Number(req.headers['content-length']) || 0, ctx.config.maxMessageBytes));
  if (!('grow' in lease)) return refuse(res, lease);
  res.once('close', lease.release);
  const body = await readJson(req, ctx.config.maxMessageBytes, lease);
  log.rpc = rpcMethods(body);
  const prototypeKey = prototypeKeyProblem(body);
  if (prototypeKey) return rpcError(res, 400, -32600, `Invalid request: ${prototypeKey}`);
  if (ctx.config.stateless) return serveStateless(ctx, req, res, caller.credentials, body);
  if (session) return serveSession(req, res, session, ctx, body);
  if (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body)) return openSession(ctx, req, res, caller.credentials, body, log);
  rpcError(res, 400, -32000, NO_SESSION);
}

/** GET (a session's stream), DELETE (its end) and any other method on /mcp: only an open session's transport answers them. */
export async function mcpSessionRequest(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, log: RequestLog): Promise<void> {
  const caller = await admit(ctx, req, res, log);
  if (!caller) return;
  if (ctx.config.stateless) return rpcError(res, 405, -32000, 'Method not allowed: this server is stateless (POST only)', { allow: 'POST' });
  if (caller.sessionId === undefined) return rpcError(res, 400, -32000, NO_SESSION);
  const session = openedSession(ctx, res, caller, log);
  if (session) return serveSession(req, res, session, ctx, undefined);
}

/** CORS headers for an allowed page, then the request check; a refused request is answered here. */
async function admit(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, log: RequestLog): Promise<McpCaller | undefined> {
  allowBrowser(req, res, ctx.rules);
  const checked = await checkMcpRequest(ctx, req);
  if (!('credentials' in checked)) {
    refuse(res, checked);
    return undefined;
  }
  log.key = checked.credentials.keyHash;
  return checked;
}

async function serveStateless(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, { key, readOnly }: Credentials, body: unknown): Promise<void> {
  const server = newServer(ctx, key, true, readOnly);
  const transport = newTransport(ctx, { sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await connect(server, transport);
  await transport.handleRequest(req, res, body);
}

/** The open session a request names, if it is there and bound to the request's key; else the request is refused here. */
function openedSession(ctx: HttpContext, res: ServerResponse, { credentials, sessionId }: McpCaller, log: RequestLog): OpenSession | undefined {
  const session = ctx.sessions.get(sessionId!);
  if (!session) {
    rpcError(res, 404, -32001, 'Session not found: initialize a new session');
    return undefined;
  }
  log.session = sessionId;
  const foreign = keyBindingRefusal(session, credentials);
  if (!foreign) return session;
  refuse(res, foreign);
  return undefined;
}

async function serveSession(req: IncomingMessage, res: ServerResponse, session: OpenSession, ctx: HttpContext, body: unknown): Promise<void> {
  // A GET stream is held open while the client is idle, so it neither keeps the session busy nor counts as activity.
  if (req.method !== 'GET') ctx.sessions.track(session, res);
  const ids = requestIds(body);
  res.on('close', () => {
    // The client went away before its answers were written: its calls stop, as on cancellation.
    if (!res.writableFinished) for (const id of ids) cancelCall(session.transport, id);
  });
  await session.transport.handleRequest(req, res, body);
}

async function openSession(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, { key, keyHash, readOnly }: Credentials, body: unknown, log: RequestLog): Promise<void> {
  const { sessions, runtime } = ctx;
  const slot = sessions.reserve(keyHash);
  if (!('release' in slot)) return refuse(res, slot);
  const server = newServer(ctx, key, false, readOnly);
  const transport: StreamableHTTPServerTransport = newTransport(ctx, {
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      const session: OpenSession = { id, keyHash, readOnly, transport, lastActive: Date.now(), calls: 0 };
      slot.open(session);
      sessions.track(session, res);
      log.session = id;
      runtime.logger.info({ session: id, key: keyHash }, 'session opened');
    },
  });
  transport.onclose = () => {
    slot.release();
    if (slot.session) runtime.logger.info({ session: slot.session.id, key: keyHash }, 'session closed');
    void server.close().catch(() => undefined);
  };
  // An initialize that did not open a session (refused, or the client left) gives its slot back.
  res.on('close', () => {
    if (!slot.session) {
      slot.release();
      void server.close().catch(() => undefined);
    }
  });
  await connect(server, transport);
  await transport.handleRequest(req, res, body);
}

/** The SDK's Streamable HTTP transport, writing each answer's events as `eventsSerialisedOnce` says. */
function newTransport(ctx: HttpContext, options: StreamableHTTPServerTransportOptions): StreamableHTTPServerTransport {
  const transport = new StreamableHTTPServerTransport(options);
  eventsSerialisedOnce(transport, messageJson, ctx.config.sdkShortcuts);
  return transport;
}

function connect(server: EngineServer, transport: StreamableHTTPServerTransport): Promise<void> {
  return server.connect(
    transport,
    telemetryObservers('tcp', () => transport.sessionId),
  );
}

function newServer(ctx: HttpContext, apiKey: string, stateless: boolean, readOnly: boolean): EngineServer {
  const { runtime, config } = ctx;
  return createMcpServer({
    ...runtime,
    ...(readOnly ? { config: { ...config, readOnly: true, readOnlyGrant: !config.readOnly } } : {}),
    apiKey,
    elicitationAllowed: !stateless,
    ...(stateless && !config.redisUrl ? { taskStore: null } : {}),
  });
}

/** Stops one call of a session the way a client's `notifications/cancelled` would. */
function cancelCall(transport: StreamableHTTPServerTransport, requestId: string | number): void {
  deliverAsReceived(transport, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the HTTP connection closed' } });
}
