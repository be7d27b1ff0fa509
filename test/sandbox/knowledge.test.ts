import { describe, expect, it } from 'vitest';
import { call, start } from './helpers.js';
import { useSandbox } from '../support/fixture.js';

/** A clock the tests move by hand, so job transitions are exact. */
let t = Date.parse('2026-03-02T10:00:00Z');
const advance = (ms: number) => {
  t += ms;
};
const sb = useSandbox(() => start({ now: () => t, jobTimings: { pendingMs: 200, inProgressMs: 200 } }));

const wsA = () => sb.state.workspaces.get(sb.seed.workspaceA)!;
const ingest = (body: unknown, key?: string) => call(sb, 'POST', '/v2/documents/public', { body, key });
const getSource = (id: string, key?: string) => call(sb, 'GET', `/v2/documents/public/${id}`, { key });
const messages = (body: { message: string | string[] }) => (Array.isArray(body.message) ? body.message : [body.message]).join(' | ');

describe('GET /v2/documents/public/resources/{provider} (discover)', () => {
  it('notes: a flat array without the already imported page', async () => {
    const r = await call(sb, 'GET', '/v2/documents/public/resources/notes');
    expect(r.status).toBe(200);
    expect(r.body.map((item: { externalId: string }) => item.externalId)).toEqual(['notes-page-8a3f', 'notes-db-22b7']);
    expect(r.body[0]).toEqual({
      externalId: 'notes-page-8a3f',
      title: 'Sizing guide for jackets',
      originalUrl: expect.any(String),
      mimeType: 'text/markdown',
      iconLink: expect.any(String),
      object: 'page',
    });
    expect(r.body[1].object).toBe('database');
  });

  it('helpcenter: categories > sections > articles; wiki: spaces with pages', async () => {
    const hc = await call(sb, 'GET', '/v2/documents/public/resources/helpcenter');
    expect(hc.status).toBe(200);
    expect(hc.body[0]).toMatchObject({
      type: 'category',
      children: [{ type: 'section', children: [{ type: 'article', externalId: 'hc-art-111', originalUrl: expect.any(String) }, expect.anything()] }, expect.anything()],
    });
    const wiki = await call(sb, 'GET', '/v2/documents/public/resources/wiki');
    expect(wiki.body[0]).toMatchObject({ key: 'SUP', title: 'Support team', originalUrl: expect.any(String), pages: [{ externalId: 'wiki-9001' }, { externalId: 'wiki-9002' }] });
  });

  it('400 for an unsupported provider or one not connected in the workspace', async () => {
    for (const provider of ['drive', 'dropbox']) {
      const r = await call(sb, 'GET', `/v2/documents/public/resources/${provider}`);
      expect(r.status).toBe(400);
      expect(messages(r.body)).toContain('provider must be one of the following values: notes, helpcenter, wiki');
    }
    const other = await call(sb, 'GET', '/v2/documents/public/resources/notes', { key: sb.keys.otherWorkspace });
    expect(other.status).toBe(400);
    expect(messages(other.body)).toContain('provider notes is not connected in this workspace');
  });
});

describe('POST /v2/documents/public/resources/{provider} (register)', () => {
  it('400 naming each resource field that is missing', async () => {
    const r = await call(sb, 'POST', '/v2/documents/public/resources/notes', {
      body: {
        resources: [
          { originalUrl: 'u', title: 't', externalId: 'x', mimeType: 'text/markdown' },
          { title: 't', externalId: 'y', mimeType: 'm' },
          { originalUrl: 'u', title: 't', externalId: 'z' },
        ],
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual(expect.arrayContaining(['resources.1.originalUrl should not be empty', 'resources.2.mimeType should not be empty']));
    const missing = await call(sb, 'POST', '/v2/documents/public/resources/notes', { body: {} });
    expect(missing.status).toBe(400);
    expect(messages(missing.body)).toContain('resources must be an array');
  });

  it('creates records without ingesting, then updates them; discovery excludes them', async () => {
    const resource = { externalId: 'notes-page-8a3f', title: 'Sizing guide for jackets', originalUrl: 'https://notes.example/northwind/sizing-guide-8a3f', mimeType: 'text/markdown', object: 'page' };
    const first = await call(sb, 'POST', '/v2/documents/public/resources/notes', { body: { resources: [resource] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ addedDocumentIds: [expect.any(String)], updatedDocumentIds: [] });
    const id = first.body.addedDocumentIds[0];
    const record = (await getSource(id)).body;
    expect(record).toMatchObject({ id, source: 'notes', title: 'Sizing guide for jackets', linkedJobId: null, success: false, paragraphs: [] });
    const again = await call(sb, 'POST', '/v2/documents/public/resources/notes', { body: { resources: [{ ...resource, title: 'Jacket sizing' }] } });
    expect(again.body).toEqual({ addedDocumentIds: [], updatedDocumentIds: [id] });
    expect((await getSource(id)).body.title).toBe('Jacket sizing');
    const discover = await call(sb, 'GET', '/v2/documents/public/resources/notes');
    expect(discover.body.map((item: { externalId: string }) => item.externalId)).toEqual(['notes-db-22b7']);
  });

  it('needs the write scope', async () => {
    const r = await call(sb, 'POST', '/v2/documents/public/resources/notes', { body: { resources: [] }, key: sb.keys.readOnly });
    expect(r.status).toBe(403);
  });
});

describe('POST /v2/documents/public/deep-crawl/links', () => {
  it('expands a seed URL into same-site links', async () => {
    const r = await call(sb, 'POST', '/v2/documents/public/deep-crawl/links', { body: { url: 'https://shop.example/help/faq', maxLinks: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe('https://shop.example/help/faq');
    expect(r.body.links).toHaveLength(3);
    for (const link of r.body.links) expect(link).toMatch(/^https:\/\/shop\.example\/help\//);
    expect(r.body.links).not.toContain('https://shop.example/help/faq');
  });
  it('takes any maxLinks from 1 (the payload is not shown: no upper limit is invented)', async () => {
    const many = await call(sb, 'POST', '/v2/documents/public/deep-crawl/links', { body: { url: 'https://shop.example/help/faq', maxLinks: 5000 } });
    expect(many.status).toBe(200);
    expect(many.body.links.length).toBeGreaterThan(3);
    expect((await call(sb, 'POST', '/v2/documents/public/deep-crawl/links', { body: { url: 'https://shop.example/help/faq', maxLinks: 0 } })).status).toBe(400);
  });
  it('400 without a URL', async () => {
    expect((await call(sb, 'POST', '/v2/documents/public/deep-crawl/links', { body: {} })).status).toBe(400);
    expect(messages((await call(sb, 'POST', '/v2/documents/public/deep-crawl/links', { body: { url: 'not a url' } })).body)).toContain('url must be a URL address');
  });
});

describe('POST /v2/documents/public (ingest) and GET /v2/documents/public/{id}', () => {
  it('400: source ids with source=web (default), non-URLs, unsupported source, unconnected provider, wrong kinds', async () => {
    const cases: Array<[unknown, string]> = [
      [{ documentIdsToAdd: [sb.seed.sources.webCompleted] }, 'source IDs are not allowed with source=web'],
      [{ source: 'web', documentIdsToRefresh: ['d0000000-000a-4000-8000-000000000099'] }, 'source IDs are not allowed with source=web'],
      [{ documentIdsToAdd: ['shipping page'] }, 'each value in documentIdsToAdd must be a URL address when source is web'],
      [{ source: 'ftp', documentIdsToAdd: ['x'] }, 'source must be one of the following values: web, drive, notes, helpcenter, wiki'],
      [{ source: 'drive', documentIdsToAdd: ['x'] }, 'source drive is not connected in this workspace'],
      [{ source: 'notes', documentIdsToAdd: [sb.seed.sources.webCompleted] }, 'is not a notes source of this workspace'],
      [{ source: 'notes', documentIdsToAdd: ['https://notes.example/x'] }, 'is not a notes source of this workspace'],
      [{ documentIdsToAdd: 'https://a.example/' }, 'documentIdsToAdd must be an array'],
      [{ documentIdsToAdd: ['https://a.example/'], english: 'yes' }, 'english must be a boolean value'],
    ];
    for (const [body, message] of cases) {
      const r = await ingest(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(messages(r.body)).toContain(message);
    }
  });

  it("403 for another workspace's source id; 404 for an unknown one", async () => {
    const id = sb.seed.sources.notesPage;
    expect((await ingest({ source: 'notes', documentIdsToRefresh: [id] }, sb.keys.otherWorkspace)).status).toBe(400); // notes not connected in B
    expect((await getSource(id, sb.keys.otherWorkspace)).status).toBe(403);
    const missing = await getSource('d0000000-000a-4000-8000-000000000404');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('queues jobs PENDING and moves them PENDING -> IN_PROGRESS -> COMPLETED with paragraphs', async () => {
    const r = await ingest({ documentIdsToAdd: ['https://northwind-outfitters.example/help/care-guide'] });
    expect(r.status).toBe(200);
    expect(r.body.jobs).toEqual([{ id: expect.stringMatching(/^job_/), documentId: expect.any(String), status: 'PENDING' }]);
    const id = r.body.jobs[0].documentId;
    expect(r.body.documents[0]).toMatchObject({
      id,
      source: 'web',
      url: 'https://northwind-outfitters.example/help/care-guide',
      title: 'Care guide',
      linkedJobStatus: 'PENDING',
      linkedJobId: r.body.jobs[0].id,
    });
    expect(r.body.addedDocumentIds).toEqual([id]);
    expect((await getSource(id)).body.linkedJobStatus).toBe('PENDING');
    advance(200);
    expect((await getSource(id)).body).toMatchObject({ linkedJobStatus: 'IN_PROGRESS', success: false, paragraphs: [] });
    advance(200);
    const done = (await getSource(id)).body;
    expect(done).toMatchObject({ linkedJobStatus: 'COMPLETED', success: true, error: '' });
    expect(done.paragraphs.length).toBeGreaterThan(0);
    expect(done.paragraphs[0]).toContain('Care guide');
  });

  it.each([
    ['https://northwind-outfitters.example/private/wholesale', 'requires authentication'],
    ['https://northwind-outfitters.example/account/login', 'requires authentication'],
    ['https://northwind-outfitters.example/no-robots/page', 'robots'],
    ['https://northwind-outfitters.example/downloads/catalog.zip', 'Unsupported content type application/zip'],
    ['https://northwind-outfitters.example/tools/setup.exe', 'Unsupported content type'],
  ])('FAILED with a non-empty error for %s', async (url, cause) => {
    const id = (await ingest({ documentIdsToAdd: [url] })).body.jobs[0].documentId;
    advance(400);
    const record = (await getSource(id)).body;
    expect(record).toMatchObject({ linkedJobStatus: 'FAILED', success: false });
    expect(record.error).toContain(cause);
  });

  it('ingests registered provider sources by id, and refreshes re-queue the same record', async () => {
    const registered = await call(sb, 'POST', '/v2/documents/public/resources/wiki', {
      body: { resources: [{ externalId: 'wiki-9002', title: 'Lost package procedure', originalUrl: 'https://wiki.example/spaces/SUP/pages/9002', mimeType: 'text/html' }] },
    });
    const id = registered.body.addedDocumentIds[0];
    const queued = await ingest({ source: 'wiki', documentIdsToAdd: [id] });
    expect(queued.status).toBe(200);
    expect(queued.body.jobs[0].documentId).toBe(id);
    advance(400);
    const done = (await getSource(id)).body;
    expect(done).toMatchObject({ source: 'wiki', linkedJobStatus: 'COMPLETED', success: true });
    const refreshed = await ingest({ source: 'wiki', documentIdsToRefresh: [id] });
    expect(refreshed.body.refreshedDocumentIds).toEqual([id]);
    expect(refreshed.body.jobs[0].id).not.toBe(queued.body.jobs[0].id);
    expect((await getSource(id)).body.linkedJobStatus).toBe('PENDING');
  });

  it('an expired provider connection fails the job', async () => {
    const registered = await call(sb, 'POST', '/v2/documents/public/resources/notes', {
      body: { resources: [{ externalId: 'notes-expired-1', title: 'Old page', originalUrl: 'https://notes.example/northwind/expired-page', mimeType: 'text/markdown' }] },
    });
    const id = registered.body.addedDocumentIds[0];
    await ingest({ source: 'notes', documentIdsToAdd: [id] });
    advance(400);
    expect((await getSource(id)).body.error).toContain('connection has expired');
  });
});

describe('knowledge routes', () => {
  async function completedSource(url: string): Promise<string> {
    const id = (await ingest({ documentIdsToAdd: [url] })).body.jobs[0].documentId;
    advance(400);
    return id;
  }

  it('generate: 400 for an unknown source; a job that completes with a draft article linked to the source', async () => {
    expect((await call(sb, 'POST', '/v2/knowledge/public', { body: {} })).status).toBe(400);
    expect(messages((await call(sb, 'POST', '/v2/knowledge/public', { body: { documentId: 'nope' } })).body)).toContain('unknown: nope');
    const sourceId = await completedSource('https://northwind-outfitters.example/help/sizing');
    const job = await call(sb, 'POST', '/v2/knowledge/public', { body: { documentId: sourceId, folderId: sb.seed.folders.shipping } });
    expect(job.body).toEqual({ id: expect.stringMatching(/^job_/), documentId: sourceId, status: 'PENDING' });
    const status = (ids: string[], key?: string) => call(sb, 'POST', '/v2/knowledge/public/jobs/status', { body: { jobIds: ids }, key });
    expect((await status([job.body.id], sb.keys.readOnly)).body.jobs[0].status).toBe('PENDING'); // a read
    advance(200);
    expect((await status([job.body.id])).body.jobs[0].status).toBe('IN_PROGRESS');
    advance(200);
    const done = (await status([job.body.id, 'job_unknown'])).body;
    expect(done.notFound).toEqual(['job_unknown']);
    expect(done.jobs[0]).toMatchObject({ status: 'COMPLETED', articleId: expect.any(String) });
    const article = wsA().articles.get(done.jobs[0].articleId)!;
    expect(article).toMatchObject({ isDraft: true, parentFolderId: sb.seed.folders.shipping, title: 'Sizing' });
    expect(wsA().sources.get(sourceId)!.linkedKnowledgeId).toBe(article.id);
  });

  it('bulk: a job per source; one from a failed source fails with an error', async () => {
    const good = await completedSource('https://northwind-outfitters.example/help/repairs');
    const bad = await completedSource('https://northwind-outfitters.example/private/prices');
    const bulk = await call(sb, 'POST', '/v2/knowledge/public/bulk', { body: { documentIds: [good, bad] } });
    expect(bulk.body.jobs).toHaveLength(2);
    advance(400);
    const status = await call(sb, 'POST', '/v2/knowledge/public/jobs/status', { body: { jobIds: bulk.body.jobs.map((job: { id: string }) => job.id) } });
    const [first, second] = status.body.jobs;
    expect(first.status).toBe('COMPLETED');
    expect(second).toMatchObject({ status: 'FAILED', articleId: null });
    expect(second.error).toContain('no processed content');
    expect((await call(sb, 'POST', '/v2/knowledge/public/bulk', { body: { documentIds: [] } })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/knowledge/public', { body: { documentId: good }, key: sb.keys.readOnly })).status).toBe(403);
  });

  it('tree: initialize groups processed sources, persist creates folders and drafts once', async () => {
    const a = await completedSource('https://guides.example/kb/layering');
    const init = await call(sb, 'POST', '/v2/knowledge/public/tree/initialize', { body: { documentIds: [a, sb.seed.sources.webFailed] } });
    expect(init.status).toBe(200);
    expect(init.body).toMatchObject({
      treeId: expect.stringMatching(/^tree_/),
      folders: [{ name: 'guides.example', articles: [{ title: 'Layering', documentId: a }] }],
      skipped: [{ documentId: sb.seed.sources.webFailed }],
    });
    const persist = await call(sb, 'POST', '/v2/knowledge/public/tree/persist', { body: { treeId: init.body.treeId } });
    expect(persist.status).toBe(200);
    expect(persist.body.articles).toEqual([expect.objectContaining({ title: 'Layering', documentId: a, isDraft: true })]);
    expect(wsA().folders.get(persist.body.folders[0].id)?.name).toBe('guides.example');
    expect((await call(sb, 'POST', '/v2/knowledge/public/tree/persist', { body: { treeId: init.body.treeId } })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/knowledge/public/tree/persist', { body: { treeId: 'tree_nope' } })).status).toBe(400);
  });
});

describe('articles', () => {
  const A = () => sb.seed.articles;

  it('lists live (default) or draft articles; 400 for another type', async () => {
    const live = await call(sb, 'GET', '/v2/hc-articles/public', { query: { type: 'live' }, key: sb.keys.readOnly });
    expect(live.status).toBe(200);
    expect(live.body.every((a: { isDraft: boolean }) => !a.isDraft)).toBe(true);
    expect(live.body.map((a: { id: string }) => a.id)).toContain(A().shippingTimes);
    expect(live.body[0]).not.toHaveProperty('documentUrl');
    const byDefault = await call(sb, 'GET', '/v2/hc-articles/public');
    expect(byDefault.body.length).toBe(live.body.length);
    const drafts = await call(sb, 'GET', '/v2/hc-articles/public', { query: { type: 'draft' } });
    expect(drafts.body.find((a: { id: string }) => a.id === A().returnsPolicyDraft)).toMatchObject({ isDraft: true, originalArticleId: A().returnsPolicy, originalArticleVersion: expect.any(Number) });
    const bad = await call(sb, 'GET', '/v2/hc-articles/public', { query: { type: 'archived' } });
    expect(bad.status).toBe(400);
    expect(messages(bad.body)).toContain('type must be one of the following values: live, draft');
  });

  it("reads by ids with the read scope (a POST that is a read); 403 for another workspace's id", async () => {
    const r = await call(sb, 'POST', '/v2/hc-articles/ids/public', { body: { articleIds: [A().warranty, A().giftCardsDraft, 'unknown'] }, key: sb.keys.readOnly });
    expect(r.status).toBe(200);
    expect(r.body.map((a: { id: string }) => a.id)).toEqual([A().warranty, A().giftCardsDraft]);
    expect(r.body[0].mainKnowledge).toContain('lifetime warranty');
    expect((await call(sb, 'POST', '/v2/hc-articles/ids/public', { body: { articleIds: [A().globexWarranty] } })).status).toBe(403);
    expect((await call(sb, 'POST', '/v2/hc-articles/ids/public', { body: {} })).status).toBe(400);
  });

  it('creates (201, version 1, live), updates (version + 1), 404 for an unknown id', async () => {
    const bad = await call(sb, 'POST', '/v2/hc-articles/public', { body: { title: '', parentFolderId: 'nope' } });
    expect(bad.status).toBe(400);
    expect(messages(bad.body)).toContain('title should not be empty');
    const noFolder = await call(sb, 'POST', '/v2/hc-articles/public', { body: { title: 'T', mainKnowledge: 'B', parentFolderId: 'nope' } });
    expect(messages(noFolder.body)).toContain('parentFolderId must be the id of a folder in this workspace');
    expect((await call(sb, 'POST', '/v2/hc-articles/public', { body: { title: 'T', mainKnowledge: 'B', parentFolderId: sb.seed.folders.globexFaq } })).status).toBe(403);
    const created = await call(sb, 'POST', '/v2/hc-articles/public', {
      body: { title: 'Sock care', mainKnowledge: 'Wash wool socks cold.', questions: ['How do I wash socks?'], parentFolderId: sb.seed.folders.accountReturns },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: 1, isDraft: false, origin: 'API_CREATED', keywords: [], active: true });
    const updated = await call(sb, 'PUT', `/v2/hc-articles/${created.body.id}/public`, { body: { mainKnowledge: 'Wash wool socks cold and lay flat.' } });
    expect(updated.body).toMatchObject({ version: 2, mainKnowledge: 'Wash wool socks cold and lay flat.', title: 'Sock care' });
    expect((await call(sb, 'PUT', `/v2/hc-articles/${created.body.id}/public`, { body: { title: 'Socks' } })).body.version).toBe(3);
    expect((await call(sb, 'PUT', '/v2/hc-articles/a0000000-000a-4000-8000-000000000404/public', { body: { title: 'x' } })).status).toBe(404);
  });

  it('drafts record the original and its version; publish updates the original (version + 1, draft origin) and marks the draft', async () => {
    const live = wsA().articles.get(A().passwordReset)!;
    const version = live.version;
    const origin = live.origin;
    const draft = await call(sb, 'POST', `/v2/hc-articles/${A().passwordReset}/draft/public`, { body: { mainKnowledge: 'Reset links are now valid for 24 hours.' } });
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({
      isDraft: true,
      isDraftPublished: false,
      originalArticleId: A().passwordReset,
      originalArticleVersion: version,
      mainKnowledge: 'Reset links are now valid for 24 hours.',
      origin: 'API_CREATED',
    });
    expect(live.mainKnowledge).not.toContain('24 hours'); // live article unchanged
    expect((await call(sb, 'POST', `/v2/hc-articles/${draft.body.id}/draft/public`, {})).status).toBe(400); // no draft of a draft

    const published = await call(sb, 'POST', `/v2/hc-articles/${draft.body.id}/publish/public`, {});
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ id: A().passwordReset, version: version + 1, isDraft: false, mainKnowledge: 'Reset links are now valid for 24 hours.', origin: 'API_CREATED' });
    expect(origin).not.toBe('API_CREATED');
    expect(wsA().articles.get(draft.body.id)).toMatchObject({ isDraftPublished: true });
    const twice = await call(sb, 'POST', `/v2/hc-articles/${draft.body.id}/publish/public`, {});
    expect(twice.body).toMatchObject({ id: A().passwordReset, version: version + 2 }); // no once-only rule in the spec
  });

  it("publishing a draft without an original creates a new live article keeping the draft's origin", async () => {
    const r = await call(sb, 'POST', `/v2/hc-articles/${A().giftCardsDraft}/publish/public`, { body: { public: true } });
    expect(r.status).toBe(200);
    expect(r.body.id).not.toBe(A().giftCardsDraft);
    expect(r.body).toMatchObject({ title: 'Gift cards', isDraft: false, version: 1, public: true, origin: 'API_CREATED', originalArticleId: null });
  });

  it('publish: 404 for an absent draft or a live id; 400 for empty required arrays', async () => {
    const absent = await call(sb, 'POST', '/v2/hc-articles/a0000000-000a-4000-8000-000000000404/publish/public', {});
    expect(absent.status).toBe(404);
    expect(absent.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await call(sb, 'POST', `/v2/hc-articles/${A().warranty}/publish/public`, {})).status).toBe(404);
    const draft = await call(sb, 'POST', `/v2/hc-articles/${A().warranty}/draft/public`, {});
    const empty = await call(sb, 'POST', `/v2/hc-articles/${draft.body.id}/publish/public`, { body: { questions: [], keywords: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toEqual(expect.arrayContaining(['questions should not be empty', 'keywords should not be empty']));
  });

  it('moves into an existing folder and deletes; 404/400/403 as documented', async () => {
    const created = await call(sb, 'POST', '/v2/hc-articles/public', { body: { title: 'Temp', mainKnowledge: 'x', parentFolderId: sb.seed.folders.shipping } });
    const id = created.body.id;
    expect((await call(sb, 'PUT', `/v2/hc-articles/${id}/move/public`, { body: { parentFolderId: 'nope' } })).status).toBe(400);
    const moved = await call(sb, 'PUT', `/v2/hc-articles/${id}/move/public`, { body: { parentFolderId: sb.seed.folders.international } });
    expect(moved.body).toMatchObject({ parentFolderId: sb.seed.folders.international, version: 1 });
    expect((await call(sb, 'DELETE', `/v2/hc-articles/${id}/public`)).body).toEqual({ success: true });
    expect((await call(sb, 'DELETE', `/v2/hc-articles/${id}/public`)).status).toBe(404);
    expect((await call(sb, 'DELETE', `/v2/hc-articles/${A().globexWarranty}/public`)).status).toBe(403);
    expect((await call(sb, 'DELETE', `/v2/hc-articles/${A().warranty}/public`, { key: sb.keys.readOnly })).status).toBe(403);
  });
});

describe('folders and agent assignment', () => {
  const F = () => sb.seed.folders;
  const B = () => sb.seed.bots;

  it('lists all folders with botIds, or those an agent sees (assigned and subfolders)', async () => {
    const all = await call(sb, 'GET', '/v2/hc-folders/public', { key: sb.keys.readOnly });
    expect(all.status).toBe(200);
    expect(all.body.find((f: { id: string }) => f.id === F().shipping)).toMatchObject({ name: 'Shipping & Delivery', parentFolderId: null, botIds: [B().storeAssistant] });
    const email = await call(sb, 'GET', '/v2/hc-folders/public', { query: { botId: B().emailSupport } });
    expect(email.body.map((f: { id: string }) => f.id).sort()).toEqual([F().international, F().accountReturns].sort());
    const store = await call(sb, 'GET', '/v2/hc-folders/public', { query: { botId: B().storeAssistant } });
    expect(store.body.map((f: { id: string }) => f.id)).toContain(F().international); // subfolder of an assigned folder
    expect((await call(sb, 'GET', '/v2/hc-folders/public', { query: { botId: B().globexHelpdesk } })).status).toBe(403);
  });

  it('creates, renames, moves (rejecting cycles) and deletes folders', async () => {
    expect((await call(sb, 'POST', '/v2/hc-folders/public', { body: {} })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/hc-folders/public', { body: { name: 'x', parentFolderId: 'nope' } })).status).toBe(400);
    const parent = await call(sb, 'POST', '/v2/hc-folders/public', { body: { name: 'Care' } });
    expect(parent.status).toBe(201);
    expect(parent.body).toMatchObject({ name: 'Care', parentFolderId: null, botIds: [] });
    const child = await call(sb, 'POST', '/v2/hc-folders/public', { body: { name: 'Wool', parentFolderId: parent.body.id } });
    expect(child.body.parentFolderId).toBe(parent.body.id);
    expect((await call(sb, 'PUT', `/v2/hc-folders/${child.body.id}/public`, { body: { name: 'Wool care' } })).body.name).toBe('Wool care');
    expect((await call(sb, 'PUT', '/v2/hc-folders/f0000000-000a-4000-8000-000000000404/public', { body: { name: 'x' } })).status).toBe(404);

    const cycle = await call(sb, 'PUT', `/v2/hc-folders/${parent.body.id}/move/public`, { body: { parentFolderId: child.body.id } });
    expect(cycle.status).toBe(400);
    expect(messages(cycle.body)).toContain('cannot be moved into itself or one of its subfolders');
    expect((await call(sb, 'PUT', `/v2/hc-folders/${parent.body.id}/move/public`, { body: { parentFolderId: parent.body.id } })).status).toBe(400);
    const moved = await call(sb, 'PUT', `/v2/hc-folders/${child.body.id}/move/public`, { body: { parentFolderId: null } });
    expect(moved.body.parentFolderId).toBeNull();
    const nested = await call(sb, 'PUT', `/v2/hc-folders/${parent.body.id}/move/public`, { body: { parentFolderId: child.body.id } });
    expect(nested.body.parentFolderId).toBe(child.body.id);

    const notEmpty = await call(sb, 'DELETE', `/v2/hc-folders/${child.body.id}/public`);
    expect(notEmpty.status).toBe(400);
    expect(messages(notEmpty.body)).toContain('folder is not empty (0 articles, 1 subfolders)');
    expect((await call(sb, 'DELETE', `/v2/hc-folders/${parent.body.id}/public`)).body).toEqual({ success: true });
    expect((await call(sb, 'DELETE', `/v2/hc-folders/${parent.body.id}/public`)).status).toBe(404);
    expect((await call(sb, 'DELETE', `/v2/hc-folders/${F().globexFaq}/public`)).status).toBe(403);
  });

  it('assignment decides what generate answer retrieves', async () => {
    const folder = (await call(sb, 'POST', '/v2/hc-folders/public', { body: { name: 'Outdoor activities' } })).body;
    await call(sb, 'POST', '/v2/hc-articles/public', {
      body: { title: 'Kayak rentals', mainKnowledge: 'Kayak rentals are available at the Portland store for $40 per day.', keywords: ['kayak', 'rental'], parentFolderId: folder.id },
    });
    const ask = async () => (await call(sb, 'POST', '/v2/hc-interactions/events/public', { body: { botId: B().emailSupport, content: 'Can I rent a kayak?' } })).body[1];
    expect((await ask()).type).toBe('silent_escalation');

    expect((await call(sb, 'POST', '/v2/hc-bot-folder-junctions/public', { body: { botId: B().emailSupport } })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/hc-bot-folder-junctions/public', { body: { botId: 'nope', folderIds: [folder.id] } })).status).toBe(400);
    expect((await call(sb, 'POST', '/v2/hc-bot-folder-junctions/public', { body: { botId: B().globexHelpdesk, folderIds: [folder.id] } })).status).toBe(403);
    const assigned = await call(sb, 'POST', '/v2/hc-bot-folder-junctions/public', { body: { botId: B().emailSupport, folderIds: [folder.id] } });
    expect(assigned.status).toBe(200);
    expect(assigned.body.folderIds).toContain(folder.id);
    expect(assigned.body.added).toHaveLength(1);
    const again = await call(sb, 'POST', '/v2/hc-bot-folder-junctions/public', { body: { botId: B().emailSupport, folderIds: [folder.id] } });
    expect(again.body.added).toHaveLength(0); // idempotent

    const reply = await ask();
    expect(reply.type).toBe('message');
    expect(reply.message).toContain('Kayak rentals are available');
    expect(reply.usedArticles[0].title).toBe('Kayak rentals');
  });
});
