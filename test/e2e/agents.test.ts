/**
 * The agents tools (tools/agents.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests } from '../support/harness.js';
import { useServer } from '../support/fixture.js';
import { expectNothingSecret, resultLog } from '../support/tool-checks.js';

const log = resultLog();
const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' }, onResult: log.keep });

describe('agents', () => {
  it('lists list_agents with all four hints', async () => {
    const { tools } = await server.client.listTools();
    const listAgents = tools.find((tool) => tool.name === 'list_agents');
    expect(Object.keys(listAgents?.annotations ?? {})).toEqual(expect.arrayContaining(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']));
  });

  it('list_agents: retries a read after a 429 and succeeds', async () => {
    sandbox.injectFaults([{ path: '/v2/bots/public', status: 429 }]);
    const result = await call('list_agents');
    expect(result.isError).toBeFalsy();
    expect(apiRequests(sandbox).map((request) => request.status)).toEqual([429, 200]);
    expect(server.logs.some((line) => line.startsWith('list_agents: GET /v2/bots/public answered 429; retry 1 of 4'))).toBe(true);
  });

  it('serves the agents resource', async () => {
    const agents = await server.client.readResource({ uri: 'svc://agents' });
    expect((agents.contents[0] as { text: string }).text).toContain('Store Assistant');
  });
});

describe('secrets', () => {
  it('never shows the API key in a result or a log line', () => {
    expectNothingSecret(log, [server], Object.values(sandbox.keys));
  });
});
