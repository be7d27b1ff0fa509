/**
 * The checks a /v2 request passes before its handler runs, in this order: faults (before auth),
 * rate limit (per key or global), key (401), workspace (401), route (404), scope (403), body (400).
 */
import type { IncomingMessage } from 'node:http';
import { errorBody, MSG_FORBIDDEN_SCOPE, MSG_UNAUTHORIZED, noRouteBody } from '../errors.js';
import type { RouteMatch } from '../router.js';
import { iso, type Workspace } from '../state.js';
import type { KeyRecord } from '../types.js';
import type { ServerContext } from './context.js';
import { acceptsKey } from './keys.js';
import type { JsonBody } from './wire.js';

export interface ApiRequest {
  req: IncomingMessage;
  url: URL;
  method: string;
  /** the key the bearer token named, valid or not */
  named: KeyRecord | undefined;
  body: JsonBody;
}

/** A request that passed: its key, the key's workspace and the route it matched. */
export interface Admitted {
  key: KeyRecord;
  workspace: Workspace;
  match: RouteMatch;
}

/** A request turned away: the answer it gets, or `drop` (the connection is destroyed unanswered). */
export type Refused = { status: number; body: unknown } | 'drop';

export async function checkApiRequest(ctx: ServerContext, request: ApiRequest): Promise<Admitted | Refused> {
  const fault = await faultFor(ctx, request);
  if (fault) return fault;
  if (!ctx.limiter.tryAcquire(request.named?.name ?? null, ctx.state.now())) return { status: 429, body: errorBody(429) };
  const key = request.named;
  const workspace = acceptsKey(request.req, request.url, key) ? ctx.state.workspaces.get(key.workspaceId) : undefined;
  if (!key || !workspace) return { status: 401, body: errorBody(401, MSG_UNAUTHORIZED) };
  key.lastUsed = iso(ctx.state.now());
  const { method } = request;
  const path = request.url.pathname;
  const match = ctx.router.match(method, path);
  if (!match) return { status: 404, body: noRouteBody(method, path) };
  if (!key.scopes.includes(match.def.scope)) return { status: 403, body: errorBody(403, MSG_FORBIDDEN_SCOPE) };
  const bodyProblem = problemWithBody(request);
  if (bodyProblem) return { status: 400, body: errorBody(400, bodyProblem) };
  return { key, workspace, match };
}

/** A queued fault for the request: after its delay, it drops the connection or answers with its status. */
async function faultFor(ctx: ServerContext, request: ApiRequest): Promise<Refused | undefined> {
  const fault = ctx.faults.take(request.method, request.url.pathname);
  if (!fault) return undefined;
  if (fault.delayMs && fault.delayMs > 0) await ctx.faults.delay(fault.delayMs);
  if (fault.drop) return 'drop';
  if (fault.status === undefined) return undefined;
  return { status: fault.status, body: fault.body !== undefined ? fault.body : errorBody(fault.status) };
}

function problemWithBody({ body, req }: ApiRequest): string | undefined {
  if (body.error !== undefined) return body.error;
  if (body.value === undefined) return undefined;
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  return contentType.includes('application/json') ? undefined : 'Content-Type must be application/json';
}
