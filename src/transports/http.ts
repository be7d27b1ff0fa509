import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../config.js';
import { createMcpServer } from '../engine/server.js';
import { SERVER_VERSION } from '../engine/types.js';
import { hashKey } from '../http/limiter.js';
import type { OAuthGate } from '../oauth/index.js';
import type { Runtime } from '../runtime.js';
import { instrumentTransport } from '../telemetry.js';
import { waitWhile } from './drain.js';

/**
 * Streamable HTTP at `/mcp`, liveness at `/healthz`, readiness at `/readyz`.
 *
 * - Every request to /mcp passes, in order: Host check, Origin check (DNS-rebinding protection),
 *   then authentication, before any MCP work.
 * - Each client's `Authorization: Bearer svc_...` is the key of its upstream calls; a client that
 *   brings none is served with SVC_API_KEY when one is configured, else refused with 401.
 * - SVC_AUTH=oauth (src/oauth): an access token stands for the key a person gave on the server's
 *   authorization page, read-only if they chose so; bringing nothing gets a 401 that starts OAuth.
 * - Stateful (default): one McpServer per session, bound to the key that created it; a request on
 *   that session with another key (or none, when that resolves to another key) gets 403.
 * - Stateless (`--stateless`): a fresh McpServer and transport per POST, no elicitation, and no
 *   task augmentation unless a shared task store is configured.
 * - Sessions are capped in total (503) and per key (429), made only for a key of the right shape,
 *   and closed after SVC_SESSION_IDLE_MS without a request. A call stops when its HTTP connection
 *   or its session goes away (tasks excepted: they outlive the request by design).
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
/** The cheap shape of a workspace key, checked before a session (about 80 KB of heap) is made for it. */
export const KEY_SHAPE = /^svc_[A-Za-z0-9_-]{8,200}$/;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/**
 * How a client brings its key, in every refusal that is about the key. In key mode (the default) the
 * header is the only way: the workspace API has no OAuth, so this server publishes no OAuth metadata.
 */
const KEY_HELP =
  'send your workspace API key in the header "Authorization: Bearer svc_..." (this server does not use OAuth; ' +
  'client configurations with that header are in the README, section "Hosted HTTP")';
/**
 * Where OAuth clients look after a 401 (RFC 9728 and RFC 8414 metadata, OpenID discovery, dynamic
 * client registration). In key mode they get a 404 like any unknown path, but one that says what to
 * do instead: mcp-remote, for one, prints the body of the failed registration.
 */
const OAUTH_PROBE = /^\/(\.well-known\/(oauth-|openid-configuration)|register$|authorize$|token$)|\/\.well-known\/openid-configuration$/;

interface Session {
  id: string;
  keyHash: string;
  /** Opened through a read-only OAuth grant: its server lists and runs read tools only. */
  readOnly: boolean;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** Open requests on the session, GET streams included: a session in use is never swept. */
  inFlight: number;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  sessions(): number;
  /** Closes sessions idle longer than SVC_SESSION_IDLE_MS as of `now` (run every sweep; callable by tests). */
  evictIdle(now?: number): void;
  /** Stops accepting, waits for calls in flight (bounded), closes sessions and the runtime. */
  shutdown(reason: string): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
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

/** Origin rules: absent (not a browser) is fine; loopback origins; configured origins exactly. */
export function originAllowed(origin: string | undefined, allowedOrigins: string[]): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK_NAMES.includes(parsed.hostname.toLowerCase())) return true;
  return allowedOrigins.some((entry) => {
    try {
      return new URL(entry).origin === parsed.origin;
    } catch {
      return false;
    }
  });
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

/** The key of a request: its own bearer token, else the server's key; `invalid` for a malformed header. */
function requestKey(req: IncomingMessage, serverKey: string | undefined): { key?: string; invalid?: string } {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return { key: serverKey };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { invalid: `Unauthorized: the Authorization header is not "Bearer <key>"; ${KEY_HELP}` };
  if (!KEY_SHAPE.test(match[1])) return { invalid: `Unauthorized: the bearer token is not a workspace API key (svc_ followed by 8-200 letters, digits, _ or -); ${KEY_HELP}` };
  return { key: match[1] };
}

export async function startHttpServer(runtime: Runtime): Promise<HttpServerHandle> {
  const { config, logger } = runtime;
  if (!isLoopbackHost(config.httpHost) && config.allowedHosts.length === 0) {
    throw new ConfigError(
      `SVC_HTTP_HOST=${config.httpHost} is not a loopback address: set SVC_ALLOWED_HOSTS to the host name(s) clients use (for example mcp.example.com), or bind to 127.0.0.1 behind a reverse proxy`,
    );
  }
  const serverKey = config.apiKey;
  const sessions = new Map<string, Session>();
  /** Sessions open or being opened, per key hash: slots are taken before initialize is handled, so a burst cannot overshoot the caps. */
  const slots = new Map<string, number>();
  let slotsTaken = 0;
  const releaseSlot = (keyHash: string) => {
    slotsTaken--;
    const left = (slots.get(keyHash) ?? 1) - 1;
    if (left > 0) slots.set(keyHash, left);
    else slots.delete(keyHash);
  };
  let inFlight = 0;
  let draining = false;
  let port = config.httpPort;
  /** SVC_AUTH=oauth: its routes and access tokens (src/oauth), made once the listener's address, the sandbox's default public URL, is known. */
  const oauthModule = config.auth === 'oauth' ? await import('../oauth/index.js') : undefined;
  let oauth: OAuthGate | undefined;
  /** Who a /mcp request acts for: an OAuth access token first (oauth mode), else the bearer key path. */
  const identify = async (req: IncomingMessage): Promise<{ key?: string; readOnly?: boolean; invalid?: string; challenge?: string }> =>
    (await oauth?.authenticate(req)) ?? requestKey(req, serverKey);

  const newServer = (apiKey: string, stateless: boolean, readOnly: boolean) =>
    createMcpServer({
      ...runtime,
      ...(readOnly ? { config: { ...config, readOnly: true } } : {}),
      apiKey,
      elicitationAllowed: !stateless,
      ...(stateless && !runtime.config.redisUrl ? { taskStore: null } : {}),
    });

  const handleMcp = async (req: IncomingMessage, res: ServerResponse, log: Record<string, unknown>): Promise<void> => {
    if (!hostAllowed(req.headers.host, port, config.allowedHosts)) {
      return rpcError(res, 403, -32000, 'Forbidden: Host header not allowed (DNS-rebinding protection; see SVC_ALLOWED_HOSTS)');
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, config.allowedOrigins)) {
      return rpcError(res, 403, -32000, 'Forbidden: Origin not allowed (DNS-rebinding protection; see SVC_ALLOWED_ORIGINS)');
    }

    const { key, readOnly = false, invalid, challenge } = await identify(req);
    if (!key) {
      return rpcError(
        res,
        401,
        -32001,
        invalid ?? `Unauthorized: this server has no API key of its own, so ${KEY_HELP}`,
        // RFC 6750 asks for the challenge on a 401; in key mode it names no resource metadata, since there is none.
        { 'www-authenticate': challenge ?? 'Bearer realm="svc-mcp"' },
      );
    }
    const keyHash = hashKey(key);
    log.key = keyHash;

    const method = req.method ?? 'GET';
    let body: unknown;
    if (method === 'POST') {
      body = await readJson(req, config.maxMessageBytes);
      log.rpc = rpcMethods(body);
    }

    const sessionId = req.headers['mcp-session-id'];
    const newSession = config.stateless || typeof sessionId !== 'string' || sessionId === '';
    if (draining && newSession) return rpcError(res, 503, -32000, 'Server is shutting down: retry on another node', { connection: 'close' });

    if (config.stateless) {
      if (method !== 'POST') {
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
      await transport.handleRequest(req, res, body);
      return;
    }

    if (!newSession) {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(res, 404, -32001, 'Session not found: initialize a new session');
      log.session = sessionId;
      if (session.keyHash !== keyHash) {
        return rpcError(res, 403, -32000, 'Forbidden: this session belongs to another API key');
      }
      if (session.readOnly !== readOnly) {
        return rpcError(res, 403, -32000, `Forbidden: this session was opened with ${session.readOnly ? 'read-only' : 'read and write'} access; open a new session`);
      }
      session.lastSeen = Date.now();
      session.inFlight++;
      const ids = requestIds(body);
      res.on('close', () => {
        session.inFlight--;
        session.lastSeen = Date.now();
        // The client went away before its answers were written: its calls stop, as on cancellation.
        if (!res.writableFinished) for (const id of ids) cancelCall(session.transport, id);
      });
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (method !== 'POST' || !(Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid session id (send initialize first, then the Mcp-Session-Id header)');
    }
    if (slotsTaken >= config.maxSessions) {
      return rpcError(res, 503, -32000, `Too many sessions: this server holds at most ${config.maxSessions} (SVC_MAX_SESSIONS); close unused sessions (DELETE with the Mcp-Session-Id) or try again later`, { 'retry-after': '60' });
    }
    if ((slots.get(keyHash) ?? 0) >= config.maxSessionsPerKey) {
      return rpcError(res, 429, -32000, `Too many sessions for this API key: at most ${config.maxSessionsPerKey} at once (SVC_MAX_SESSIONS_PER_KEY); close unused sessions (DELETE with the Mcp-Session-Id) or reuse one`, { 'retry-after': '60' });
    }
    slotsTaken++;
    slots.set(keyHash, (slots.get(keyHash) ?? 0) + 1);
    const server = newServer(key, false, readOnly);
    let session: Session | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = { id, keyHash, readOnly, server, transport, lastSeen: Date.now(), inFlight: 0 };
        sessions.set(id, session);
        log.session = id;
        logger.info({ session: id, key: keyHash }, 'session opened');
      },
    });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      releaseSlot(keyHash);
    };
    transport.onclose = () => {
      release();
      if (session && sessions.delete(session.id)) logger.info({ session: session.id, key: keyHash }, 'session closed');
      void server.close().catch(() => undefined);
    };
    // An initialize that did not open a session (refused, or the client left) gives its slot back.
    res.on('close', () => {
      if (!session) {
        release();
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
    const work = isMcp
      ? handleMcp(req, res, log)
      : path === HEALTH && req.method === 'GET'
        ? health(res)
        : path === READY && req.method === 'GET'
          ? Promise.resolve(ready(res))
          : oauth?.serves(path)
            ? Promise.resolve(
                hostAllowed(req.headers.host, port, config.allowedHosts)
                  ? oauth.handle(req, res)
                  : sendJson(res, 403, { error: 'Forbidden: Host header not allowed (DNS-rebinding protection; see SVC_ALLOWED_HOSTS)' }),
              )
            : !oauth && OAUTH_PROBE.test(path)
              ? Promise.resolve(sendJson(res, 404, { error: `Not found: ${KEY_HELP}` }))
              : Promise.resolve(sendJson(res, 404, { error: `Not found: the MCP endpoint is ${ENDPOINT}, health is ${HEALTH}, readiness is ${READY}` }));
    work.catch((error: unknown) => {
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
  port = (httpServer.address() as AddressInfo).port;
  oauth = oauthModule?.createOAuthGate(runtime, config.publicUrl ?? `http://127.0.0.1:${port}`);
  const hostForUrl = config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost;
  const url = `http://${hostForUrl}:${port}${ENDPOINT}`;

  const evictIdle = (now = Date.now()) => {
    const cutoff = now - config.sessionIdleMs;
    for (const session of sessions.values()) {
      if (session.inFlight === 0 && session.lastSeen < cutoff) void session.transport.close().catch(() => undefined);
    }
  };
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
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
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
    { transport: 'http', url, stateless: config.stateless, readOnly: config.readOnly, confirm: config.confirm, sandbox: Boolean(runtime.sandbox), serverKey: Boolean(serverKey) },
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
