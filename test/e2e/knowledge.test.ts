/**
 * The knowledge tools (tools/knowledge.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process.
 */
import { describe, expect, it } from 'vitest';
import { PASS_THROUGH } from '../../tools/lib/inputs.js';
import { apiRequests, connect, sandboxEnv } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';
import { expectListing, expectRefused, expectRoutes } from '../support/tool-checks.js';

const FAST = { pendingMs: 400, inProgressMs: 600 };
const { sandbox, server, call } = useServer({ sandbox: { jobTimings: FAST }, env: { SVC_CONFIRM: 'none' } });

const KNOWLEDGE = ['initialize_knowledge_tree', 'persist_knowledge_tree', 'generate_knowledge', 'generate_knowledge_bulk', 'get_knowledge_jobs_status'];

describe('knowledge tools', () => {
  it('lists all 5 tools with correct hints and output schemas', async () => {
    const byName = await expectListing(server, { tools: KNOWLEDGE, reads: ['get_knowledge_jobs_status'], outputs: [] });
    expect(byName.get('generate_knowledge')!.description).toContain(PASS_THROUGH);
  });

  it('each tool reaches its route with the documented query and body', async () => {
    const seed = sandbox.seed;
    const state: Record<string, string> = {};
    await expectRoutes(call, sandbox, KNOWLEDGE, [
      [
        'initialize_knowledge_tree',
        () => ({ documentIds: [seed.sources.webCompleted] }),
        'POST',
        () => '/v2/knowledge/public/tree/initialize',
        {},
        { documentIds: [seed.sources.webCompleted] },
        (data) => (state.treeId = data.treeId),
      ],
      [
        'persist_knowledge_tree',
        () => ({ treeId: state.treeId, parentFolderId: seed.folders.shipping }),
        'POST',
        () => '/v2/knowledge/public/tree/persist',
        {},
        () => ({ treeId: state.treeId, parentFolderId: seed.folders.shipping }),
      ],
      [
        'generate_knowledge',
        () => ({ documentId: seed.sources.notesPage, folderId: seed.folders.accountReturns }),
        'POST',
        () => '/v2/knowledge/public',
        {},
        { documentId: seed.sources.notesPage, folderId: seed.folders.accountReturns },
        (data) => (state.jobId = data.id),
      ],
      [
        'generate_knowledge_bulk',
        () => ({ documentIds: [seed.sources.webCompleted, seed.sources.notesPage] }),
        'POST',
        () => '/v2/knowledge/public/bulk',
        {},
        { documentIds: [seed.sources.webCompleted, seed.sources.notesPage] },
      ],
      ['get_knowledge_jobs_status', () => ({ jobIds: [state.jobId] }), 'POST', () => '/v2/knowledge/public/jobs/status', {}, () => ({ jobIds: [state.jobId] })],
    ]);
  });

  it('refuses every documented rule by field name before sending anything', async () => {
    await expectRefused(call, sandbox, [['get_knowledge_jobs_status', { jobIds: [5] }, 'jobIds[0]: must be a string']]);
  });
});

describe('confirmation of knowledge writes', () => {
  it('get_knowledge_jobs_status: sends the POST read without confirmation', async () => {
    const client = await connect({ env: sandboxEnv(sandbox) });
    try {
      const status = await client.call('get_knowledge_jobs_status', { jobIds: ['job_x'] });
      expect(structured(status)).toMatchObject({ notFound: ['job_x'] });
      expect(apiRequests(sandbox).map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/knowledge/public/jobs/status']);
    } finally {
      await client.close();
    }
  });
});
