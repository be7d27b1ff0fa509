import { catalog } from '../../tools/index.js';

/** A catalog route as a pattern a sent path matches: each `{param}` is one path segment. */
export const routePattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);

/** The write each write tool sends, by tool name: what a preview, a refusal or a decline must not send. */
export const WRITE_ROUTES = new Map(
  catalog.flatMap((group) => group.tools).flatMap((tool) => (tool.route && tool.scope === 'write' ? [[tool.name, { method: tool.route.method, path: routePattern(tool.route.path) }] as const] : [])),
);

/** Whether a request the sandbox recorded is a write of `tool`, or of any tool when none is named. */
export function isWrite(request: { method: string; path: string }, tool?: string): boolean {
  for (const [name, route] of WRITE_ROUTES) if ((tool === undefined || name === tool) && route.method === request.method && route.path.test(request.path)) return true;
  return false;
}
