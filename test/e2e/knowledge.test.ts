import { beforeEach, describe, expect, it } from 'vitest';
import { PASS_THROUGH } from '../../tools/lib/inputs.js';
import { apiRequests, callAsTask, callsEnded, connect, sandboxEnv, textOf, waitFor } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';

const FAST = { pendingMs: 400, inProgressMs: 600 };
const { sandbox, server, call } = useServer({ sandbox: { jobTimings: FAST }, env: { SVC_CONFIRM: 'none' } });

beforeEach(() => {
  sandbox.state.jobTimings = { ...FAST };
});

const KNOWLEDGE_TOOLS = {
  sources: ['list_provider_resources', 'register_provider_resources', 'crawl_links', 'ingest_sources', 'get_source', 'wait_for_sources'],
  knowledge: ['initialize_knowledge_tree', 'persist_knowledge_tree', 'generate_knowledge', 'generate_knowledge_bulk', 'get_knowledge_jobs_status'],
  articles: ['list_articles', 'get_articles', 'create_article', 'update_article', 'create_article_draft', 'publish_article_draft', 'move_article', 'delete_article'],
  folders: ['list_folders', 'create_folder', 'update_folder', 'move_folder', 'delete_folder', 'assign_folders_to_agent'],
};
const READS = ['list_provider_resources', 'get_source', 'wait_for_sources', 'get_knowledge_jobs_status', 'list_articles', 'get_articles', 'list_folders'];
/** Tools whose result shape the spec documents declare it (SVC_CONFIRM=none here, so writes list theirs too). */
const DOCUMENTED_RESULTS = ['list_provider_resources', 'register_provider_resources', 'ingest_sources', 'get_source', 'list_articles', 'get_articles', 'publish_article_draft'];
const IDEMPOTENT_WRITES = [
  'register_provider_resources',
  'crawl_links',
  'update_article',
  'move_article',
  'delete_article',
  'update_folder',
  'move_folder',
  'delete_folder',
  'assign_folders_to_agent',
];

describe('sources, knowledge, articles and folders tools', () => {
  it('lists all 25 tools with correct hints, output schemas and task support', async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const names = Object.values(KNOWLEDGE_TOOLS).flat();
    expect(names).toHaveLength(25);
    for (const name of names) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      const hints = tool!.annotations!;
      expect(hints.readOnlyHint, name).toBe(READS.includes(name));
      expect(hints.destructiveHint, name).toBe(name === 'delete_article' || name === 'delete_folder');
      expect(hints.idempotentHint, name).toBe(READS.includes(name) || IDEMPOTENT_WRITES.includes(name));
      expect(hints.openWorldHint, name).toBe(false);
      expect(tool!.description!.length, name).toBeLessThanOrEqual(300);
      expect(Boolean(tool!.outputSchema), name).toBe(DOCUMENTED_RESULTS.includes(name));
    }
    expect(byName.get('wait_for_sources')!.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('list_provider_resources')!.description).toMatch(/notes, helpcenter and wiki.*drive/);
    expect(byName.get('crawl_links')!.description).toContain(PASS_THROUGH);
    expect(byName.get('generate_knowledge')!.description).toContain(PASS_THROUGH);
    expect(byName.get('ingest_sources')!.inputSchema.properties).toHaveProperty('wait');
  });

  it('each tool reaches its route with the documented query and body', async () => {
    const seed = sandbox.seed;
    const crawlUrl = 'https://northwind-outfitters.example/help/faq';
    const pageUrl = 'https://northwind-outfitters.example/help/care-guide';
    const wikiPage = { externalId: 'wiki-9001', title: 'Escalation matrix', originalUrl: 'https://wiki.example/spaces/SUP/pages/9001', mimeType: 'text/html' };
    const state: Record<string, string> = {};
    type Case = [string, () => Record<string, unknown>, string, () => string, Record<string, unknown> | undefined, unknown, ((data: any) => void)?];
    const cases: Case[] = [
      ['list_provider_resources', () => ({ provider: 'notes' }), 'GET', () => '/v2/documents/public/resources/notes', {}, undefined],
      ['register_provider_resources', () => ({ provider: 'wiki', resources: [wikiPage] }), 'POST', () => '/v2/documents/public/resources/wiki', {}, { resources: [wikiPage] }],
      ['crawl_links', () => ({ url: crawlUrl, maxLinks: 2, sameSite: true }), 'POST', () => '/v2/documents/public/deep-crawl/links', {}, { url: crawlUrl, maxLinks: 2, sameSite: true }],
      [
        'ingest_sources',
        () => ({ documentIdsToAdd: [pageUrl], english: false }),
        'POST',
        () => '/v2/documents/public',
        {},
        { source: 'web', documentIdsToAdd: [pageUrl], english: false },
        (data) => (state.sourceId = data.jobs[0].documentId),
      ],
      ['get_source', () => ({ sourceId: seed.sources.webCompleted }), 'GET', () => `/v2/documents/public/${seed.sources.webCompleted}`, {}, undefined],
      ['wait_for_sources', () => ({ sourceIds: [seed.sources.webCompleted] }), 'GET', () => `/v2/documents/public/${seed.sources.webCompleted}`, {}, undefined],
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
      ['list_articles', () => ({ type: 'draft' }), 'GET', () => '/v2/hc-articles/public', { type: 'draft' }, undefined],
      ['get_articles', () => ({ articleIds: [seed.articles.warranty] }), 'POST', () => '/v2/hc-articles/ids/public', {}, { articleIds: [seed.articles.warranty] }],
      [
        'create_article',
        () => ({ title: 'Sock care', mainKnowledge: 'Wash cold.', parentFolderId: seed.folders.shipping, keywords: ['socks'] }),
        'POST',
        () => '/v2/hc-articles/public',
        {},
        { title: 'Sock care', mainKnowledge: 'Wash cold.', parentFolderId: seed.folders.shipping, keywords: ['socks'] },
        (data) => (state.articleId = data.id),
      ],
      ['update_article', () => ({ articleId: state.articleId, title: 'Caring for socks' }), 'PUT', () => `/v2/hc-articles/${state.articleId}/public`, {}, { title: 'Caring for socks' }],
      [
        'create_article_draft',
        () => ({ articleId: seed.articles.warranty, agentInstruction: 'Ask for a photo.' }),
        'POST',
        () => `/v2/hc-articles/${seed.articles.warranty}/draft/public`,
        {},
        { agentInstruction: 'Ask for a photo.' },
        (data) => (state.draftId = data.id),
      ],
      ['publish_article_draft', () => ({ articleId: state.draftId, public: true }), 'POST', () => `/v2/hc-articles/${state.draftId}/publish/public`, {}, { public: true }],
      ['create_folder', () => ({ name: 'Care guides' }), 'POST', () => '/v2/hc-folders/public', {}, { name: 'Care guides' }, (data) => (state.folderId = data.id)],
      [
        'move_article',
        () => ({ articleId: state.articleId, parentFolderId: state.folderId }),
        'PUT',
        () => `/v2/hc-articles/${state.articleId}/move/public`,
        {},
        () => ({ parentFolderId: state.folderId }),
      ],
      ['delete_article', () => ({ articleId: state.articleId }), 'DELETE', () => `/v2/hc-articles/${state.articleId}/public`, {}, undefined],
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
    ];
    expect(new Set(cases.map(([name]) => name)).size).toBe(25);
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
  });

  it('refuses every documented rule by field name before sending anything', async () => {
    const ok = { originalUrl: 'https://notes.example/a', title: 'A', externalId: 'a', mimeType: 'text/markdown' };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['ingest_sources', { documentIdsToAdd: [sandbox.seed.sources.webCompleted] }, 'documentIdsToAdd[0]: must be an http(s) URL when source is web; source ids are not allowed with source=web'],
      ['ingest_sources', { source: 'web', documentIdsToRefresh: ['https://ok.example/', 'returns-page'] }, 'documentIdsToRefresh[1]: must be an http(s) URL'],
      ['ingest_sources', { source: 'notes', documentIdsToAdd: ['https://notes.example/a'] }, 'documentIdsToAdd[0]: must be a source id when source is notes'],
      ['ingest_sources', { source: 'ftp', documentIdsToAdd: ['x'] }, 'source: must be one of "web", "notes", "helpcenter", "wiki", "drive"'],
      ['ingest_sources', { documentIdsToAdd: ['https://a.example/'], wait: true, timeoutSeconds: 5000 }, 'timeoutSeconds: must be from 1 to 900'],
      ['ingest_sources', { documentIdsToAdd: ['https://a.example/'], english: 'maybe' }, 'english: must be a boolean'],
      ['register_provider_resources', { provider: 'notes', resources: [ok, ok, { ...ok, mimeType: undefined }] }, 'resources[2].mimeType: is required'],
      ['register_provider_resources', { provider: 'notes', resources: [{ ...ok, title: '' }] }, 'resources[0].title: must not be empty'],
      ['register_provider_resources', { provider: 'notes', resources: [{ title: 'x' }] }, 'resources[0].originalUrl: is required'],
      ['register_provider_resources', { provider: 'Notion', resources: [ok] }, 'provider: must be one of "notes", "helpcenter", "wiki", "drive"'],
      ['list_provider_resources', { provider: 'drive' }, 'provider: must be one of "notes", "helpcenter", "wiki"'],
      ['list_provider_resources', {}, 'provider: is required'],
      ['crawl_links', { url: 'ftp://files.example/' }, 'url: must be an http(s) URL'],
      ['get_source', { sourceId: '  ' }, 'sourceId: must not be empty'],
      ['wait_for_sources', { sourceIds: [] }, 'sourceIds: must not be empty'],
      ['wait_for_sources', { sourceIds: ['a'], timeoutSeconds: 0 }, 'timeoutSeconds: must be from 1 to 900'],
      ['list_articles', { type: 'archived' }, 'type: must be one of "live", "draft"'],
      ['get_articles', {}, 'articleIds: is required'],
      ['publish_article_draft', { articleId: 'd', questions: [] }, 'questions: must not be empty'],
      ['publish_article_draft', { articleId: 'd', keywords: [] }, 'keywords: must not be empty'],
      ['update_article', { title: 'x' }, 'articleId: is required'],
      ['create_article', { escalation: 'sometimes' }, 'escalation: must be a boolean'],
      ['delete_article', { articleId: ' ' }, 'articleId: must not be empty'],
      ['move_folder', { folderId: 'f', parentFolderId: 5 }, 'parentFolderId'],
      ['delete_folder', {}, 'folderId: is required'],
      ['get_knowledge_jobs_status', { jobIds: [5] }, 'jobIds[0]: must be a string'],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toContain('nothing was sent');
      expect(textOf(result), tool).toContain(message);
    }
    expect(apiRequests(sandbox)).toHaveLength(0);
  });

  it('wait_for_sources polls a job through PENDING, IN_PROGRESS and COMPLETED with progress', async () => {
    const queued = structured(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/layering'] }));
    const id = queued.jobs[0].documentId;
    sandbox.clearRequests();
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await call(
      'wait_for_sources',
      { sourceIds: [id] },
      {
        onprogress: (update) => progress.push(update),
      },
    );
    const data = structured(result);
    expect(data).toMatchObject({ status: 'finished', finished: 1, total: 1 });
    expect(data.sources[0]).toMatchObject({ sourceId: id, status: 'COMPLETED', success: true, paragraphs: 3 });
    const messages = progress.map((update) => update.message).join('\n');
    expect(messages).toContain('0 of 1 sources finished (PENDING 1)');
    expect(messages).toContain('0 of 1 sources finished (IN_PROGRESS 1)');
    // The SDK client may drop the last notification when the result arrives in the same tick, so
    // the final COMPLETED round is checked on the result and the requests.
    const polls = apiRequests(sandbox);
    expect(polls.every((request) => request.method === 'GET' && request.path === `/v2/documents/public/${id}`)).toBe(true);
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls.length - progress.length).toBeLessThanOrEqual(1);
    expect(textOf(result)).toContain('generate_knowledge');
  });

  it('ingest_sources with wait: one succeeds, one fails with its cause', async () => {
    const good = 'https://northwind-outfitters.example/help/boot-care';
    const bad = 'https://northwind-outfitters.example/private/wholesale-prices';
    const progress: string[] = [];
    const result = await call(
      'ingest_sources',
      { documentIdsToAdd: [good, bad], wait: true, timeoutSeconds: 30 },
      {
        onprogress: (update) => progress.push(update.message ?? ''),
      },
    );
    const data = structured(result);
    const post = apiRequests(sandbox).find((request) => request.method === 'POST')!;
    expect(post.body).toEqual({ source: 'web', documentIdsToAdd: [good, bad] });
    expect(data.jobs).toHaveLength(2);
    expect(data.wait).toMatchObject({ status: 'finished', finished: 2, total: 2 });
    const byUrl = new Map<string, Record<string, any>>(data.wait.sources.map((source: Record<string, any>) => [source.url, source]));
    expect(byUrl.get(good)).toMatchObject({ status: 'COMPLETED', success: true });
    expect(byUrl.get(bad)).toMatchObject({ status: 'FAILED', success: false });
    expect(byUrl.get(bad)!.error).toContain('requires authentication');
    expect(textOf(result)).toMatch(/<(untrusted-data-[0-9a-f]+)>\n[^<]*error: Fetching the URL failed[^<]*<\/\1>/);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const gets = apiRequests(sandbox).filter((request) => request.method === 'GET');
    expect(gets.length).toBeGreaterThanOrEqual(progress.length * 2);
    expect(gets.length).toBeLessThanOrEqual((progress.length + 1) * 2);
  });

  it('wait_for_sources: a timed-out wait says which sources are still pending', async () => {
    sandbox.state.jobTimings = { pendingMs: 60_000, inProgressMs: 60_000 };
    const queued = structured(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/slow-page'] }));
    const id = queued.jobs[0].documentId;
    const started = Date.now();
    const result = await call('wait_for_sources', { sourceIds: [id, sandbox.seed.sources.webCompleted], timeoutSeconds: 1 });
    const data = structured(result);
    expect(textOf(result).split('\n')[0]).toBe(`INCOMPLETE: Stopped waiting after 1 s with 1 still pending: ${id}. Call wait_for_sources with these ids to keep waiting.`);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(data).toMatchObject({ status: 'timed_out', finished: 1, total: 2, stillPending: [id] });
    expect(data.notes.join(' ')).toContain(`1 still pending: ${id}`);
    const polled = (sourceId: string) => apiRequests(sandbox).filter((request) => request.path === `/v2/documents/public/${sourceId}`).length;
    expect(polled(sandbox.seed.sources.webCompleted)).toBe(1); // finished at once: never polled again
    expect(polled(id)).toBeGreaterThanOrEqual(2);
  });

  it("wait_for_sources: a 404 without the framework's statusCode names that source as not found, and the wait goes on (the spec shows no 404 body)", async () => {
    for (const [index, body] of [{ message: 'Source not found' }, '', { error: 'Not Found' }].entries()) {
      const missing = `00000000-0000-4000-8000-00000000040${index}`;
      sandbox.injectFaults([{ method: 'GET', path: `/v2/documents/public/${missing}`, status: 404, body }]);
      const data = structured(await call('wait_for_sources', { sourceIds: [missing, sandbox.seed.sources.webCompleted], timeoutSeconds: 5 }));
      expect(data, JSON.stringify(body)).toMatchObject({ status: 'finished', finished: 2, total: 2 });
      expect(data.sources.map((source: { sourceId: string; status: string }) => [source.sourceId, source.status])).toEqual([
        [missing, 'NOT_FOUND'],
        [sandbox.seed.sources.webCompleted, 'COMPLETED'],
      ]);
    }
  });

  it('wait_for_sources: says to report a job PENDING for more than 15 minutes to support', async () => {
    sandbox.state.jobTimings = { pendingMs: 3_600_000, inProgressMs: 60_000 };
    const queued = structured(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/stuck-page'] }));
    const id = queued.jobs[0].documentId;
    const workspace = sandbox.state.workspaces.get(sandbox.seed.workspaceA)!;
    const record = workspace.sources.get(id)!;
    const twentyMinutesAgo = Date.now() - 20 * 60_000;
    workspace.jobs.get(record.linkedJobId!)!.queuedAt = twentyMinutesAgo;
    record.updatedAt = new Date(twentyMinutesAgo).toISOString();
    const data = structured(await call('wait_for_sources', { sourceIds: [id], timeoutSeconds: 1 }));
    expect(data.sources[0].status).toBe('PENDING');
    expect(data.notes.join(' ')).toMatch(/PENDING for 20 minutes.*reported to support/);
  });

  it('wait_for_sources: stops polling when the client cancels the call', async () => {
    sandbox.state.jobTimings = { pendingMs: 60_000, inProgressMs: 60_000 };
    const queued = structured(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/cancel-me'] }));
    const id = queued.jobs[0].documentId;
    sandbox.clearRequests();
    const ended = callsEnded(server, 'wait_for_sources');
    const controller = new AbortController();
    const pending = call('wait_for_sources', { sourceIds: [id], timeoutSeconds: 60 }, { signal: controller.signal });
    await waitFor(() => apiRequests(sandbox).length >= 1, 'the first poll');
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The poll loop has returned: nothing more can be sent for this call.
    await waitFor(() => callsEnded(server, 'wait_for_sources') > ended, 'the cancelled wait to end');
    expect(apiRequests(sandbox)).toHaveLength(1);
  });

  it('runs wait_for_sources as an MCP task', async () => {
    const queued = structured(await call('ingest_sources', { documentIdsToAdd: ['https://northwind-outfitters.example/help/task-page'] }));
    const id = queued.jobs[0].documentId;
    const { kinds, result: final } = await callAsTask(server.client, 'wait_for_sources', { sourceIds: [id] });
    expect(kinds[0]).toBe('taskCreated');
    expect(final?.isError).toBeFalsy();
    expect(final?.structuredContent).toMatchObject({ status: 'finished', sources: [{ sourceId: id, status: 'COMPLETED' }] });
  });

  it('get_source, update_folder, publish_article_draft: explain a 404 with the tool that lists the ids', async () => {
    const source = await call('get_source', { sourceId: 'd0000000-000a-4000-8000-000000000404' });
    expect(source.isError).toBe(true);
    expect(textOf(source)).toContain('Not found (404)');
    expect(textOf(source)).toContain('ingest_sources');
    const draft = await call('publish_article_draft', { articleId: sandbox.seed.articles.warranty });
    expect(textOf(draft)).toContain('list_articles with type draft');
    expect(textOf(draft)).toContain('nothing changed');
    const folder = await call('update_folder', { folderId: 'f-unknown', name: 'x' });
    expect(textOf(folder)).toContain('list_folders');
    const waited = structured(await call('wait_for_sources', { sourceIds: ['d0000000-000a-4000-8000-000000000404'] }));
    expect(waited.sources[0]).toMatchObject({ status: 'NOT_FOUND' });
  });

  it('get_articles, list_articles: read articles with untrusted bodies marked, and show a compact list by default', async () => {
    const list = structured(await call('list_articles'));
    expect(list.articles.length).toBeGreaterThan(3);
    expect(list.articles[0]).not.toHaveProperty('mainKnowledge');
    const full = await call('get_articles', { articleIds: [sandbox.seed.articles.returnsPolicy] });
    expect(structured(full).articles[0].mainKnowledge).toContain('30 days');
    expect(textOf(full)).toMatch(/<(untrusted-data-[0-9a-f]+)>\n[^<]*mainKnowledge: [^<]*30 days[^<]*<\/\1>/);
  });

  it('serves the folder, article and source resources, botId completion and the import prompt', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text('svc://folders')).toContain('Shipping & Delivery');
    const agentFolders = await text(`svc://agents/${sandbox.seed.bots.emailSupport}/folders`);
    expect(agentFolders).toContain('International Shipping');
    expect(agentFolders).not.toContain('Shipping & Delivery');
    expect(await text('svc://articles/live')).toContain('Tracking your order');
    expect(await text('svc://articles/draft')).toContain(sandbox.seed.articles.returnsPolicyDraft);
    expect(await text(`svc://sources/${sandbox.seed.sources.webFailed}`)).toContain('requires authentication');
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
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(expect.arrayContaining(['svc://sources/{sourceId}', 'svc://agents/{botId}/folders']));
    const prompt = await server.client.getPrompt({ name: 'import_knowledge_from_urls', arguments: { urls: 'https://a.example/x, https://a.example/y', botId: 'bot-1' } });
    const rendered = JSON.stringify(prompt.messages);
    expect(rendered).toContain('ingest_sources');
    expect(rendered).toContain('https://a.example/y');
    expect(rendered).toContain('wait true');
    expect(rendered).toContain('bot-1');
  });
});

describe('confirmation of knowledge writes', () => {
  it('get_articles, get_knowledge_jobs_status, delete_folder: send the POST reads without confirmation and preview a delete', async () => {
    const client = await connect({ env: sandboxEnv(sandbox) });
    try {
      const read = await client.call('get_articles', { articleIds: [sandbox.seed.articles.warranty] });
      expect(structured(read).articles).toHaveLength(1);
      const status = await client.call('get_knowledge_jobs_status', { jobIds: ['job_x'] });
      expect(structured(status)).toMatchObject({ notFound: ['job_x'] });
      const preview = await client.call('delete_folder', { folderId: sandbox.seed.folders.shipping });
      expect(textOf(preview)).toContain('nothing was sent');
      expect(textOf(preview)).toContain(`DELETE /v2/hc-folders/${sandbox.seed.folders.shipping}/public`);
      // The delete's preview reads the folder tree, agents and articles (GETs) to describe the effect; it sends no DELETE.
      const sent = apiRequests(sandbox).map((request) => `${request.method} ${request.path}`);
      expect(sent.slice(0, 2)).toEqual(['POST /v2/hc-articles/ids/public', 'POST /v2/knowledge/public/jobs/status']);
      expect(sent.slice(2).every((request) => request.startsWith('GET '))).toBe(true);
    } finally {
      await client.close();
    }
  });
});
