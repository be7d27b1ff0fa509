/**
 * The sources tools (tools/sources.ts) end to end: a real SDK client over the in-memory transport
 * against svc-mcp and the sandbox, in process. Ingestion outcomes, with jobs that end at once,
 * are in sources-ingestion.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { PASS_THROUGH } from '../../tools/lib/inputs.js';
import { apiRequests, callAsTask, callsEnded, textOf, waitFor } from '../support/harness.js';
import { structured, useServer } from '../support/fixture.js';
import { expectListing, expectRefused, expectRoutes } from '../support/tool-checks.js';

const FAST = { pendingMs: 400, inProgressMs: 600 };
const { sandbox, server, call } = useServer({ sandbox: { jobTimings: FAST }, env: { SVC_CONFIRM: 'none' } });

beforeEach(() => {
  sandbox.state.jobTimings = { ...FAST };
});

const SOURCES = ['list_provider_resources', 'register_provider_resources', 'crawl_links', 'ingest_sources', 'get_source', 'wait_for_sources'];

describe('sources tools', () => {
  it('lists all 6 tools with correct hints, output schemas and task support', async () => {
    const byName = await expectListing(server, {
      tools: SOURCES,
      reads: ['list_provider_resources', 'get_source', 'wait_for_sources'],
      idempotentWrites: ['register_provider_resources', 'crawl_links'],
      outputs: ['list_provider_resources', 'register_provider_resources', 'ingest_sources', 'get_source'],
      tasks: ['wait_for_sources'],
    });
    expect(byName.get('list_provider_resources')!.description).toMatch(/notes, helpcenter and wiki.*drive/);
    expect(byName.get('crawl_links')!.description).toContain(PASS_THROUGH);
    expect(byName.get('ingest_sources')!.inputSchema.properties).toHaveProperty('wait');
  });

  it('each tool reaches its route with the documented query and body', async () => {
    const seed = sandbox.seed;
    const crawlUrl = 'https://northwind-outfitters.example/help/faq';
    const pageUrl = 'https://northwind-outfitters.example/help/care-guide';
    const wikiPage = { externalId: 'wiki-9001', title: 'Escalation matrix', originalUrl: 'https://wiki.example/spaces/SUP/pages/9001', mimeType: 'text/html' };
    const state: Record<string, string> = {};
    await expectRoutes(call, sandbox, SOURCES, [
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
    ]);
  });

  it('refuses every documented rule by field name before sending anything', async () => {
    const ok = { originalUrl: 'https://notes.example/a', title: 'A', externalId: 'a', mimeType: 'text/markdown' };
    await expectRefused(call, sandbox, [
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
    ]);
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

  it('get_source, wait_for_sources: explain a 404 with the tool that gives source ids', async () => {
    const source = await call('get_source', { sourceId: 'd0000000-000a-4000-8000-000000000404' });
    expect(source.isError).toBe(true);
    expect(textOf(source)).toContain('Not found (404)');
    expect(textOf(source)).toContain('ingest_sources');
    const waited = structured(await call('wait_for_sources', { sourceIds: ['d0000000-000a-4000-8000-000000000404'] }));
    expect(waited.sources[0]).toMatchObject({ status: 'NOT_FOUND' });
  });

  it('serves the source resource', async () => {
    const text = async (uri: string) => ((await server.client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await text(`svc://sources/${sandbox.seed.sources.webFailed}`)).toContain('requires authentication');
    const templates = await server.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(expect.arrayContaining(['svc://sources/{sourceId}']));
  });
});
