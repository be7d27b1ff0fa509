/**
 * server_info (design §17): which svc-mcp answers and how the session is set up, in every toolset,
 * each fact as the session itself shows it.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { SERVER_VERSION } from '../../src/meta.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer } from '../../src/transports/http/server.js';
import { catalog } from '../../tools/index.js';
import { useConnection, useSandbox, useStarted } from '../support/fixture.js';
import { answering, apiRequests, connect, sandboxEnv, textOf, type Connection } from '../support/harness.js';
import { connectHttp } from '../support/http-harness.js';
import { RUN_ENV } from '../support/run-env.js';

const sandbox = useSandbox();
const everything = useConnection(sandbox);
const coreReadOnly = useConnection(sandbox, { env: { SVC_TOOLSETS: 'core', SVC_READ_ONLY: 'true' }, elicit: answering([], { action: 'accept', content: { confirm: true } }) });
const groups = useConnection(sandbox, { env: { SVC_TOOLSETS: 'agents,articles', SVC_CONFIRM: 'destructive' } });

async function infoOf(connection: Pick<Connection, 'call'>): Promise<Record<string, any>> {
  const result = await connection.call('server_info');
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as Record<string, any>;
}

describe('server_info', () => {
  it('is listed in every toolset, core and read-only included, and reads no API', async () => {
    for (const connection of [everything, coreReadOnly, groups]) {
      expect((await connection.client.listTools()).tools.map((tool) => tool.name)).toContain('server_info');
    }
    sandbox.clearRequests();
    await infoOf(everything);
    expect(apiRequests(sandbox)).toEqual([]);
  });

  it('names the version, the tools this session lists, the confirmation mode and how, read-only, the mirror and the protocol version agreed', async () => {
    for (const [connection, expected] of [
      [everything, { toolsets: 'all', confirm: 'writes', confirmBy: 'token', readOnly: false }],
      [coreReadOnly, { toolsets: ['core'], confirm: 'writes', confirmBy: 'elicitation', readOnly: true }],
      [groups, { toolsets: ['agents', 'articles'], confirm: 'destructive', confirmBy: 'token', readOnly: false }],
    ] as const) {
      const info = await infoOf(connection);
      expect(info).toMatchObject({ name: 'svc-mcp', version: SERVER_VERSION, mirror: 'off', protocolVersion: LATEST_PROTOCOL_VERSION, ...expected });
      expect(info.tools).toEqual((await connection.client.listTools()).tools.map((tool) => tool.name));
    }
    expect((await infoOf(coreReadOnly)).tools).not.toContain('call_write_tool');
    expect(textOf(await everything.call('server_info'))).toMatch(/^svc-mcp \d+\.\d+\.\d+, catalog sha256:[0-9a-f]{16}, MCP protocol \d{4}-\d\d-\d\d\./);
  });

  it('gives one catalog hash whatever the session lists, and another when any tool description changes', async () => {
    const hashes = new Set(await Promise.all([everything, coreReadOnly, groups].map(async (connection) => (await infoOf(connection)).catalogHash)));
    expect(hashes.size).toBe(1);
    const changed = catalog.map((group) => ({ ...group, tools: group.tools.map((tool) => (tool.name === 'get_replay' ? { ...tool, description: `${tool.description} ` } : tool)) }));
    const connection = await connect({ env: sandboxEnv(sandbox), engine: { catalog: changed } });
    try {
      const result = await connection.call('server_info');
      expect((result.structuredContent as { catalogHash: string }).catalogHash).not.toBe([...hashes][0]);
    } finally {
      await connection.close();
    }
  });

  it('refuses any argument by name, sending nothing', async () => {
    const result = await everything.call('server_info', { verbose: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('- verbose: unknown field (server_info takes no input)');
  });

  const stateless = useStarted(
    async () => startHttpServer(await createRuntime(loadConfig(['--transport', 'http', '--http-port', '0', '--stateless'], { ...RUN_ENV, SVC_BASE_URL: sandbox.url }), createLogger('silent'))),
    (server) => server.shutdown('test done'),
  );

  it('over stateless HTTP, where no session saw the initialize, names the version every request carries in its header', async () => {
    const connection = await connectHttp(stateless.url, { key: sandbox.keys.admin });
    try {
      expect(await infoOf(connection)).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION, confirmBy: 'token' });
    } finally {
      await connection.close();
    }
  });
});
