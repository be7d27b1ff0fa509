/**
 * The sandbox HTTP server: node:http on loopback. Pipeline for /v2 requests:
 *   record -> faults -> rate limit (per key or global) -> auth (401) -> route match (404) -> scope (403)
 *   -> JSON body (400) -> handler (HttpError -> its status; anything else -> 500).
 * Control routes live under /__sandbox/ (not recorded, not rate limited, loopback only).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorBody, HttpError, MSG_INTERNAL, MSG_UNAUTHORIZED, MSG_FORBIDDEN_SCOPE } from './errors.js';
import { newApiKey } from './ids.js';
import { ScopedThrottle, type RateScope } from './ratelimit.js';
import { Router, type HttpMethod, type RouteRequest } from './router.js';
import { allRoutes } from './routes/index.js';
import { seedState, SEED } from './seed.js';
import { iso, DAY_MS, type SandboxState } from './state.js';
import type { KeyRecord, Scope } from './types.js';
import type { Fault, RecordedRequest, Sandbox, SandboxKey, SandboxOptions } from './index.js';
import { mockRoutes } from './mock.js';
import { qualityControlRoutes } from './routes/quality-control.js';

const QUERY_KEY_PARAMS = ['api_key', 'apikey', 'apiKey', 'key', 'access_token', 'api-key'];
const KEY_RE = /^svc_[0-9a-f]{32}$/;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const RATE_SCOPES: RateScope[] = ['key', 'global'];

interface QueuedFault extends Fault {
  remaining: number;
}

export async function startSandboxServer(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now;
  const host = options.host ?? '127.0.0.1';
  const limiter = new ScopedThrottle(options.rateLimit);
  const router = new Router(allRoutes);
  const requests: RecordedRequest[] = [];
  let faults: QueuedFault[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();

  const state: SandboxState = {
    workspaces: new Map(),
    keys: [],
    baseUrl: '',
    now,
    jobTimings: options.jobTimings ?? { pendingMs: 1500, inProgressMs: 1500 },
    refineTimings: options.refineTimings,
    testRunTimings: options.testRunTimings,
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  function takeFault(method: string, path: string): QueuedFault | undefined {
    const idx = faults.findIndex((f) => {
      if (f.method && f.method.toUpperCase() !== method) return false;
      if (f.path) {
        if (f.path.endsWith('*')) {
          if (!path.startsWith(f.path.slice(0, -1))) return false;
        } else if (f.path !== path) return false;
      }
      return true;
    });
    if (idx < 0) return undefined;
    const f = faults[idx];
    f.remaining -= 1;
    if (f.remaining <= 0) faults.splice(idx, 1);
    return f;
  }

  function addFaults(list: Fault[]): void {
    for (const f of list) faults.push({ ...f, remaining: f.times ?? 1 });
  }

  function send(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  function readBody(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          reject(new HttpError(413, 'request entity too large'));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });
  }

  function findKey(authorization: string | undefined): KeyRecord | undefined {
    if (!authorization) return undefined;
    const m = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!m) return undefined;
    return state.keys.find((k) => k.key === m[1]);
  }

  function redactHeaders(req: IncomingMessage, key: KeyRecord | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (out.authorization !== undefined) out.authorization = `Bearer <redacted:${key ? key.name : 'unknown'}>`;
    if (out['x-api-key'] !== undefined) out['x-api-key'] = '<redacted>';
    return out;
  }

  function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const name of new Set(params.keys())) {
      const all = params.getAll(name).map((v) => (QUERY_KEY_PARAMS.includes(name) ? '<redacted>' : v));
      out[name] = all.length === 1 ? all[0] : all;
    }
    return out;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    const at = now();
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 400;
      send(res, status, errorBody(status, err instanceof HttpError ? err.messages : 'Bad Request'));
      return;
    }
    const text = raw.toString('utf8');
    let parsedBody: unknown;
    let bodyError: string | undefined;
    if (text.trim() !== '') {
      try {
        parsedBody = JSON.parse(text);
      } catch (err) {
        parsedBody = text;
        bodyError = (err as Error).message;
      }
    }
    const identified = findKey(req.headers.authorization);
    const record: RecordedRequest = {
      at,
      method,
      path,
      query: queryRecord(url.searchParams),
      headers: redactHeaders(req, identified),
      body: parsedBody,
      status: 0,
      keyName: identified ? identified.name : null,
    };
    requests.push(record);
    const reply = (status: number, body: unknown) => {
      record.status = status;
      send(res, status, body);
    };

    // 1. faults (before auth)
    const fault = takeFault(method, path);
    if (fault) {
      if (fault.delayMs && fault.delayMs > 0) await sleep(fault.delayMs);
      if (fault.drop) {
        record.status = 0;
        req.socket.destroy();
        return;
      }
      if (fault.status !== undefined) {
        reply(fault.status, fault.body !== undefined ? fault.body : errorBody(fault.status));
        return;
      }
    }

    // 2. rate limit, per key or global
    if (!limiter.tryAcquire(identified?.name ?? null, now())) {
      reply(429, errorBody(429));
      return;
    }

    // 3. auth: Bearer only; a key sent another way is rejected even when a valid bearer is present
    const wrongTransport =
      req.headers['x-api-key'] !== undefined || QUERY_KEY_PARAMS.some((p) => url.searchParams.has(p));
    const auth = req.headers.authorization;
    const key = identified;
    if (wrongTransport || !auth || !key || !KEY_RE.test(key.key) || key.revoked) {
      reply(401, errorBody(401, MSG_UNAUTHORIZED));
      return;
    }
    const workspace = state.workspaces.get(key.workspaceId);
    if (!workspace) {
      reply(401, errorBody(401, MSG_UNAUTHORIZED));
      return;
    }
    key.lastUsed = iso(now());

    // 4. route
    const match = METHODS.includes(method as HttpMethod) ? router.match(method, path) : undefined;
    if (!match) {
      reply(404, errorBody(404, `Cannot ${method} ${path}`));
      return;
    }

    // 5. scope
    if (!key.scopes.includes(match.def.scope)) {
      reply(403, errorBody(403, MSG_FORBIDDEN_SCOPE));
      return;
    }

    // 6. body
    if (bodyError !== undefined) {
      reply(400, errorBody(400, bodyError));
      return;
    }
    if (parsedBody !== undefined) {
      const ct = String(req.headers['content-type'] ?? '').toLowerCase();
      if (!ct.includes('application/json')) {
        reply(400, errorBody(400, 'Content-Type must be application/json'));
        return;
      }
    }

    // 7. handler
    const routeReq: RouteRequest = {
      method: method as HttpMethod,
      path,
      params: match.params,
      query: url.searchParams,
      body: parsedBody,
      headers: req.headers,
      workspace,
      key,
      state,
      now: now(),
    };
    try {
      const result = await match.def.handler(routeReq);
      reply(result.status ?? 200, result.body);
    } catch (err) {
      if (err instanceof HttpError) {
        reply(err.status, err.toBody());
      } else {
        lastInternalError = err;
        reply(500, errorBody(500, MSG_INTERNAL));
      }
    }
  }

  let lastInternalError: unknown;

  function isLoopback(req: IncomingMessage): boolean {
    const a = req.socket.remoteAddress ?? '';
    return a === '127.0.0.1' || a === '::1' || a === '::ffff:127.0.0.1' || a.startsWith('127.');
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!isLoopback(req)) {
      send(res, 403, errorBody(403, 'sandbox controls are available on loopback only'));
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    let body: unknown;
    try {
      const text = (await readBody(req)).toString('utf8');
      body = text.trim() ? JSON.parse(text) : undefined;
    } catch (err) {
      send(res, 400, errorBody(400, (err as Error).message));
      return;
    }
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /__sandbox/requests':
        send(res, 200, requests);
        return;
      case 'DELETE /__sandbox/requests':
        requests.length = 0;
        send(res, 200, { success: true });
        return;
      case 'POST /__sandbox/faults': {
        const list = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
        if (!list) {
          send(res, 400, errorBody(400, 'body must be an array of faults'));
          return;
        }
        addFaults(list as Fault[]);
        send(res, 200, { success: true, queued: faults.length });
        return;
      }
      case 'DELETE /__sandbox/faults':
        faults = [];
        send(res, 200, { success: true });
        return;
      case 'POST /__sandbox/rate-limit': {
        const b = body as { limit?: unknown; windowMs?: unknown; scope?: unknown } | undefined;
        if (
          !b || !Number.isInteger(b.limit) || !Number.isInteger(b.windowMs) || (b.limit as number) < 0 || (b.windowMs as number) <= 0 ||
          (b.scope !== undefined && !RATE_SCOPES.includes(b.scope as RateScope))
        ) {
          send(res, 400, errorBody(400, 'body must be {limit: integer >= 0, windowMs: integer > 0, scope?: "key" | "global"}'));
          return;
        }
        limiter.reset(b.limit as number, b.windowMs as number, b.scope as RateScope | undefined);
        send(res, 200, { success: true, limit: limiter.limit, windowMs: limiter.windowMs, scope: limiter.scope });
        return;
      }
      case 'GET /__sandbox/info':
        send(res, 200, {
          url: state.baseUrl,
          keys: sandbox.keys,
          keyRecords: state.keys.map((k) => ({
            name: k.name, prefix: k.prefix, scopes: k.scopes, workspaceId: k.workspaceId, revoked: k.revoked,
            createdBy: k.createdBy, created: k.created, lastUsed: k.lastUsed,
          })),
          rateLimit: limiter.describe(),
          generatedConversations: options.conversations ?? 0,
          seed: SEED,
        });
        return;
    }
    if (method === 'GET' && path.startsWith('/__sandbox/files/')) {
      send(res, 200, { file: decodeURIComponent(path.slice('/__sandbox/files/'.length)), note: 'sandbox attachment placeholder' });
      return;
    }
    const quality = qualityControlRoutes(state, method, path, body);
    if (quality) {
      send(res, quality.status, quality.body);
      return;
    }
    const mock = mockRoutes(method, path, body, url.searchParams, req.headers);
    if (mock) {
      send(res, mock.status, mock.body);
      return;
    }
    send(res, 404, errorBody(404, `Cannot ${method} ${path}`));
  }

  const server: Server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.local');
    } catch {
      send(res, 400, errorBody(400, 'Bad Request'));
      return;
    }
    const path = url.pathname;
    const p =
      path.startsWith('/__sandbox/')
        ? handleControl(req, res, url)
        : path === '/v2' || path.startsWith('/v2/')
          ? handleApi(req, res, url)
          : Promise.resolve(send(res, 404, errorBody(404, `Cannot ${(req.method ?? 'GET').toUpperCase()} ${path}`)));
    p.catch((err) => {
      lastInternalError = err;
      send(res, 500, errorBody(500, MSG_INTERNAL));
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  state.baseUrl = `http://${urlHost}:${addr.port}`;

  // keys
  const startedAt = now();
  const mkKey = (name: string, scopes: Scope[], workspaceId: string, revoked: boolean, createdBy: string, daysAgo: number): KeyRecord => {
    const key = newApiKey();
    return { name, key, scopes, workspaceId, revoked, prefix: key.slice(0, 8), createdBy, created: iso(startedAt - daysAgo * DAY_MS), lastUsed: null };
  };
  state.keys = [
    mkKey('admin', ['read', 'write'], SEED.workspaceA, false, 'Dana Whitfield', 30),
    mkKey('readOnly', ['read'], SEED.workspaceA, false, 'Dana Whitfield', 20),
    mkKey('otherWorkspace', ['read', 'write'], SEED.workspaceB, false, 'Hank Scorpio', 10),
    mkKey('revoked', ['read', 'write'], SEED.workspaceA, true, 'Luis Ortega', 60),
  ];
  seedState(state, options.conversations);

  const byName = (n: string) => state.keys.find((k) => k.name === n)!.key;
  const sandbox: Sandbox = {
    url: state.baseUrl,
    keys: { admin: byName('admin'), readOnly: byName('readOnly'), otherWorkspace: byName('otherWorkspace'), revoked: byName('revoked') },
    requests,
    state,
    seed: SEED,
    clearRequests: () => {
      requests.length = 0;
    },
    setRateLimit: (limit: number, windowMs: number, scope?: RateScope) => limiter.reset(limit, windowMs, scope),
    injectFaults: (list: Fault[]) => addFaults(list),
    clearFaults: () => {
      faults = [];
    },
    keyRecords: (): SandboxKey[] =>
      state.keys.map((k) => ({ name: k.name, key: k.key, scopes: [...k.scopes], workspaceId: k.workspaceId, revoked: k.revoked })),
    lastInternalError: () => lastInternalError,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
  return sandbox;
}
