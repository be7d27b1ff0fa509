/**
 * The folders tools (tools/folders.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { apiRequests, connect, sandboxEnv, textOf } from '../support/harness.js';
import { useConnection, useServer } from '../support/fixture.js';
import { effectOf, expectListing, expectRefused, expectRoutes } from '../support/tool-checks.js';

const FAST = { pendingMs: 400, inProgressMs: 600 };
const { sandbox, server, call } = useServer({ sandbox: { jobTimings: FAST }, env: { SVC_CONFIRM: 'none' } });
/** Answers writes with a preview and a confirmToken (no elicitation). */
const previewing = useConnection(sandbox, { env: { SVC_CONFIRM: 'writes' } });

const FOLDERS = ['list_folders', 'create_folder', 'update_folder', 'move_folder', 'delete_folder', 'assign_folders_to_agent'];

describe('folders tools', () => {
  it('lists all 6 tools with correct hints and output schemas', async () => {
    await expectListing(server, {
      tools: FOLDERS,
      reads: ['list_folders'],
      destructive: ['delete_folder'],
      idempotentWrites: ['update_folder', 'move_folder', 'delete_folder', 'assign_folders_to_agent'],
      outputs: [],
    });
  });

  it('each tool reaches its route with the documented query and body', async () => {
    const seed = sandbox.seed;
    const state: Record<string, string> = {};
    await expectRoutes(call, sandbox, FOLDERS, [
      ['create_folder', () => ({ name: 'Care guides' }), 'POST', () => '/v2/hc-folders/public', {}, { name: 'Care guides' }, (data) => (state.folderId = data.id)],
      ['update_folder', () => ({ folderId: state.folderId, name: 'Product care' }), 'PUT', () => `/v2/hc-folders/${state.folderId}/public`, {}, { name: 'Product care' }],
      ['move_folder', () => ({ folderId: state.folderId, parentFolderId: null }), 'PUT', () => `/v2/hc-folders/${state.folderId}/move/public`, {}, { parentFolderId: null }],
      [
        'assign_folders_to_agent',
        () => ({ botId: seed.bots.emailSupport, folderIds: [state.folderId] }),
        'POST',
        () => '/v2/hc-bot-folder-junctions/public',
        {},
        () => ({ botId: seed.bots.emailSupport, folderIds: [state.folderId] }),
      ],
      ['list_folders', () => ({ botId: seed.bots.emailSupport }), 'GET', () => '/v2/hc-folders/public', { botId: seed.bots.emailSupport }, undefined],
      ['delete_folder', () => ({ folderId: state.folderId }), 'DELETE', () => `/v2/hc-folders/${state.folderId}/public`, {}, undefined],
    ]);
  });

  it('refuses every documented rule by field name before sending anything', async () => {
    await expectRefused(call, sandbox, [
      ['move_folder', { folderId: 'f', parentFolderId: 5 }, 'parentFolderId'],
      ['delete_folder', {}, 'folderId: is required'],
    ]);
  });

  it('update_folder: explains a 404 with the tool that lists the ids', async () => {
    const folder = await call('update_folder', { folderId: 'f-unknown', name: 'x' });
    expect(textOf(folder)).toContain('list_folders');
  });

  it("serves the folders and an agent's folders as resources, with botId completion", async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text('svc://folders')).toContain('Shipping & Delivery');
    const agentFolders = await text(`svc://agents/${sandbox.seed.bots.emailSupport}/folders`);
    expect(agentFolders).toContain('International Shipping');
    expect(agentFolders).not.toContain('Shipping & Delivery');
    const completion = await server.client.complete({ ref: { type: 'ref/resource', uri: 'svc://agents/{botId}/folders' }, argument: { name: 'botId', value: 'b0000000-000a' } });
    expect(completion.completion.values).toEqual(expect.arrayContaining([sandbox.seed.bots.storeAssistant, sandbox.seed.bots.emailSupport]));
    // Further keystrokes are answered from the fetched list, not by a new request each time.
    const listed = apiRequests(sandbox).filter((request) => request.path === '/v2/bots/public').length;
    const narrowed = await server.client.complete({ ref: { type: 'ref/resource', uri: 'svc://agents/{botId}/folders' }, argument: { name: 'botId', value: 'b0000000-000a-4000-8000-0000000000012' } });
    expect(narrowed.completion.values).toEqual([]);
    const exact = await server.client.complete({ ref: { type: 'ref/resource', uri: 'svc://agents/{botId}/folders' }, argument: { name: 'botId', value: sandbox.seed.bots.emailSupport } });
    expect(exact.completion.values).toEqual([sandbox.seed.bots.emailSupport]);
    expect(apiRequests(sandbox).filter((request) => request.path === '/v2/bots/public').length).toBe(listed);
    const templates = await server.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(expect.arrayContaining(['svc://agents/{botId}/folders']));
  });
});

describe('confirmation of folder writes', () => {
  it('delete_folder: previews a delete, reading what it describes and sending no DELETE', async () => {
    const client = await connect({ env: sandboxEnv(sandbox) });
    try {
      const preview = await client.call('delete_folder', { folderId: sandbox.seed.folders.shipping });
      expect(textOf(preview)).toContain('nothing was sent');
      expect(textOf(preview)).toContain(`DELETE /v2/hc-folders/${sandbox.seed.folders.shipping}/public`);
      // The delete's preview reads the folder tree, agents and articles (GETs) to describe the effect; it sends no DELETE.
      const sent = apiRequests(sandbox).map((request) => `${request.method} ${request.path}`);
      expect(sent.every((request) => request.startsWith('GET '))).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('done lines', () => {
  it('assign_folders_to_agent counts the assignments it added', async () => {
    const folder = (await call('create_folder', { name: 'Express delivery' })).structuredContent as { id: string };
    const result = await call('assign_folders_to_agent', { botId: sandbox.seed.bots.emailSupport, folderIds: [folder.id] });
    const [first] = textOf(result).split('\n');
    expect(first).toMatch(/^Agent \S+ now answers from \d+ folder\(s\) \(1 assignment\(s\) added\)/);
    expect(first).not.toContain('[object Object]');
    const again = textOf(await call('assign_folders_to_agent', { botId: sandbox.seed.bots.emailSupport, folderIds: [folder.id] })).split('\n')[0];
    expect(again).toContain('(no new assignment(s) added)');
  });
});

describe('previews say which fields change', () => {
  it('update_folder reads the folder and names the change', async () => {
    const effect = await effectOf(previewing, 'update_folder', { folderId: sandbox.seed.folders.shipping, name: 'Shipping' });
    expect(effect).toEqual([`Updates folder Shipping & Delivery (${sandbox.seed.folders.shipping}) in the top level:`, 'What it writes:\n  name: Shipping & Delivery -> Shipping']);
    const same = await effectOf(previewing, 'update_folder', { folderId: sandbox.seed.folders.shipping, name: 'Shipping & Delivery' });
    expect(same).toContain('No field changes: every value given equals the current one.');
    expect(apiRequests(sandbox).filter((request) => request.method === 'PUT')).toEqual([]);
  });
});
