/**
 * The sandbox's own controls under /__sandbox/ (loopback only, not recorded, not rate limited):
 * recorded requests, faults, the throttle and the run's info; then the attachment placeholder,
 * the quality routes (routes/quality-control.ts) and the mock store backend (mock.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, noRouteBody } from '../errors.js';
import type { Fault } from '../handle.js';
import { mockRoutes } from '../mock.js';
import type { RateScope } from '../ratelimit.js';
import { qualityControlRoutes } from '../routes/quality-control.js';
import type { ServerContext } from './context.js';
import { sandboxInfo } from './info.js';
import { methodOf, parseJsonBody, readBody, send, type JsonBody } from './wire.js';

interface Answer {
  status: number;
  body: unknown;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const badRequest = (message: string): Answer => ({ status: 400, body: errorBody(400, message) });
const RATE_SCOPES: RateScope[] = ['key', 'global'];
const FILES = '/__sandbox/files/';

/** By `METHOD path`. */
const CONTROLS = new Map<string, (ctx: ServerContext, body: unknown) => Answer>([
  ['GET /__sandbox/requests', (ctx) => ok(ctx.requests)],
  [
    'DELETE /__sandbox/requests',
    (ctx) => {
      ctx.requests.length = 0;
      return ok({ success: true });
    },
  ],
  ['POST /__sandbox/faults', queueFaults],
  [
    'DELETE /__sandbox/faults',
    (ctx) => {
      ctx.faults.clear();
      return ok({ success: true });
    },
  ],
  ['POST /__sandbox/rate-limit', setRateLimit],
  ['GET /__sandbox/info', (ctx) => ok(sandboxInfo(ctx))],
]);

export async function handleControlRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (!isLoopback(req)) {
    send(res, 403, errorBody(403, 'sandbox controls are available on loopback only'));
    return;
  }
  const body = await readBody(req).then(parseJsonBody, (err: Error): JsonBody => ({ value: undefined, error: err.message }));
  const answer = body.error === undefined ? control(ctx, req, url, body.value) : badRequest(body.error);
  send(res, answer.status, answer.body);
}

function control(ctx: ServerContext, req: IncomingMessage, url: URL, body: unknown): Answer {
  const method = methodOf(req);
  const path = url.pathname;
  const fixed = CONTROLS.get(`${method} ${path}`);
  if (fixed) return fixed(ctx, body);
  if (method === 'GET' && path.startsWith(FILES)) {
    return ok({ file: decodeURIComponent(path.slice(FILES.length)), note: 'sandbox attachment placeholder' });
  }
  return qualityControlRoutes(ctx.state, method, path, body) ?? mockRoutes(method, path, body, url.searchParams, req.headers) ?? { status: 404, body: noRouteBody(method, path) };
}

function queueFaults(ctx: ServerContext, body: unknown): Answer {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
  if (!list) return badRequest('body must be an array of faults');
  ctx.faults.add(list as Fault[]);
  return ok({ success: true, queued: ctx.faults.size });
}

function setRateLimit(ctx: ServerContext, body: unknown): Answer {
  const b = body as { limit?: unknown; windowMs?: unknown; scope?: unknown } | undefined;
  if (
    !b ||
    !Number.isInteger(b.limit) ||
    !Number.isInteger(b.windowMs) ||
    (b.limit as number) < 0 ||
    (b.windowMs as number) <= 0 ||
    (b.scope !== undefined && !RATE_SCOPES.includes(b.scope as RateScope))
  ) {
    return badRequest('body must be {limit: integer >= 0, windowMs: integer > 0, scope?: "key" | "global"}');
  }
  const { limiter } = ctx;
  limiter.reset(b.limit as number, b.windowMs as number, b.scope as RateScope | undefined);
  return ok({ success: true, limit: limiter.limit, windowMs: limiter.windowMs, scope: limiter.scope });
}

function isLoopback(req: IncomingMessage): boolean {
  const a = req.socket.remoteAddress ?? '';
  return a === '127.0.0.1' || a === '::1' || a === '::ffff:127.0.0.1' || a.startsWith('127.');
}
