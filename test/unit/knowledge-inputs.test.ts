import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { catalog } from '../../tools/index.js';

const tools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
const tool = (name: string) => tools.get(name)!;
const validate = (name: string, args: Record<string, unknown>) => validateInput(tool(name), args, {});

const httpUrl = fc.webUrl({ validSchemes: ['http', 'https'] });
/** Source ids: UUIDs and other opaque ids, never URLs. */
const sourceId = fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/));
const provider = fc.constantFrom('drive', 'notes', 'helpcenter', 'wiki');

describe('ingest_sources: URLs with web, source ids otherwise', () => {
  it('accepts any http(s) URLs with source web (explicit or default)', () => {
    fc.assert(
      fc.property(fc.array(httpUrl, { minLength: 1, maxLength: 5 }), fc.boolean(), (urls, explicit) => {
        const result = validate('ingest_sources', explicit ? { source: 'web', documentIdsToAdd: urls } : { documentIdsToAdd: urls });
        return result.ok && result.value.source === 'web';
      }),
    );
  });

  it('refuses a source id among URLs with source web, naming its index', () => {
    fc.assert(
      fc.property(fc.array(httpUrl, { maxLength: 4 }), sourceId, fc.nat(), fc.constantFrom('documentIdsToAdd', 'documentIdsToRefresh'), (urls, id, at, field) => {
        const items = [...urls];
        const index = at % (items.length + 1);
        items.splice(index, 0, id);
        const result = validate('ingest_sources', { [field]: items });
        return !result.ok && result.message.includes(`${field}[${index}]: must be an http(s) URL when source is web`);
      }),
    );
  });

  it('accepts source ids and refuses URLs with a provider source', () => {
    fc.assert(fc.property(provider, fc.array(sourceId, { minLength: 1, maxLength: 5 }), (source, ids) => validate('ingest_sources', { source, documentIdsToAdd: ids }).ok));
    fc.assert(
      fc.property(provider, httpUrl, (source, url) => {
        const result = validate('ingest_sources', { source, documentIdsToRefresh: [url] });
        return !result.ok && result.message.includes(`documentIdsToRefresh[0]: must be a source id when source is ${source}`);
      }),
    );
  });

  it('never sends wait or timeoutSeconds', () => {
    fc.assert(
      fc.property(httpUrl, fc.integer({ min: 1, max: 900 }), (url, seconds) => {
        const result = validate('ingest_sources', { documentIdsToAdd: [url], wait: true, timeoutSeconds: seconds });
        if (!result.ok) return false;
        const body = buildRequest(tool('ingest_sources'), result.value).body as Record<string, unknown>;
        return !('wait' in body) && !('timeoutSeconds' in body) && body.source === 'web';
      }),
    );
  });
});

describe('provider names', () => {
  it('discovery accepts the documented kinds notes, helpcenter and wiki, and refuses anything else', () => {
    for (const name of ['notes', 'helpcenter', 'wiki']) expect(validate('list_provider_resources', { provider: name }).ok).toBe(true);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 16 }).filter((name) => !['notes', 'helpcenter', 'wiki'].includes(name)),
        (name) => {
          const result = validate('list_provider_resources', { provider: name });
          return !result.ok && result.message.includes('provider: must be one of "notes", "helpcenter", "wiki"');
        },
      ),
    );
  });
});

describe('register_provider_resources', () => {
  const FIELDS = ['originalUrl', 'title', 'externalId', 'mimeType'] as const;
  const complete = { originalUrl: 'https://notes.example/p', title: 'Page', externalId: 'p-1', mimeType: 'text/markdown' };

  it('names the index and field of every missing required field', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.nat(), fc.constantFrom(...FIELDS), (count, at, field) => {
        const resources: Record<string, unknown>[] = Array.from({ length: count }, () => ({ ...complete }));
        const index = at % count;
        delete resources[index][field];
        const result = validate('register_provider_resources', { provider: 'notes', resources });
        return !result.ok && result.message.includes(`resources[${index}].${field}: is required`);
      }),
    );
  });

  it('passes provider-specific fields through', () => {
    const result = validate('register_provider_resources', { provider: 'notes', resources: [{ ...complete, object: 'page', storageUrl: 's3://x' }] });
    expect(result.ok).toBe(true);
    if (result.ok) expect(buildRequest(tool('register_provider_resources'), result.value).body).toEqual({ resources: [{ ...complete, object: 'page', storageUrl: 's3://x' }] });
  });
});

describe('routes whose payload is not shown', () => {
  it('pass unknown JSON fields through in the body', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'crawl_links',
          'initialize_knowledge_tree',
          'persist_knowledge_tree',
          'generate_knowledge',
          'generate_knowledge_bulk',
          'create_folder',
          'assign_folders_to_agent',
          'create_article',
        ),
        fc.stringMatching(/^x[A-Za-z]{1,10}$/),
        fc.oneof(fc.string(), fc.integer(), fc.boolean()),
        (name, key, value) => {
          const result = validate(name, { [key]: value });
          return result.ok && (buildRequest(tool(name), result.value).body as Record<string, unknown>)[key] === value;
        },
      ),
    );
  });

  it('get_articles and get_knowledge_jobs_status are POST reads', () => {
    for (const name of ['get_articles', 'get_knowledge_jobs_status']) {
      expect(tool(name).scope).toBe('read');
      expect(buildRequest(tool(name), {}).read).toBe(true);
      expect(buildRequest(tool(name), {}).method).toBe('POST');
    }
  });
});
