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
import type { Runtime } from '../runtime.js';

/**
 * Streamable HTTP at `/mcp`, health at `/healthz`.
 *
 * - Every request to /mcp passes, in order: Host check, Origin check (DNS-rebinding protection),
 *   then authentication, before any MCP work.
 * - Each client's `Authorization: Bearer svc_...` is the key of its upstream calls; a client that
 *   brings none is served with SVC_API_KEY when one is configured, else refused with 401.
 * - Stateful (default): one McpServer per session, bound to the key that created it; a request on
 *   that session with another key (or none, when that resolves to another key) gets 403.
 * - Stateless (`--stateless`): a fresh McpServer and transport per POST, no elicitation.
 */

const ENDPOINT = '/mcp';
const HEALTH = '/healthz';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How long a shutdown waits for calls in flight before closing anyway. */
const SHUTDOWN_GRACE_MS = 25_000;
/** A session without any request for this long is closed. */
const SESSION_IDLE_MS = 30 * 60_000;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

interface Session {
  id: string;
  keyHash: string;
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

async function readJson(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, -32600, `Request body over ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, -32600, `Request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, -32700, 'Parse error: the body is not valid JSON');
  }
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
  if (!match) return { invalid: 'Authorization must be "Bearer svc_..."' };
  if (!match[1].startsWith('svc_')) return { invalid: 'The bearer token must be a workspace API key (svc_...)' };
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
  let inFlight = 0;
  let draining = false;
  let port = config.httpPort;

  const newServer = (apiKey: string, elicitationAllowed: boolean) => createMcpServer({ ...runtime, apiKey, elicitationAllowed });

  const handleMcp = async (req: IncomingMessage, res: ServerResponse, log: Record<string, unknown>): Promise<void> => {
    if (!hostAllowed(req.headers.host, port, config.allowedHosts)) {
      return rpcError(res, 403, -32000, 'Forbidden: Host header not allowed (DNS-rebinding protection; see SVC_ALLOWED_HOSTS)');
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, config.allowedOrigins)) {
      return rpcError(res, 403, -32000, 'Forbidden: Origin not allowed (DNS-rebinding protection; see SVC_ALLOWED_ORIGINS)');
    }
    if (draining) return rpcError(res, 503, -32000, 'Server is shutting down', { connection: 'close' });

    const { key, invalid } = requestKey(req, serverKey);
    if (!key) {
      return rpcError(
        res,
        401,
        -32001,
        invalid ?? 'Unauthorized: send your workspace API key as "Authorization: Bearer svc_..." (this server has no key of its own)',
        { 'www-authenticate': 'Bearer' },
      );
    }
    const keyHash = hashKey(key);
    log.key = keyHash;

    const method = req.method ?? 'GET';
    let body: unknown;
    if (method === 'POST') {
      body = await readJson(req);
      log.rpc = rpcMethods(body);
    }

    if (config.stateless) {
      if (method !== 'POST') {
        return rpcError(res, 405, -32000, 'Method not allowed: this server is stateless (POST only)', { allow: 'POST' });
      }
      const server = newServer(key, false);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close().catch(() => undefined);
        void server.close().catch(() => undefined);
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && sessionId !== '') {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(res, 404, -32001, 'Session not found: initialize a new session');
      log.session = sessionId;
      if (session.keyHash !== keyHash) {
        return rpcError(res, 403, -32000, 'Forbidden: this session belongs to another API key');
      }
      session.lastSeen = Date.now();
      session.inFlight++;
      res.on('close', () => {
        session.inFlight--;
        session.lastSeen = Date.now();
      });
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (method !== 'POST' || !(Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
      return rpcError(res, 400, -32000, 'Bad Request: no valid session id (send initialize first, then the Mcp-Session-Id header)');
    }
    const server = newServer(key, true);
    let session: Session | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = { id, keyHash, server, transport, lastSeen: Date.now(), inFlight: 0 };
        sessions.set(id, session);
        log.session = id;
        logger.info({ session: id, key: keyHash }, 'session opened');
      },
    });
    transport.onclose = () => {
      if (session && sessions.delete(session.id)) logger.info({ session: session.id, key: keyHash }, 'session closed');
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const health = async (res: ServerResponse) => {
    const redis = await runtime.limiters.redisReachable();
    sendJson(res, draining ? 503 : 200, {
      ok: !draining,
      version: SERVER_VERSION,
      transport: 'http',
      stateless: config.stateless,
      sessions: sessions.size,
      ...(redis === undefined ? {} : { redis: redis ? 'ok' : 'unreachable' }),
      ...(draining ? { draining: true } : {}),
    });
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
    const work = isMcp
      ? handleMcp(req, res, log)
      : path === HEALTH && req.method === 'GET'
        ? health(res)
        : Promise.resolve(sendJson(res, 404, { error: `Not found: the MCP endpoint is ${ENDPOINT}, health is ${HEALTH}` }));
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
  const hostForUrl = config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost;
  const url = `http://${hostForUrl}:${port}${ENDPOINT}`;

  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const session of sessions.values()) {
      if (session.inFlight === 0 && session.lastSeen < cutoff) void session.transport.close().catch(() => undefined);
    }
  }, 60_000);
  sweep.unref();

  let shutdownPromise: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    shutdownPromise ??= (async () => {
      draining = true;
      logger.info({ reason, inFlight, sessions: sessions.size }, 'shutting down: no new connections, finishing calls in flight');
      clearInterval(sweep);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      const deadline = Date.now() + SHUTDOWN_GRACE_MS;
      // Calls in flight are POSTs; the open-ended GET streams of sessions end when the sessions close.
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
      await Promise.race([runtime.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      logger.info('stopped');
    })();
    return shutdownPromise;
  };

  logger.info(
    { transport: 'http', url, stateless: config.stateless, readOnly: config.readOnly, confirm: config.confirm, sandbox: Boolean(runtime.sandbox), serverKey: Boolean(serverKey) },
    'svc-mcp ready',
  );
  return { url, port, sessions: () => sessions.size, shutdown };
}

/** `SVC_TRANSPORT=http`: serve until SIGTERM or SIGINT, then drain and exit 0. */
export async function serveHttp(runtime: Runtime): Promise<void> {
  const handle = await startHttpServer(runtime);
  let signalled = false;
  const stop = (signal: string) => {
    // A second signal, or a shutdown stuck past its bounds, ends the process at once.
    if (signalled) process.exit(1);
    signalled = true;
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 10_000).unref();
    void handle.shutdown(signal).then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
