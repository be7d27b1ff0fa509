/**
 * Declarative routes: `{method, path, scope, handler}` with `{param}` path templates.
 * The sandbox's routes stand in one table, routes/index.ts; their handlers in the group modules under routes/.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxState, Workspace } from './state.js';
import type { KeyRecord, Scope } from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest {
  method: HttpMethod;
  /** request path without query, e.g. /v2/hc-interactions/public */
  path: string;
  /** decoded path parameters (may be the empty string when the segment is empty) */
  params: Record<string, string>;
  query: URLSearchParams;
  /** parsed JSON body; undefined when the request had no body */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** the workspace of the authenticated key */
  workspace: Workspace;
  key: KeyRecord;
  state: SandboxState;
  /** clock reading taken when the request was dispatched to the handler */
  now: number;
}

export interface RouteResult {
  /** default 200 */
  status?: number;
  body: unknown;
}

export type RouteHandler = (req: RouteRequest) => RouteResult | Promise<RouteResult>;

export interface RouteDef {
  method: HttpMethod;
  /** template such as `/v2/hc-interactions/{id}/feedback/public` */
  path: string;
  scope: Scope;
  handler: RouteHandler;
}

interface CompiledRoute {
  def: RouteDef;
  segments: ({ literal: string } | { param: string })[];
  /** sort key: literal segments rank before params, position by position */
  rank: string;
}

export interface RouteMatch {
  def: RouteDef;
  params: Record<string, string>;
}

export class Router {
  private readonly compiled: CompiledRoute[] = [];

  constructor(routes: RouteDef[] = []) {
    for (const r of routes) this.add(r);
  }

  add(def: RouteDef): void {
    const segments = splitPath(def.path).map((s) => {
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(s);
      return m ? { param: m[1] } : { literal: s };
    });
    const rank = segments.map((s) => ('literal' in s ? '0' : '1')).join('');
    const shape = (segs: typeof segments) => segs.map((s) => ('literal' in s ? s.literal : '{}')).join('/');
    const dup = this.compiled.find((c) => c.def.method === def.method && shape(c.segments) === shape(segments));
    if (dup) throw new Error(`sandbox: duplicate route ${def.method} ${def.path}`);
    this.compiled.push({ def, segments, rank });
    this.compiled.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  }

  get routes(): RouteDef[] {
    return this.compiled.map((c) => c.def);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const parts = splitPath(path);
    for (const c of this.compiled) {
      if (c.def.method !== method) continue;
      if (c.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = c.segments[i];
        if ('literal' in seg) {
          if (seg.literal !== parts[i]) {
            ok = false;
            break;
          }
        } else {
          try {
            params[seg.param] = decodeURIComponent(parts[i]);
          } catch {
            params[seg.param] = parts[i];
          }
        }
      }
      if (ok) return { def: c.def, params };
    }
    return undefined;
  }
}

/** '/v2/a//b/' -> ['v2','a','','b'] (one trailing slash ignored, empty inner segments kept). */
function splitPath(path: string): string[] {
  let p = path.startsWith('/') ? path.slice(1) : path;
  if (p.endsWith('/')) p = p.slice(0, -1);
  return p.split('/');
}
