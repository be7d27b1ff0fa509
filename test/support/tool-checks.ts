/**
 * The checks each module's end-to-end file (test/e2e/<module>.test.ts) makes of its own tools, from
 * tables the file fills in: how tools/list shows them, the one request each sends, the documented
 * rules refused before sending; and the preview's effect lines, and that no secret shows in what
 * the file's connections returned or logged.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { structured } from './fixture.js';
import { apiRequests, textOf, type Connection } from './harness.js';

export interface Listing {
  /** The module's tools, each expected in tools/list. */
  tools: string[];
  /** Read tools: readOnlyHint and idempotentHint. */
  reads?: string[];
  destructive?: string[];
  /** Writes that may be repeated to the same effect: idempotentHint. */
  idempotentWrites?: string[];
  /** Tools that reach beyond the workspace (run a test, call a URL): openWorldHint. */
  openWorld?: string[];
  /** Tools whose result shape the spec documents list an output schema (under SVC_CONFIRM=none, writes list theirs too). */
  outputs: string[];
  /** Tools a client may run as an MCP task. */
  tasks?: string[];
}

/** tools/list as `connection` sees it: each of the module's tools with its four hints, a description of at most 300 characters, an output schema or none, and task support for `tasks`. */
export async function expectListing(connection: Connection, listing: Listing): Promise<Map<string, Tool>> {
  const { tools } = await connection.client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const among = (names: string[] | undefined, name: string) => names?.includes(name) ?? false;
  for (const name of listing.tools) {
    const tool = byName.get(name);
    expect(tool, name).toBeDefined();
    expect(tool!.annotations, name).toMatchObject({
      readOnlyHint: among(listing.reads, name),
      destructiveHint: among(listing.destructive, name),
      idempotentHint: among(listing.reads, name) || among(listing.idempotentWrites, name),
      openWorldHint: among(listing.openWorld, name),
    });
    expect(tool!.description!.length, name).toBeLessThanOrEqual(300);
    expect(Boolean(tool!.outputSchema), name).toBe(listing.outputs.includes(name));
  }
  for (const name of listing.tasks ?? []) expect(byName.get(name)!.execution, name).toEqual({ taskSupport: 'optional' });
  return byName;
}

/** A call and the message its refusal must carry: the field and the rule. */
export type Refusal = [tool: string, args: Record<string, unknown>, message: string];

/** Each call is refused before sending, naming the field and the rule; nothing reaches the API. */
export async function expectRefused(call: Connection['call'], sandbox: Sandbox, refusals: Refusal[]): Promise<void> {
  for (const [tool, args, message] of refusals) {
    const result = await call(tool, args);
    expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
    expect(textOf(result), tool).toContain('nothing was sent');
    expect(textOf(result), tool).toContain(message);
  }
  expect(apiRequests(sandbox)).toHaveLength(0);
}

/**
 * A call and the one request it must send: method, path, query and body as the spec documents them.
 * Arguments, path and body are functions, so a case may use what an earlier one returned (`keep`).
 */
export type RouteCase = [tool: string, args: () => Record<string, unknown>, method: string, path: () => string, query: Record<string, unknown>, body: unknown, keep?: (data: any) => void];

/** Runs the cases in order, each sending exactly its one documented request; `tools` are the module's, each of which a case covers. */
export async function expectRoutes(call: Connection['call'], sandbox: Sandbox, tools: string[], cases: RouteCase[]): Promise<void> {
  expect(new Set(cases.map(([name]) => name))).toEqual(new Set(tools));
  for (const [name, args, method, path, query, body, keep] of cases) {
    sandbox.clearRequests();
    const result = await call(name, args());
    const data = structured(result);
    const requests = apiRequests(sandbox);
    expect(requests, name).toHaveLength(1);
    expect(`${requests[0].method} ${requests[0].path}`, name).toBe(`${method} ${path()}`);
    expect(requests[0].status, name).toBeLessThan(300);
    expect(requests[0].query, name).toEqual(query);
    expect(requests[0].body, name).toEqual(typeof body === 'function' ? body() : body);
    keep?.(data);
  }
}

/** The preview's "What it does" lines, as the model reads them, from a connection that previews writes. */
export async function effectOf(previewing: Connection, name: string, args: Record<string, unknown>): Promise<string[]> {
  const result = await previewing.call(name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  const data = result.structuredContent as { sent: boolean; effect: string[] };
  expect(data.sent).toBe(false);
  // An entry's third-party lines sit between tag lines of one envelope (issue 33): read without them.
  return data.effect.map((line) => line.replace(/\n {2}<\/?untrusted-data-[0-9a-f]+>(?=\n|$)/g, '').replace(/<\/?untrusted-data-[0-9a-f]+>/g, ''));
}

/**
 * Every result a file's connections return (`keep` as their `onResult`), previews apart: a preview
 * shows the caller's own values, since what it shows is what is sent (design 10.4), but no key.
 */
export function resultLog() {
  const results: string[] = [];
  const previews: string[] = [];
  const keep = (result: CallToolResult) => void ((result.structuredContent as { sent?: unknown } | undefined)?.sent === false ? previews : results).push(JSON.stringify(result));
  return { results, previews, keep };
}

/**
 * Nothing secret in what a file's connections returned or logged: no key and none of `secrets` in a
 * result or a log line, and no key in a preview. The first connection must have logged its calls.
 */
export function expectNothingSecret(log: ReturnType<typeof resultLog>, connections: Connection[], keys: string[], secrets: string[] = []): void {
  const everything = log.results.join('\n') + connections.map((connection) => connection.stderr()).join('');
  expect(connections[0].stderr()).toContain('tool call');
  for (const secret of [...secrets, ...keys]) expect(everything).not.toContain(secret);
  for (const key of keys) expect(log.previews.join('\n')).not.toContain(key);
}
