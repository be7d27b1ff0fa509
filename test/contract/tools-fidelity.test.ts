/**
 * The tools through a real SDK client: they require nothing the spec does not state, and they
 * enforce and say what it does state (issue 14).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { apiRequests, connect, sandboxEnv, textOf } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';

const { sandbox, server, call } = useServer({
  sandbox: { rateLimit: { limit: 100_000, windowMs: 60_000 }, testRunTimings: { runMs: 60_000 } },
  env: { SVC_CONFIRM: 'none' },
});
let tools: Map<string, Tool>;

beforeAll(async () => {
  tools = new Map((await server.client.listTools()).tools.map((tool) => [tool.name, tool]));
});

const required = (name: string) => tools.get(name)!.inputSchema.required ?? [];

describe('no invented requirements', () => {
  it('assign_action_to_agents takes botId as well as botIds, and requires nothing (its payload is not shown)', async () => {
    expect(required('assign_action_to_agents')).toEqual([]);
    const assigned = structured(await call('assign_action_to_agents', { toolId: sandbox.seed.tools.customerTier, botId: sandbox.seed.bots.emailSupport }));
    expect(JSON.stringify(assigned)).toContain(sandbox.seed.bots.emailSupport);
  });

  it('add_data_step needs only toolId (stepNumber named too): no url', async () => {
    expect(required('add_data_step')).toEqual(['toolId']);
    const step = structured(await call('add_data_step', { toolId: sandbox.seed.tools.returnLabel, stepNumber: 5 }));
    expect(step).toMatchObject({ stepNumber: 5, url: null });
  });

  it('add_cases_to_criteria_group sends caseIds: [] (no minimum in the spec)', async () => {
    sandbox.clearRequests();
    const group = structured(await call('add_cases_to_criteria_group', { criteriaGroupId: sandbox.seed.criteriaGroup, caseIds: [] }));
    expect(group.id).toBe(sandbox.seed.criteriaGroup);
    expect(apiRequests(sandbox).map((request) => request.body)).toEqual([{ caseIds: [] }]);
  });

  it('create_action types name and alwaysGet, which the spec setup names in its body, without requiring either', () => {
    expect(required('create_action')).toEqual([]);
  });

  it('update_action sends an output field without source, and the sandbox keeps it without one', async () => {
    const updated = structured(await call('update_action', { toolId: sandbox.seed.tools.returnLabel, outputSchema: [{ name: 'carrier', type: 'string' }] }));
    expect(updated.outputSchema).toEqual([expect.objectContaining({ name: 'carrier', source: null })]);
  });

  it('publish_article_draft publishes the same draft twice', async () => {
    const draft = structured(await call('create_article_draft', { articleId: sandbox.seed.articles.warranty, title: 'Warranty (draft)' }));
    const first = structured(await call('publish_article_draft', { articleId: draft.id }));
    const second = structured(await call('publish_article_draft', { articleId: draft.id }));
    expect(second).toMatchObject({ id: sandbox.seed.articles.warranty, version: first.version + 1 });
  });

  it('start_test_set_run sends an unknown promptVersionId with simulate', async () => {
    const run = structured(await call('start_test_set_run', { testSetId: sandbox.seed.testSet, promptVersionId: 'pv-unknown' }));
    expect(run).toMatchObject({ testSetId: sandbox.seed.testSet, status: 'running' });
  });
});

describe('what the spec states', () => {
  it('list_provider_resources takes the discovery kinds and refuses drive and ftp before sending', async () => {
    sandbox.clearRequests();
    for (const provider of ['drive', 'ftp']) {
      const refused = await call('list_provider_resources', { provider });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('provider: must be one of "notes", "helpcenter", "wiki"');
    }
    expect(apiRequests(sandbox)).toHaveLength(0);
    expect(structured(await call('list_provider_resources', { provider: 'helpcenter' })).provider).toBe('helpcenter');
  });

  it('ingest_sources sends web and the four kinds, and refuses any other source before sending', async () => {
    sandbox.clearRequests();
    const refused = await call('ingest_sources', { source: 'ftp', documentIdsToAdd: ['x'] });
    expect(textOf(refused)).toContain('source: must be one of "web", "notes", "helpcenter", "wiki", "drive"');
    expect(apiRequests(sandbox)).toHaveLength(0);
    await call('ingest_sources', { source: 'drive', documentIdsToAdd: ['drive-file-1'] });
    expect(apiRequests(sandbox).map((request) => (request.body as { source: string }).source)).toEqual(['drive']);
  });

  it('says, in every tool that takes the CSAT filter, that its name is a guess, and that whether publish needs a body is not shown', () => {
    const takingCsat = [...tools.values()].filter((tool) => tool.inputSchema.properties?.csat);
    expect(takingCsat.map((tool) => tool.name).sort()).toEqual(['conversation_stats', 'export_conversations', 'list_conversations']);
    for (const tool of takingCsat) expect(tool.inputSchema.properties!.csat, tool.name).toMatchObject({ description: expect.stringMatching(/name is a guess: the spec hides it/i) });
    expect(tools.get('publish_article_draft')!.description).toContain('whether a body is required is not shown');
  });
});

describe('SVC_PROVIDER_NAMES', () => {
  it('sends each kind under its configured wire name, and the result keeps the kind', async () => {
    // The sandbox knows only its own names, so mapping wiki to "notes" shows on the wire and in the answer.
    const mapped = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_CONFIRM: 'none', SVC_PROVIDER_NAMES: 'wiki=notes' }) });
    try {
      sandbox.clearRequests();
      const result = await mapped.call('list_provider_resources', { provider: 'wiki' });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(apiRequests(sandbox).map((request) => request.path)).toEqual(['/v2/documents/public/resources/notes']);
      expect(result.structuredContent).toMatchObject({ provider: 'wiki' });
      await mapped.call('ingest_sources', { source: 'wiki', documentIdsToAdd: [sandbox.seed.sources.notesPage] });
      expect((apiRequests(sandbox).at(-1)!.body as { source: string }).source).toBe('notes');
    } finally {
      await mapped.close();
    }
  }, 30_000);
});
