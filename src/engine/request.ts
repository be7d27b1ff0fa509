import type { ApiRequest } from '../upstream/client.js';
import type { ToolDefinition } from './define.js';
import { ToolFailure } from './errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a value cannot fill one path segment, or undefined when it can. `.` and `..` would be
 * resolved as dot segments (`/articles/../move` is `/move`), an empty one merges two segments,
 * and a lone surrogate has no URL encoding.
 */
export function pathSegmentProblem(value: unknown): string | undefined {
  const text = String(value ?? '');
  if (text.trim() === '') return 'must not be empty';
  if (text === '.' || text === '..') return `must not be "${text}" (it would change the request path)`;
  if (LONE_SURROGATE.test(text)) return 'must be well-formed text (it holds a lone UTF-16 surrogate, which cannot be sent in a URL)';
  return undefined;
}

/** `- field: rule` lines for the route's path parameters that cannot be sent as one segment each. */
export function pathProblems(tool: ToolDefinition, input: Record<string, unknown>): string[] {
  if (!tool.route) return [];
  return [...tool.route.path.matchAll(/\{(\w+)\}/g)].flatMap(([, name]) => {
    const problem = pathSegmentProblem(input[name]);
    return problem ? [`- ${name}: ${problem}`] : [];
  });
}

/**
 * Fills `{param}`s (URL-encoded), then query and body fields, from validated input (provider kinds
 * as their wire names). Composite tools fill path parameters from API data too, so the segment
 * rules are enforced here as well, before anything is sent.
 */
export function buildRequest(tool: ToolDefinition, validated: Record<string, unknown>, providerNames: Partial<Record<string, string>> = {}): ApiRequest {
  const route = tool.route!;
  const input = { ...validated };
  for (const field of route.providerFields ?? []) {
    const kind = input[field];
    if (typeof kind === 'string' && Object.hasOwn(providerNames, kind)) input[field] = providerNames[kind];
  }
  const problems = pathProblems(tool, input);
  if (problems.length) throw new ToolFailure(`${tool.name} was not sent: an id cannot be used in the request path.\n${problems.join('\n')}`);
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
    ...(route.answersNull ? { answersNull: true } : {}),
    ...(/\{\w+\}/.test(route.path) ? { namesItem: true } : {}),
  };
}
