import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../config.js';
import { withoutStackTraces } from '../engine/sdk-costs.js';
import { createMcpServer } from '../engine/server.js';
import { SERVER_VERSION } from '../meta.js';
import type { OAuthGate } from '../oauth/index.js';
import type { Runtime } from '../runtime.js';
import { instrumentTransport } from '../telemetry.js';
import { hostRefusal, isLoopbackHost, KEY_HELP, originRefusal, resolveCredentials, type CredentialRules, type Credentials, type Refusal } from './credentials.js';
import { waitWhile } from './drain.js';
import { KeyVerifier } from './key-check.js';
import { SessionTable, type OpenSession } from './sessions.js';

/**
 * Streamable HTTP at `/mcp`, liveness at `/healthz`, readiness at `/readyz`.
 *
 * - Every request passes the Host check (DNS-rebinding protection); a request to /mcp then passes
 *   `resolveCredentials`: Origin, the key (each client's own `Authorization: Bearer svc_...`, else
 *   SVC_API_KEY when configured, else 401), and for a request that would open a session the API's
 *   verdict on that key (401 when refused, 503 when the API cannot be asked), before any MCP work.
 * - SVC_AUTH=oauth (src/oauth): an access token stands for the key a person gave on the server's
 *   authorization page, read-only if they chose so; bringing nothing gets a 401 that starts OAuth.
 * - Stateful (default): one McpServer per session, bound to the key that created it; a request on
 *   that session with another key (or none, when that resolves to another key) gets 403.
 * - Stateless (`--stateless`): a fresh McpServer and transport per POST, no elicitation, and no
 *   task augmentation unless a shared task store is configured.
 * - Sessions are capped in total and per key (`SessionTable`: a key at its cap gives up its least
 *   recently used idle session), and closed after SVC_SESSION_IDLE_MS without a request, an open
 *   GET stream notwithstanding. A call stops when its HTTP connection or its session goes away
 *   (tasks excepted: they outlive the request by design).
 * - Drain (SIGTERM): /readyz turns 503 and new sessions (every stateless request) get 503, so a
 *   load balancer moves traffic elsewhere; calls and tasks in flight get SVC_DRAIN_MS to finish.
 */

const ENDPOINT = '/mcp';
const HEALTH = '/healthz';
const READY = '/readyz';
/** Tasks still running are handed back this long before the drain ends (at most half of it), so a client awaiting one here still gets the answer. */
const TASK_HANDBACK_MS = 2000;
/** How often idle sessions are looked for, at most. */
const SWEEP_EVERY_MS = 30_000;
/**
 * Where OAuth clients look after a 401 (RFC 9728 and RFC 8414 metadata, OpenID discovery, dynamic
 * client registration). They get a 404 like any unknown path, but one that says what to do instead:
 * mcp-remote, for one, prints the body of the failed registration.
 */
const OAUTH_PROBE = /^\/(\.well-known\/(oauth-|openid-configuration)|register$|authorize$|token$)|\/\.well-known\/openid-configuration$/;
/** What a browser page of an allowed origin may send to /mcp and read back (CORS). */
const CORS_EXPOSED = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';
const CORS_PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
  'access-control-max-age': '600',
};

export interface HttpServerHandle {
  url: string;
  port: number;
  sessions(): number;
  /** Closes sessions idle longer than SVC_SESSION_IDLE_MS as of `now` (run every sweep; callable by tests). */
  evictIdle(now?: number): void;
  /** Stops accepting, waits for calls in flight (bounded), closes sessions and the runtime. */
  shutdown(reason: string): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** A refusal as JSON-RPC: -32001 for what is about the key, -32000 otherwise. */
function refuse(res: ServerResponse, refusal: Refusal): void {
  rpcError(res, refusal.status, refusal.status === 401 ? -32001 : -32000, refusal.message, refusal.headers);
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () => new HttpError(413, -32600, `Request body over ${maxBytes} bytes (SVC_MAX_MESSAGE_BYTES)`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, -32700, 'Parse error: the body is not valid JSON');
  }
}

/** Ids of the JSON-RPC requests in a body: the calls to stop if the client goes away before they are answered. */
function requestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    message && typeof message === 'object' && 'method' in message && 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [],
  );
}

function rpcMethods(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const methods = messages.map((message) => (message && typeof message === 'object' && 'method' in message ? String(message.method) : 'response'));
  return methods.length ? methods.join(',') : undefined;
}

/**
 * Lets a page of an allowed origin (one in SVC_ALLOWED_ORIGINS, such as the MCP Inspector's UI,
 * or this server's own) read /mcp's answers (CORS). Whether the request may go on is decided
 * by `resolveCredentials`, or for a preflight by `answerPreflight`.
 */
function allowBrowser(req: IncomingMessage, res: ServerResponse, rules: CredentialRules): void {
  const origin = req.headers.origin;
  if (origin === undefined || originRefusal(req, rules)) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', CORS_EXPOSED);
  res.setHeader('vary', 'Origin');
}

/** A browser's preflight carries no key: it passes the Host and Origin checks alone. */
function answerPreflight(req: IncomingMessage, res: ServerResponse, rules: CredentialRules): void {
  const refusal = hostRefusal(req, rules) ?? originRefusal(req, rules);
  if (refusal) return refuse(res, refusal);
  res.writeHead(204, CORS_PREFLIGHT).end();
}

export async function startHttpServer(runtime: Runtime): Promise<HttpServerHandle> {
  const { config, logger } = runtime;
  if (!isLoopbackHost(config.httpHost) && config.allowedHosts.length === 0) {
    throw new ConfigError(
      `SVC_HTTP_HOST=${config.httpHost} is not a loopback address: set SVC_ALLOWED_HOSTS to the host name(s) clients use (for example mcp.example.com), or bind to 127.0.0.1 behind a reverse proxy`,
    );
  }
  const sessions = new SessionTable(config, logger);
  /** `port` is the requested one until the listener reports the one it got. */
  const rules: CredentialRules = {
    port: config.httpPort,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    serverKey: config.apiKey,
    verifier: new KeyVerifier(runtime.client, logger),
  };
  let inFlight = 0;
  let draining = false;
  /** SVC_AUTH=oauth: its routes and access tokens (src/oauth), made once the listener's address, the sandbox's default public URL, is known. */
  const oauthModule = config.auth === 'oauth' ? await import('../oauth/index.js') : undefined;
  let oauth: OAuthGate | undefined;

  const newServer = (apiKey: string, stateless: boolean, readOnly: boolean) =>
    createMcpServer({
      ...runtime,
      ...(readOnly ? { config: { ...config, readOnly: true } } : {}),
      apiKey,
      elicitationAllowed: !stateless,
      ...(stateless && !runtime.config.redisUrl ? { taskStore: null } : {}),
    });

  const handleMcp = async (req: IncomingMessage, res: ServerResponse, log: Record<string, unknown>): Promise<void> => {
    allowBrowser(req, res, rules);
    if (req.method === 'OPTIONS') return answerPreflight(req, res, rules);
    const method = req.method ?? 'GET';
    const sessionId = req.headers['mcp-session-id'];
    const onSession = !config.stateless && typeof sessionId === 'string' && sessionId !== '';
    if (draining && !onSession) return rpcError(res, 503, -32000, 'Server is shutting down: retry on another node', { connection: 'close' });
    // A request that would open a session has its key checked with the API first; one on a session was checked when it opened.
    const credentials = await resolveCredentials(req, rules, method === 'POST' && !onSession);
    if (!('key' in credentials)) return refuse(res, credentials);
    log.key = credentials.keyHash;
    let body: unknown;
    if (method === 'POST') {
      body = await readJson(req, config.maxMessageBytes);
      log.rpc = rpcMethods(body);
    }
    if (config.stateless) return serveStateless(req, res, credentials, body);
    if (onSession) return serveSession(req, res, credentials, sessionId, body, log);
    return openSession(req, res, credentials, body, log);
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, { key, readOnly }: Credentials, body: unknown): Promise<void> => {
    if (req.method !== 'POST') {
      return rpcError(res, 405, -32000, 'Method not allowed: this server is stateless (POST only)', { allow: 'POST' });
    }
    const server = newServer(key, true, readOnly);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    instrumentTransport(transport, 'tcp');
    await withoutStackTraces(() => transport.handleRequest(req, res, body));
  };

  const serveSession = async (req: IncomingMessage, res: ServerResponse, { keyHash, readOnly }: Credentials, sessionId: string, body: unknown, log: Record<string, unknown>): Promise<void> => {
    const session = sessions.get(sessionId);
    if (!session) return rpcError(res, 404, -32001, 'Session not found: initialize a new session');
    log.session = sessionId;
    if (session.keyHash !== keyHash) return rpcError(res, 403, -32000, 'Forbidden: this session belongs to another API key');
    if (session.readOnly !== readOnly) {
      return rpcError(res, 403, -32000, `Forbidden: this session was opened with ${session.readOnly ? 'read-only' : 'read and write'} access; open a new session`);
    }
    // A GET stream is held open while the client is idle, so it neither keeps the session busy nor counts as activity.
    if (req.method !== 'GET') sessions.track(session, res);
    const ids = requestIds(body);
    res.on('close', () => {
      // The client went away before its answers were written: its calls stop, as on cancellation.
      if (!res.writableFinished) for (const id of ids) cancelCall(session.transport, id);
    });
    await withoutStackTraces(() => session.transport.handleRequest(req, res, body));
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, { key, keyHash, readOnly }: Credentials, body: unknown, log: Record<string, unknown>): Promise<void> => {
    if (req.method !== 'POST' || !(Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid session id (send initialize first, then the Mcp-Session-Id header)');
    }
    const slot = sessions.reserve(keyHash);
    if (!('release' in slot)) return rpcError(res, slot.status, -32000, slot.message, { 'retry-after': '60' });
    const server = newServer(key, false, readOnly);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: OpenSession = { id, keyHash, readOnly, transport, lastActive: Date.now(), calls: 0 };
        slot.open(session);
        sessions.track(session, res);
        log.session = id;
        logger.info({ session: id, key: keyHash }, 'session opened');
      },
    });
    transport.onclose = () => {
      slot.release();
      if (slot.session) logger.info({ session: slot.session.id, key: keyHash }, 'session closed');
      void server.close().catch(() => undefined);
    };
    // An initialize that did not open a session (refused, or the client left) gives its slot back.
    res.on('close', () => {
      if (!slot.session) {
        slot.release();
        void server.close().catch(() => undefined);
      }
    });
    await server.connect(transport);
    instrumentTransport(transport, 'tcp');
    await transport.handleRequest(req, res, body);
  };

  const health = async (res: ServerResponse) => {
    const redis = await runtime.limiters.redisReachable();
    sendJson(res, 200, {
      ok: true,
      version: SERVER_VERSION,
      transport: 'http',
      stateless: config.stateless,
      sessions: sessions.size,
      maxSessions: config.maxSessions,
      ...(redis === undefined ? {} : { redis: redis ? 'ok' : 'unreachable' }),
      ...(draining ? { draining: true } : {}),
    });
  };
  const ready = (res: ServerResponse) => sendJson(res, draining ? 503 : 200, { ready: !draining, ...(draining ? { draining: true } : {}) });

  const route = async (req: IncomingMessage, res: ServerResponse, path: string, log: Record<string, unknown>): Promise<void> => {
    if (path === ENDPOINT) return handleMcp(req, res, log);
    const isProbe = (path === HEALTH || path === READY) && req.method === 'GET';
    // Every other route checks the Host here; /mcp's credentials begin with it. A probe without
    // any Host (HAProxy's httpchk speaks HTTP/1.0) cannot be a browser's: browsers always send one.
    const foreignHost = isProbe && req.headers.host === undefined ? undefined : hostRefusal(req, rules);
    if (foreignHost) return refuse(res, foreignHost);
    if (isProbe) return path === HEALTH ? health(res) : ready(res);
    if (oauth?.serves(path)) return oauth.handle(req, res);
    if (!oauth && OAUTH_PROBE.test(path)) return sendJson(res, 404, { error: `Not found: ${KEY_HELP}` });
    sendJson(res, 404, { error: `Not found: the MCP endpoint is ${ENDPOINT}, health is ${HEALTH}, readiness is ${READY}` });
  };

  const httpServer = http.createServer((req, res) => {
    const started = Date.now();
    const path = (req.url ?? '/').split('?')[0];
    const log: Record<string, unknown> = { method: req.method, path };
    const isMcp = path === ENDPOINT;
    const isCall = isMcp && req.method !== 'GET';
    if (isCall) inFlight++;
    res.on('close', () => {
      if (isCall) inFlight--;
      // Never the key or the body: the key hash identifies the tenant.
      logger.info({ ...log, status: res.statusCode, ms: Date.now() - started }, 'http request');
    });
    route(req, res, path, log).catch((error: unknown) => {
      if (error instanceof HttpError) return rpcError(res, error.status, error.code, error.message);
      logger.error({ err: error, path }, 'http handler failed');
      rpcError(res, 500, -32603, 'Internal server error');
    });
  });
  httpServer.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.httpPort, config.httpHost, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  rules.port = port;
  oauth = oauthModule?.createOAuthGate(runtime, config.publicUrl ?? `http://127.0.0.1:${port}`);
  rules.accessTokens = oauth;
  const hostForUrl = config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost;
  const url = `http://${hostForUrl}:${port}${ENDPOINT}`;

  const evictIdle = (now?: number) => sessions.evictIdle(now);
  const sweep = setInterval(evictIdle, Math.min(SWEEP_EVERY_MS, config.sessionIdleMs));
  sweep.unref();

  let shutdownPromise: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    shutdownPromise ??= (async () => {
      draining = true;
      const { runningTasks } = runtime;
      logger.info({ reason, inFlight, tasks: runningTasks.size, sessions: sessions.size, drainMs: config.drainMs }, 'shutting down: not ready, no new sessions, finishing calls and tasks in flight');
      clearInterval(sweep);
      const deadline = Date.now() + config.drainMs;
      // Calls in flight are POSTs; the open-ended GET streams of sessions end when the sessions close.
      await waitWhile(() => inFlight > 0 || runningTasks.size > 0, deadline - Math.min(TASK_HANDBACK_MS, config.drainMs / 2));
      if (runningTasks.size > 0) {
        logger.warn({ tasks: runningTasks.size }, 'drain bound reached: tasks still running end as failed');
        await runningTasks.failAll('This server node was stopped before the task finished (SVC_DRAIN_MS ran out). Start the call again.');
      }
      await waitWhile(() => inFlight > 0, deadline);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      await Promise.all(sessions.all().map((session) => session.transport.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
      await Promise.race([runtime.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      logger.info('stopped');
    })();
    return shutdownPromise;
  };

  if ((config.redisUrl || config.stateless) && config.confirm !== 'none' && !config.confirmSecretGiven) {
    logger.warn('SVC_CONFIRM_SECRET is not set: this node signs confirmation tokens with its own random secret, so a token minted here fails on any other node of the fleet. Give every node the same SVC_CONFIRM_SECRET.');
  }
  logger.info(
    { transport: 'http', url, stateless: config.stateless, readOnly: config.readOnly, confirm: config.confirm, sandbox: Boolean(runtime.sandbox), serverKey: Boolean(config.apiKey) },
    'svc-mcp ready',
  );
  return { url, port, sessions: () => sessions.size, evictIdle, shutdown };
}

/** Stops one call of a session the way a client's `notifications/cancelled` would. */
function cancelCall(transport: StreamableHTTPServerTransport, requestId: string | number): void {
  transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the HTTP connection closed' } });
}

/** `SVC_TRANSPORT=http`: serve until SIGTERM or SIGINT, then drain and exit 0. */
export async function serveHttp(runtime: Runtime): Promise<void> {
  const handle = await startHttpServer(runtime);
  let signalled = false;
  const stop = (signal: string) => {
    // A second signal, or a shutdown stuck past its bounds, ends the process at once.
    if (signalled) process.exit(1);
    signalled = true;
    setTimeout(() => process.exit(1), runtime.config.drainMs + 10_000).unref();
    void handle.shutdown(signal).then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
