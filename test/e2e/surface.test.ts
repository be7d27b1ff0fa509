import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { toolListing } from '../../src/engine/listing.js';
import { catalog } from '../../tools/index.js';
import { BUDGETS, costOf } from '../support/context-cost.js';
import { apiRequests, callAsTask, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';

const CORE_TOOLS = catalog
  .flatMap((group) => group.tools)
  .filter((tool) => tool.core)
  .map((tool) => tool.name);
const EVERY_TOOL = catalog.flatMap((group) => group.tools);
const GATEWAY = ['find_tools', 'call_read_tool', 'call_write_tool'];
const GATEWAY_RUNNERS = ['call_read_tool', 'call_write_tool', 'call_tool'];

/** What the eliciting client answers next, and the messages it was shown. */
let answer: { action: 'accept' | 'decline'; content?: { confirm: boolean } } = { action: 'accept', content: { confirm: true } };
const asked: string[] = [];

const sandbox = useSandbox();
/** The core surface for a client without elicitation, one with it, and one in read-only mode. */
const core = useConnection(sandbox, { env: { SVC_TOOLSETS: 'core', SVC_MIRROR: 'memory' } });
const eliciting = useConnection(sandbox, {
  env: { SVC_TOOLSETS: 'core' },
  elicit: (message) => {
    asked.push(message);
    return answer;
  },
});
const readOnly = useConnection(sandbox, { env: { SVC_TOOLSETS: 'core', SVC_READ_ONLY: 'true' } });
let listed: Tool[];

/** What reached the API: method, path, query and body of each request, in order. */
const sent = () => apiRequests(sandbox).map((request) => ({ method: request.method, path: request.path, query: request.query, body: request.body }));

beforeAll(async () => {
  listed = (await core.client.listTools()).tools;
});

beforeEach(() => {
  asked.length = 0;
  answer = { action: 'accept', content: { confirm: true } };
});

describe('per-session listing', () => {
  it('shows confirm to a client without elicitation, as the preview token, and not to one with it', async () => {
    const plainTools = new Map(listed.map((tool) => [tool.name, tool]));
    expect(plainTools.get('give_feedback')?.inputSchema.properties?.confirm).toMatchObject({ type: 'string' });
    expect(plainTools.get('list_agents')?.inputSchema.properties ?? {}).not.toHaveProperty('confirm');
    for (const tool of (await eliciting.client.listTools()).tools) expect(tool.inputSchema.properties ?? {}, tool.name).not.toHaveProperty('confirm');
  });
});

/** A result with its per-result envelope nonce fixed, so two runs of the same call compare equal. */
function sameNonce(result: CallToolResult): unknown {
  return JSON.parse(JSON.stringify(result).replace(/untrusted-data-[0-9a-f]+/g, 'untrusted-data-N'));
}

describe('core surface', () => {
  it('lists the most used tools (explain_change and query_workspace among them), the gateway and server_info, within its budget', () => {
    expect(listed.map((tool) => tool.name).sort()).toEqual([...CORE_TOOLS, ...GATEWAY, 'server_info'].sort());
    const cost = costOf(listed).surface;
    console.log(`core surface: ${cost} tokens of ${BUDGETS.core}`);
    expect(cost).toBeLessThanOrEqual(BUDGETS.core);
  });

  it('keeps reads and writes in separate tools: call_read_tool is read-only, call_write_tool runs the writes, and no description says what to call first', () => {
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    expect(byName.get('call_read_tool')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('call_write_tool')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.has('call_tool')).toBe(false);
    for (const tool of listed) expect(tool.description, tool.name).not.toMatch(/\b(?:run|call|use)s? (?:one|it|them) with\b/i);
  });

  it('lists no call_write_tool in read-only mode, and answers it as an unknown tool there', async () => {
    const names = (await readOnly.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['find_tools', 'call_read_tool', 'server_info']));
    expect(names).not.toContain('call_write_tool');
    await expect(readOnly.call('call_write_tool', { name: 'create_folder', arguments: { name: 'x' } })).rejects.toThrow(/Unknown tool call_write_tool in read-only mode/);
    expect(sent()).toEqual([]);
  });

  it('combines with group names', () => {
    const names = toolListing(catalog, loadConfig(['--sandbox', '--toolsets', 'core,actions'], {}), false).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...CORE_TOOLS, ...GATEWAY, 'list_actions', 'test_action']));
    expect(names).not.toContain('list_folders');
  });

  it('reaches every catalog tool through find_tools, with its input schema', async () => {
    for (const tool of EVERY_TOOL) {
      const result = await core.call('find_tools', { query: tool.title, group: tool.group });
      const found = (result.structuredContent?.tools ?? []) as Array<{ name: string; inputSchema: unknown }>;
      expect(
        found.map((entry) => entry.name),
        tool.name,
      ).toContain(tool.name);
      expect(found.find((entry) => entry.name === tool.name)?.inputSchema).toMatchObject({ type: 'object' });
    }
  });

  it('runs a read through call_read_tool exactly as the listed tool, and accepts a direct call of an unlisted one', async () => {
    const logged = () =>
      core
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"tool":"list_agents"')).length;
    const before = logged();
    const viaGateway = await core.call('call_read_tool', { name: 'list_agents', arguments: {} });
    const viaGatewaySent = sent();
    sandbox.clearRequests();
    const direct = await core.call('list_agents');
    expect(sameNonce(viaGateway)).toEqual(sameNonce(direct));
    expect(viaGatewaySent).toEqual(sent());
    await expect.poll(() => logged() - before).toBe(2);

    sandbox.clearRequests();
    const folders = await core.call('list_folders');
    expect(folders.isError).toBeFalsy();
    expect(sent().map((request) => request.path)).toEqual(['/v2/hc-folders/public']);
  });

  it('gives the same validation errors and sends nothing', async () => {
    const viaGateway = await core.call('call_read_tool', { name: 'list_conversations', arguments: { limit: 0, bot_id: 'x' } });
    const direct = await core.call('list_conversations', { limit: 0, bot_id: 'x' });
    expect(viaGateway.isError).toBe(true);
    expect(textOf(viaGateway)).toBe(textOf(direct));
    expect(sent()).toEqual([]);
  });

  it('previews a write without elicitation through either path, sending nothing', async () => {
    const args = { name: 'Onboarding' };
    const viaGateway = await core.call('call_write_tool', { name: 'create_folder', arguments: args });
    const direct = await core.call('create_folder', args);
    expect(textOf(viaGateway)).toContain('nothing was sent');
    const { confirmToken: _viaToken, expiresAt: _viaExpiry, ...viaPreview } = viaGateway.structuredContent ?? {};
    const { confirmToken: _directToken, expiresAt: _directExpiry, ...directPreview } = direct.structuredContent ?? {};
    expect(viaPreview).toEqual(directPreview);
    expect(sent()).toEqual([]);
  });

  it('asks for confirmation through elicitation and sends the same request either way', async () => {
    const viaGateway = await eliciting.call('call_write_tool', { name: 'create_folder', arguments: { name: 'Gateway folder' } });
    const viaGatewaySent = sent();
    sandbox.clearRequests();
    const direct = await eliciting.call('create_folder', { name: 'Gateway folder' });
    expect(viaGateway.isError).toBeFalsy();
    expect(direct.isError).toBeFalsy();
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBe(asked[1]);
    expect(viaGatewaySent).toEqual(sent());
    expect(viaGatewaySent.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/hc-folders/public']);
  });

  it('refuses a destructive tool in read-only mode through either path with the same words', async () => {
    const args = { articleId: sandbox.seed.articles.warranty };
    const viaGateway = await readOnly.call('call_read_tool', { name: 'delete_article', arguments: args });
    expect(viaGateway.isError).toBe(true);
    expect(textOf(viaGateway)).toContain('read-only');
    await expect(readOnly.call('delete_article', args)).rejects.toThrow(textOf(viaGateway));
    const found = await readOnly.call('find_tools', { query: 'delete an article' });
    expect((found.structuredContent!.tools as Array<{ name: string }>).map((tool) => tool.name)).not.toContain('delete_article');
    expect(sent()).toEqual([]);
  });

  it('declines a destructive tool through call_write_tool when the user says no, sending nothing', async () => {
    answer = { action: 'decline' };
    const result = await eliciting.call('call_write_tool', { name: 'delete_article', arguments: { articleId: sandbox.seed.articles.warranty } });
    expect(textOf(result)).toContain('nothing was sent');
    // The preview read what the delete would remove; the delete itself never left.
    expect(sent().filter((request) => request.method === 'DELETE')).toEqual([]);
  });

  it('runs a long job through call_read_tool as an MCP task, as the listed tool does', async () => {
    const viaGateway = await callAsTask(core.client, 'call_read_tool', { name: 'export_conversations', arguments: { since: '30d', maxConversations: 5 } });
    expect(viaGateway.kinds[0]).toBe('taskCreated');
    expect(viaGateway.result?.isError).toBeFalsy();
    expect(viaGateway.result?.structuredContent).toMatchObject({ count: expect.any(Number) });
    expect(sent().every((request) => ['/v2/bots/public', '/v2/hc-interactions/public'].includes(request.path))).toBe(true);
  });

  it('answers an unknown name or malformed runner input as a tool error naming the runner', async () => {
    for (const runner of GATEWAY_RUNNERS) {
      expect(textOf(await core.call(runner, { name: 'no_such_tool' }))).toContain('Unknown tool no_such_tool');
      const malformed = await core.call(runner, { arguments: {} });
      expect(malformed.isError).toBe(true);
      expect(textOf(malformed)).toContain(runner);
      expect(textOf(malformed)).toContain('name');
    }
  });

  it('call_read_tool refuses a write tool by name and sends nothing, asking no one; call_write_tool refuses a read', async () => {
    for (const [connection, name, args] of [
      [core, 'create_folder', { name: 'Never' }],
      [eliciting, 'delete_article', { articleId: sandbox.seed.articles.warranty }],
      [core, 'test_action', { toolId: 'x' }],
    ] as const) {
      const refused = await connection.call('call_read_tool', { name, arguments: args });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(`call_read_tool runs only tools that read, and ${name} changes data (call_write_tool runs it); nothing was sent.`);
    }
    expect(asked).toEqual([]);
    expect(sent()).toEqual([]);
    const read = await core.call('call_write_tool', { name: 'list_agents', arguments: {} });
    expect(textOf(read)).toContain('list_agents only reads');
    expect(sent()).toEqual([]);
  });

  it('call_write_tool keeps the preview and the token: the same call with the token sends once, and the token spent does not send again', async () => {
    const args = { name: 'Token folder' };
    const preview = await core.call('call_write_tool', { name: 'create_folder', arguments: args });
    const token = preview.structuredContent?.confirmToken as string;
    expect(token).toEqual(expect.any(String));
    expect(sent()).toEqual([]);
    const confirmed = await core.call('call_write_tool', { name: 'create_folder', arguments: { ...args, confirm: token } });
    expect(confirmed.isError).toBeFalsy();
    const again = await core.call('call_write_tool', { name: 'create_folder', arguments: { ...args, confirm: token } });
    expect(again.structuredContent?.refused).toBe('spent');
    expect(sent().map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/hc-folders/public']);
  });

  it("call_tool, no longer listed, still runs a read and previews a write, by the target's scope", async () => {
    const read = await core.call('call_tool', { name: 'list_agents', arguments: {} });
    expect(read.isError).toBeFalsy();
    sandbox.clearRequests();
    const write = await core.call('call_tool', { name: 'create_folder', arguments: { name: 'Alias folder' } });
    expect(write.structuredContent?.confirmToken).toEqual(expect.any(String));
    expect(sent()).toEqual([]);
    await expect(readOnly.call('call_tool', { name: 'create_folder', arguments: { name: 'x' } })).resolves.toMatchObject({ isError: true });
    expect(sent()).toEqual([]);
  });
});
