import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { apiRequests, connect, sandboxEnv, textOf, withSandbox, type Connection } from '../support/harness.js';

let sandbox: Sandbox;
let server: Connection;

beforeAll(async () => {
  sandbox = await withSandbox();
  server = await connect({ env: sandboxEnv(sandbox) });
});

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

describe('relative times resolve against one clock per call', () => {
  it.each(['90d', '2160h'])('since: %s spans exactly the 90-day maximum and succeeds 10 times out of 10', async (since) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      sandbox.clearRequests();
      const result = (await server.client.callTool({ name: 'list_conversations', arguments: { since, limit: 1 } })) as CallToolResult;
      expect(result.isError, textOf(result)).toBeFalsy();
      const [request] = apiRequests(sandbox);
      expect(Number(request.query.until) - Number(request.query.since)).toBe(90 * 86_400_000);
    }
  });
});
