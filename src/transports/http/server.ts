import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../config.js';
import { initializeChecksByMethod } from '../../sdk/shortcuts.js';
import { SERVER_VERSION } from '../../meta.js';
import type { Runtime } from '../../runtime.js';
import { isLoopbackHost } from '../../access.js';
import { explainListenError } from '../../listen.js';
import { KEY_HELP } from './credentials.js';
import { routeHostRefusal, type HostCheck } from './check.js';
import { createHttpContext, useOAuth, type HttpContext } from './context.js';
import { drainHttpServer } from './drain.js';
import { mcpPost, mcpPreflight, mcpSessionRequest } from './mcp.js';
import { HttpError, refuse, rpcError, sendJson, type RequestLog } from './wire.js';

/**
 * Streamable HTTP at `/mcp`, liveness at `/healthz`, readiness at `/readyz`: the routes below.
 *
 * - Every request passes the Host check (DNS-rebinding protection); a request to /mcp then passes
 *   `resolveCredentials`: Origin, the key (each client's own `Authorization: Bearer svc_...`, else
 *   SVC_API_KEY when configured, else 401), and for a request that would open a session the API's
 *   verdict on that key (401 when refused, 503 when the API cannot be asked), before any MCP work
 *   (check.ts).
 * - SVC_AUTH=oauth (src/oauth): an access token stands for the key a person gave on the server's
 *   authorization page, read-only if they chose so; bringing nothing gets a 401 that starts OAuth.
 * - Stateful (default) or stateless (`--stateless`): mcp.ts. A session is bound to the key that
 *   created it; a request on that session with another key (or none, when that resolves to another
 *   key) gets 403.
 * - Sessions are capped in total and per key (`SessionTable`: a key at its cap gives up its least
 *   recently used idle session), and closed after SVC_SESSION_IDLE_MS without a request, an open
 *   GET stream notwithstanding.
 * - Drain (SIGTERM): drain.ts.
 */

const ENDPOINT = '/mcp';
const HEALTH = '/healthz';
const READY = '/readyz';
/**
 * Where OAuth clients look after a 401 (RFC 9728 and RFC 8414 metadata, OpenID discovery, dynamic
 * client registration). They get a 404 like any unknown path, but one that says what to do instead:
 * mcp-remote, for one, prints the body of the failed registration.
 */
const OAUTH_PROBE = /^\/(\.well-known\/(oauth-|openid-configuration)|register$|authorize$|token$)|\/\.well-known\/openid-configuration$/;

/**
 * A request must arrive whole, headers and body, within 30 s of its first byte (its headers within
 * 10 s), checked every second: a slow body, or one sent half and held, is cut off with 408 rather
 * than held for Node's default 300 s. Answers are not timed: a long call or an open GET stream
 * runs as long as it needs once its request is in.
 */
export const REQUEST_TIMEOUTS = { requestTimeout: 30_000, headersTimeout: 10_000, connectionsCheckingInterval: 1_000 };

/** The most an OAuth route reads of a body (express's parsers' limit), held under the body budget while it is read. */
const OAUTH_BODY_BYTES = 100 * 1024;

export interface HttpServerHandle {
  url: string;
  port: number;
  sessions(): number;
  /** Requests to the MCP endpoint being answered now, which a drain waits for. */
  callsInFlight(): number;
  /** Request body bytes held now under the body budget, in total or for one client address. */
  bodyBytesHeld(address?: string): number;
  /** Closes sessions idle longer than SVC_SESSION_IDLE_MS as of `now` (run every sweep; callable by tests). */
  evictIdle(now?: number): void;
  /** Stops accepting, waits for calls in flight (bounded), closes sessions and the runtime. */
  shutdown(reason: string): Promise<void>;
}

type Handler = (ctx: HttpContext, req: IncomingMessage, res: ServerResponse, log: RequestLog) => void | Promise<void>;

interface Route {
  /** An HTTP method, or ANY. */
  method: string;
  path: string | ((path: string, ctx: HttpContext) => boolean);
  /** The Host check before the handler; /mcp's handlers check Host, Origin and the key themselves. */
  host: HostCheck | 'by handler';
  handle: Handler;
}

const ANY = '*';

/** Method and path → handler; the first route that matches serves the request. */
const ROUTES: Route[] = [
  { method: 'OPTIONS', path: ENDPOINT, host: 'by handler', handle: mcpPreflight },
  { method: 'POST', path: ENDPOINT, host: 'by handler', handle: mcpPost },
  { method: 'GET', path: ENDPOINT, host: 'by handler', handle: mcpSessionRequest },
  { method: 'DELETE', path: ENDPOINT, host: 'by handler', handle: mcpSessionRequest },
  // Other methods reach the session's transport too, which answers them 405.
  { method: ANY, path: ENDPOINT, host: 'by handler', handle: mcpSessionRequest },
  { method: 'GET', path: HEALTH, host: 'when sent', handle: health },
  { method: 'GET', path: READY, host: 'when sent', handle: ready },
  { method: ANY, path: (path, ctx) => ctx.oauth?.serves(path) === true, host: 'always', handle: serveOAuth },
  { method: ANY, path: (path, ctx) => !ctx.oauth && OAUTH_PROBE.test(path), host: 'always', handle: (_ctx, _req, res) => sendJson(res, 404, { error: `Not found: ${KEY_HELP}` }) },
  { method: ANY, path: () => true, host: 'always', handle: notFound },
];

export async function startHttpServer(runtime: Runtime): Promise<HttpServerHandle> {
  const { config } = runtime;
  if (!isLoopbackHost(config.httpHost) && config.allowedHosts.length === 0) {
    throw new ConfigError(
      `SVC_HTTP_HOST=${config.httpHost} is not a loopback address: set SVC_ALLOWED_HOSTS to the host name(s) clients use (for example mcp.example.com), or bind to 127.0.0.1 behind a reverse proxy`,
    );
  }
  initializeChecksByMethod(config.sdkShortcuts);
  const ctx = createHttpContext(runtime);
  const oauthModule = config.auth === 'oauth' ? await import('../../oauth/index.js') : undefined;
  const httpServer = http.createServer(REQUEST_TIMEOUTS, (req, res) => serveRequest(ctx, req, res));
  httpServer.keepAliveTimeout = 5000;
  const port = await listen(httpServer, config.httpPort, config.httpHost);
  ctx.rules.port = port;
  useOAuth(ctx, oauthModule?.createOAuthGate(runtime, config.publicUrl ?? `http://127.0.0.1:${port}`, ctx.rules.verifier, ctx.addresses));
  ctx.sessions.startSweeping();
  const hostForUrl = config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost;
  const url = `http://${hostForUrl}:${port}${ENDPOINT}`;
  logReady(runtime, url);
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    sessions: () => ctx.sessions.size,
    evictIdle: (now?: number) => ctx.sessions.evictIdle(now),
    callsInFlight: () => ctx.inFlight,
    bodyBytesHeld: (address?: string) => ctx.bodies.held(address),
    shutdown: (reason: string) => (stopping ??= drainHttpServer(ctx, httpServer, reason)),
  };
}

/** Resolves with the port the listener got (the one asked for, or any free one for 0); a port taken names --http-port. */
async function listen(httpServer: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', (error) => reject(explainListenError(error, { port, host, portFlag: '--http-port (SVC_HTTP_PORT)', hostFlag: '--http-host (SVC_HTTP_HOST)' })));
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  return (httpServer.address() as AddressInfo).port;
}

/** Every request: counted while it is a call in flight, logged when it ends, and answered 500 if its handler fails. */
function serveRequest(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): void {
  const { logger } = ctx.runtime;
  const started = Date.now();
  const path = (req.url ?? '/').split('?')[0];
  const log: RequestLog = { method: req.method, path };
  const isCall = path === ENDPOINT && req.method !== 'GET';
  if (isCall) ctx.inFlight++;
  res.on('close', () => {
    if (isCall) ctx.inFlight--;
    // Never the key or the body: the key hash identifies the tenant. A line per request is for
    // debugging (a proxy in front logs each request anyway); a refused or failed one is worth one at info.
    const line = { ...log, status: res.statusCode, ms: Date.now() - started };
    if (res.statusCode >= 400) logger.info(line, 'http request');
    else logger.debug(line, 'http request');
  });
  route(ctx, req, res, path, log).catch((error: unknown) => {
    if (error instanceof HttpError) return rpcError(res, error.status, error.code, error.message, error.headers);
    logger.error({ err: error, path }, 'http handler failed');
    rpcError(res, 500, -32603, 'Internal server error');
  });
}

async function route(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, path: string, log: RequestLog): Promise<void> {
  const matches = ({ method, path: served }: Route) => (method === ANY || method === req.method) && (typeof served === 'string' ? served === path : served(path, ctx));
  const { host, handle } = ROUTES.find(matches)!;
  const foreignHost = host === 'by handler' ? undefined : routeHostRefusal(req, ctx.rules, host);
  if (foreignHost) return refuse(res, foreignHost);
  return handle(ctx, req, res, log);
}

async function health(ctx: HttpContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { config, sessions, draining } = ctx;
  const redis = await ctx.runtime.limiters.sharedBudgetsReachable();
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
}

function ready({ draining }: HttpContext, _req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, draining ? 503 : 200, { ready: !draining, ...(draining ? { draining: true } : {}) });
}

/** An OAuth route, its body (declared length, or the parsers' limit when unknown) counted under the body budget while it is served. */
function serveOAuth(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): void {
  const carriesBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  const declared = Number(req.headers['content-length']) || OAUTH_BODY_BYTES;
  const lease = ctx.bodies.take(ctx.addresses.shareOf(req), carriesBody ? Math.min(declared, OAUTH_BODY_BYTES) : 0);
  if (!('grow' in lease)) {
    refuse(res, lease);
    return;
  }
  res.once('close', lease.release);
  ctx.oauth!.handle(req, res);
}

function notFound(_ctx: HttpContext, _req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 404, { error: `Not found: the MCP endpoint is ${ENDPOINT}, health is ${HEALTH}, readiness is ${READY}` });
}

function logReady({ config, logger, sandbox, state }: Runtime, url: string): void {
  if ((config.redisUrl || config.stateless) && config.confirm !== 'none' && !config.confirmSecretGiven) {
    logger.warn(
      'SVC_CONFIRM_SECRET is not set: this node signs confirmation tokens with its own random secret, so a token minted here fails on any other node of the fleet. Give every node the same SVC_CONFIRM_SECRET.',
    );
  } else if (config.stateless && !config.redisUrl && config.confirm !== 'none') {
    logger.warn(
      { store: state.id },
      "SVC_STATELESS without SVC_REDIS_URL: a confirmation token sends only through the node that issued it (it names this node's spent store), and another node refuses it. Behind a load balancer, share the spent store through SVC_REDIS_URL.",
    );
  }
  logger.info(
    { transport: 'http', url, stateless: config.stateless, readOnly: config.readOnly, confirm: config.confirm, sandbox: Boolean(sandbox), serverKey: Boolean(config.apiKey) },
    'svc-mcp ready',
  );
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
