import type { ApiRequest } from '../http/client.js';
import type { ToolDefinition } from './define.js';

/** Fills `{param}`s (URL-encoded), then query and body fields, from validated input. */
export function buildRequest(tool: ToolDefinition, input: Record<string, unknown>): ApiRequest {
  const route = tool.route!;
  const used = new Set<string>();
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(input[name]));
  });
  const query: Record<string, never> = {};
  for (const name of route.query ?? []) {
    used.add(name);
    if (input[name] !== undefined) query[name] = input[name] as never;
  }
  let body: Record<string, unknown> | undefined;
  if (route.body === 'rest') {
    body = Object.fromEntries(Object.entries(input).filter(([name, value]) => !used.has(name) && value !== undefined));
  } else if (route.body) {
    body = Object.fromEntries(route.body.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]));
  }
  return {
    method: route.method,
    path,
    query: Object.keys(query).length ? query : undefined,
    body,
    read: route.read ?? route.method === 'GET',
  };
}
