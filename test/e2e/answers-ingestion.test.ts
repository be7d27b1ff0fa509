import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { connect, sandboxEnv, textOf, withSandbox, type Connection } from '../support/harness.js';

let sandbox: Sandbox;
let server: Connection;

beforeAll(async () => {
  // Jobs end on their first read, so no test waits on a clock.
  sandbox = await withSandbox({ jobTimings: { pendingMs: 0, inProgressMs: 0 } });
  server = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none' }) });
});

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const FAILING: Array<[string, string, RegExp]> = [
  ['authentication-protected', 'https://northwind-outfitters.example/private/dealer-prices', /HTTP 401 \(the page requires authentication\)/],
  ['robots exclusion', 'https://northwind-outfitters.example/no-robots/size-charts', /robots\.txt \(robots exclusion\)/],
  ['unextractable content type', 'https://northwind-outfitters.example/downloads/catalog.zip', /Unsupported content type application\/zip: no text could be extracted/],
  ['unreachable host', 'https://help.northwind-outfitters.invalid/returns', /the host help\.northwind-outfitters\.invalid could not be reached/],
];

describe('URLs that fail ingestion on purpose', () => {
  it.each(FAILING)('%s ends FAILED with its reason', async (_kind, url, reason) => {
    const result = (await server.client.callTool({ name: 'ingest_sources', arguments: { documentIdsToAdd: [url], wait: true, timeoutSeconds: 10 } })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    const wait = (result.structuredContent as Record<string, any>).wait;
    expect(wait).toMatchObject({ status: 'finished', finished: 1, total: 1 });
    const [source] = wait.sources;
    expect(source).toMatchObject({ url, status: 'FAILED', success: false });
    expect(source.error).toMatch(reason);
  });

  it('still completes an ordinary page on the same site', async () => {
    const url = 'https://northwind-outfitters.example/help/rain-jackets';
    const result = (await server.client.callTool({ name: 'ingest_sources', arguments: { documentIdsToAdd: [url], wait: true, timeoutSeconds: 10 } })) as CallToolResult;
    expect((result.structuredContent as Record<string, any>).wait.sources[0]).toMatchObject({ url, status: 'COMPLETED', success: true });
  });
});
