import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { isNotFound } from '../src/engine/errors.js';
import { pollUntil } from '../src/engine/poll.js';
import { isRecord, recordOf } from '../src/json.js';
import { countOf, defined, fieldOf } from './lib/records.js';
import { PASS_THROUGH } from './lib/inputs.js';
import { PROVIDER_KINDS, type ProviderKind } from '../src/config.js';
import { shape } from './lib/shapes.js';
import { importKnowledgeFromUrls } from './prompts.js';
import { idsIn, seenIn } from './lib/mirror/seen.js';

/**
 * The spec names providers only by kind (`<notes>`, ...) and hides their wire names: tools take
 * the kinds, and the route's `providerFields` sends them under SVC_PROVIDER_NAMES.
 */
const discoveryKind = z.enum(['notes', 'helpcenter', 'wiki'] as const satisfies readonly ProviderKind[]);
const providerKind = z.enum(PROVIDER_KINDS);

function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return Boolean(url.hostname);
  } catch {
    return false;
  }
}

/** A job PENDING longer than this should be reported to support (spec, Limits). */
const PENDING_REPORT_MS = 15 * 60_000;
const DEFAULT_WAIT_SECONDS = 120;
const MAX_WAIT_SECONDS = 900;
const TERMINAL = new Set(['COMPLETED', 'FAILED']);

const timeoutSeconds = z.number().min(1, `must be from 1 to ${MAX_WAIT_SECONDS}`).max(MAX_WAIT_SECONDS, `must be from 1 to ${MAX_WAIT_SECONDS}`).optional().describe(`default ${DEFAULT_WAIT_SECONDS}`);

/** Source record (spec, Resources): linkedKnowledgeId, error and paragraphs are set only after a run. */
const sourceRecord = shape(
  { id: z.string(), source: z.string(), url: z.string(), title: z.string(), success: z.boolean(), linkedJobStatus: z.string() },
  { error: z.string().nullable(), paragraphs: z.array(z.unknown()) },
);

// ---------------------------------------------------------------------------
// Waiting for ingestion jobs

interface Polled {
  record?: Record<string, unknown>;
  notFound?: boolean;
}

function statusOf(polled: Polled | undefined): string {
  if (!polled) return 'UNKNOWN';
  if (polled.notFound) return 'NOT_FOUND';
  const record = polled.record ?? {};
  // A registered source that was never queued has no job to wait for.
  if (record.linkedJobId === null && record.linkedJobStatus === 'PENDING') return 'NOT_QUEUED';
  return typeof record.linkedJobStatus === 'string' ? record.linkedJobStatus : 'UNKNOWN';
}

function finished(polled: Polled | undefined): boolean {
  const status = statusOf(polled);
  return TERMINAL.has(status) || status === 'NOT_FOUND' || status === 'NOT_QUEUED';
}

function summarize(id: string, polled: Polled | undefined): Record<string, unknown> {
  const record = polled?.record ?? {};
  const status = statusOf(polled);
  return defined({
    sourceId: id,
    status,
    title: record.title,
    url: record.url,
    success: record.success,
    error: status === 'NOT_FOUND' ? 'no source with this id in this workspace' : record.error || undefined,
    paragraphs: Array.isArray(record.paragraphs) ? record.paragraphs.length : undefined,
    linkedKnowledgeId: record.linkedKnowledgeId,
    updatedAt: record.updatedAt,
  });
}

function counts(ids: string[], states: Map<string, Polled>): string {
  const tally = new Map<string, number>();
  for (const id of ids) {
    const status = statusOf(states.get(id));
    tally.set(status, (tally.get(status) ?? 0) + 1);
  }
  return [...tally].map(([status, count]) => `${status} ${count}`).join(', ');
}

/**
 * Polls each still-unfinished source through get_source (so every poll passes the shared
 * limiter) until all are COMPLETED or FAILED, the timeout, or cancellation.
 */
async function waitForSources(sourceIds: string[], seconds: number | undefined, context: ToolContext): Promise<Record<string, unknown>> {
  const ids = [...new Set(sourceIds)];
  const states = new Map<string, Polled>();
  const pending = () => ids.filter((id) => !finished(states.get(id)));
  const started = Date.now();
  const outcome = await pollUntil(context, {
    fetch: async () => {
      await Promise.all(
        pending().map(async (sourceId) => {
          try {
            const record = await context.call('get_source', { sourceId });
            states.set(sourceId, { record: recordOf(record) });
          } catch (error) {
            if (isNotFound(error)) states.set(sourceId, { notFound: true });
            else throw error;
          }
        }),
      );
      return states;
    },
    done: () => pending().length === 0,
    describe: () => {
      const done = ids.length - pending().length;
      return { progress: done, total: ids.length, message: `${done} of ${ids.length} sources finished (${counts(ids, states)})` };
    },
    timeoutSeconds: seconds ?? DEFAULT_WAIT_SECONDS,
    intervalMs: 500,
    maxIntervalMs: 10_000,
  });

  const stillPending = pending();
  const notes: string[] = [];
  if (outcome.status === 'timeout') {
    notes.push(
      `Stopped waiting after ${seconds ?? DEFAULT_WAIT_SECONDS} s with ${stillPending.length} still pending: ${stillPending.join(', ')}. Call wait_for_sources with these ids to keep waiting.`,
    );
  } else if (outcome.status === 'cancelled') {
    notes.push(`Cancelled: polling stopped with ${stillPending.length} not finished: ${stillPending.join(', ') || 'none'}.`);
  }
  for (const id of ids) {
    const record = states.get(id)?.record;
    if (record?.linkedJobStatus !== 'PENDING' || statusOf(states.get(id)) === 'NOT_QUEUED') continue;
    const since = Date.parse(String(record.updatedAt ?? record.createdAt ?? ''));
    if (Number.isFinite(since) && Date.now() - since > PENDING_REPORT_MS) {
      notes.push(
        `Source ${id} has been PENDING for ${Math.round((Date.now() - since) / 60_000)} minutes: the API asks that jobs pending over 15 minutes be reported to support (give them the source id).`,
      );
    }
  }
  const notQueued = ids.filter((id) => statusOf(states.get(id)) === 'NOT_QUEUED');
  if (notQueued.length) notes.push(`No ingestion job was ever queued for ${notQueued.join(', ')}: call ingest_sources with source set to their provider and these ids in documentIdsToAdd.`);
  const failed = ids.filter((id) => statusOf(states.get(id)) === 'FAILED');
  if (failed.length)
    notes.push(`${failed.length} failed: error gives the cause (typically an authentication-protected page, robots exclusion, an unextractable content type or an expired provider connection).`);
  if (ids.some((id) => statusOf(states.get(id)) === 'COMPLETED')) {
    notes.push('COMPLETED means processed, not yet used in answers: generate knowledge from it (generate_knowledge) and review the drafts (list_articles type draft) before publishing.');
  }
  return {
    status: outcome.status === 'done' ? 'finished' : outcome.status === 'timeout' ? 'timed_out' : 'cancelled',
    finished: ids.length - stillPending.length,
    total: ids.length,
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10,
    ...(stillPending.length ? { stillPending } : {}),
    sources: ids.map((id) => summarize(id, states.get(id))),
    notes,
  };
}

// ---------------------------------------------------------------------------
// Tools

const listProviderResources = defineTool({
  name: 'list_provider_resources',
  title: 'List importable provider resources',
  words: 'notes wiki helpcenter integration connected available new discover browse overview existing current document page file import drive',
  gives: ['resources'],
  scope: 'read',
  description: 'Finds new documents of connected notes, helpcenter and wiki providers, to import with register_provider_resources (drive sources are ingested by id).',
  input: z.object({ provider: discoveryKind }),
  route: { method: 'GET', path: '/v2/documents/public/resources/{provider}', providerFields: ['provider'] },
  transform: (resources, input) => ({ provider: input.provider, resources }),
  output: shape({ provider: z.string(), resources: z.array(shape({}, { title: z.string(), externalId: z.string(), originalUrl: z.string() })) }),
  errors: { 400: 'the provider is not supported for discovery or not connected in this workspace' },
});

const resource = z
  .object({
    originalUrl: z.string().min(1, 'must not be empty'),
    title: z.string().min(1, 'must not be empty'),
    externalId: z.string().min(1, 'must not be empty'),
    mimeType: z.string().min(1, 'must not be empty'),
    object: z.string().optional(),
  })
  .passthrough();

const registerProviderResources = defineTool({
  name: 'register_provider_resources',
  title: 'Register provider resources as sources',
  words: 'add record discovered found selected pages documents save file import notes wiki helpcenter integration connected drive',
  scope: 'write',
  idempotent: true,
  description: 'Records documents from list_provider_resources as sources; ingest_sources takes the ids it returns, with source = the provider.',
  input: z.object({
    provider: providerKind,
    resources: z.array(resource),
  }),
  route: { method: 'POST', path: '/v2/documents/public/resources/{provider}', body: ['resources'], providerFields: ['provider'] },
  preview: async (input) => [`Records ${input.resources.length} ${input.provider} resource(s) as sources, new or updated; it does not ingest them (ingest_sources does).`],
  keepMirror: seenIn('register_provider_resources', 'source', (data) => [...idsIn(data, 'addedDocumentIds'), ...idsIn(data, 'updatedDocumentIds')]),
  output: shape({ addedDocumentIds: z.array(z.string()), updatedDocumentIds: z.array(z.string()) }),
  done: (data, input) =>
    `${countOf(data, 'addedDocumentIds')} source(s) added and ${countOf(data, 'updatedDocumentIds')} updated for ${input.provider}; next: ingest_sources with source ${input.provider} and those ids.`,
  errors: { 400: 'the provider is unsupported or not connected, or a resource misses originalUrl, title, externalId or mimeType' },
});

const crawlLinks = defineTool({
  name: 'crawl_links',
  title: 'Expand a URL into page links',
  words: 'spider website site urls links pages subpages sitemap scrape discover',
  scope: 'write',
  idempotent: true,
  description: `Finds the page links of a website from a start URL, to import with ingest_sources. ${PASS_THROUGH}`,
  input: z
    .object({
      url: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
      // The payload is not shown: a count, with no upper limit invented.
      maxLinks: z.number().int('must be a whole number').positive('must be 1 or more').safe('must be a whole number of links').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/documents/public/deep-crawl/links', body: 'rest', payloadNotShown: [] },
  done: (data) => `${countOf(data, 'links')} link(s) found next to ${fieldOf(data, 'url')}; next: ingest_sources with the ones to import.`,
});

const ingestInput = z
  .object({
    source: z
      .enum(['web', ...PROVIDER_KINDS])
      .default('web')
      .describe('web (default): items are URLs; a provider name: items are its source ids'),
    documentIdsToAdd: idList().optional(),
    documentIdsToRefresh: idList().optional(),
    english: z.boolean().optional().describe('English-specific processing, default true'),
    baser: z.boolean().optional().describe('Extra processing mode, default false'),
    wait: z.boolean().optional(),
    timeoutSeconds,
  })
  .superRefine((input, context) => {
    const web = input.source === 'web';
    for (const field of ['documentIdsToAdd', 'documentIdsToRefresh'] as const) {
      (input[field] ?? []).forEach((item, index) => {
        if (web && !isHttpUrl(item)) {
          context.addIssue({
            code: z.ZodIssueCode.custom,
            path: [field, index],
            message: 'must be an http(s) URL when source is web; source ids are not allowed with source=web (set source to their provider)',
          });
        } else if (!web && isHttpUrl(item)) {
          context.addIssue({
            code: z.ZodIssueCode.custom,
            path: [field, index],
            message: `must be a source id when source is ${input.source} (register_provider_resources returns them); URLs go with source web`,
          });
        }
      });
    }
  });

function queuedSourceIds(response: unknown): string[] {
  if (!isRecord(response)) return [];
  const documents = Array.isArray(response.documents) ? response.documents : [];
  const ids = documents.map((document) => (isRecord(document) ? document.id : undefined));
  const jobs = Array.isArray(response.jobs) ? response.jobs : [];
  ids.push(...jobs.map((job) => (isRecord(job) ? job.documentId : undefined)));
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/** The queued jobs with the status the wait saw last: the queue response's PENDING is long out of date by then. */
function withLastStatus(jobs: unknown, wait: Record<string, unknown>): unknown {
  if (!Array.isArray(jobs)) return jobs;
  const seen = new Map((wait.sources as Record<string, unknown>[]).map((source) => [source.sourceId, source.status]));
  return jobs.map((job) => (isRecord(job) && typeof seen.get(job.documentId) === 'string' ? { ...job, status: seen.get(job.documentId) } : job));
}

/** The opening line: what was queued and, after a wait, how it ended, with the next step that fits. */
function ingestDone(data: unknown): string {
  const queued = `${countOf(data, 'jobs')} ingestion job(s) queued`;
  const wait = isRecord(data) && isRecord(data.wait) ? data.wait : undefined;
  if (!wait) return `${queued}; next: wait_for_sources with the source ids, then generate_knowledge for the COMPLETED ones.`;
  if (wait.status === 'error') return `${queued}, but waiting for them failed; next: wait_for_sources with the source ids.`;
  const sources = Array.isArray(wait.sources) ? wait.sources.filter(isRecord) : [];
  const tally = new Map<string, number>();
  for (const source of sources) tally.set(String(source.status), (tally.get(String(source.status)) ?? 0) + 1);
  const outcome = [...tally].map(([status, count]) => `${count} ${status}`).join(', ');
  if (wait.status !== 'finished') return `${queued}; after waiting, ${outcome}; next: wait_for_sources with the stillPending ids.`;
  const next = tally.has('COMPLETED') ? 'generate_knowledge for the COMPLETED ones' : 'read each error and fix the source before ingesting again';
  return `${queued} and finished: ${outcome}; next: ${next}.`;
}

const ingestSources = defineTool({
  name: 'ingest_sources',
  title: 'Ingest sources',
  words: 'import upload add load url web pages documents reimport refresh file',
  gives: ['sourceId', 'sourceIds', 'documentId', 'documentIds'],
  scope: 'write',
  description: "Imports web pages (URLs) or a provider's registered sources (ids) as knowledge: queues jobs and returns source ids; wait true waits for them.",
  input: ingestInput,
  route: { method: 'POST', path: '/v2/documents/public', body: ['source', 'documentIdsToAdd', 'documentIdsToRefresh', 'english', 'baser'], providerFields: ['source'] },
  keepMirror: seenIn('ingest_sources', 'source', (data) => idsIn(data, 'documents')),
  output: shape({ jobs: z.array(shape({ id: z.string(), documentId: z.string(), status: z.string() })) }, { documents: z.array(shape({ id: z.string() })) }),
  done: ingestDone,
  transform: async (response, input, context) => {
    if (!input.wait) return response;
    const ids = queuedSourceIds(response);
    const { documents: _queued, ...rest } = isRecord(response) ? response : { documents: undefined };
    try {
      const wait = await waitForSources(ids, input.timeoutSeconds, context);
      return { ...rest, jobs: withLastStatus(rest.jobs, wait), wait };
    } catch (error) {
      return {
        ...rest,
        wait: {
          status: 'error',
          error: error instanceof Error ? error.message : String(error),
          notes: [`The jobs were queued, but waiting for them failed. Call wait_for_sources with sourceIds ${JSON.stringify(ids)} to check them.`],
        },
      };
    }
  },
  errors: { 400: 'check source (web or a connected provider) and that items are URLs with web and source ids otherwise' },
});

const getSource = defineTool({
  name: 'get_source',
  title: 'Get a source',
  words: 'status processed ready done finished failed error imported document page open read view details look inspect fetch file',
  scope: 'read',
  description: 'Checks one imported source: job status, error, extracted text. Id from ingest_sources or register_provider_resources.',
  input: z.object({ sourceId: idInput() }),
  route: { method: 'GET', path: '/v2/documents/public/{sourceId}' },
  keepMirror: seenIn('get_source', 'source', (_data, input) => [input.sourceId]),
  output: sourceRecord,
  errors: { 404: 'no source with this id in this workspace (ingest_sources and register_provider_resources return source ids; there is no list route)' },
});

const waitTool = defineTool({
  name: 'wait_for_sources',
  title: 'Wait for ingestion jobs',
  words: 'until block poll keep checking finished done complete imports ready notify document page file',
  scope: 'read',
  description: "Waits until imports finish (COMPLETED or FAILED) with progress; reports each source's status and error. Ids from ingest_sources.",
  input: z.object({
    sourceIds: idList().min(1, 'must not be empty').max(100, 'must hold at most 100 ids'),
    timeoutSeconds,
  }),
  handler: (input, context) => waitForSources(input.sourceIds, input.timeoutSeconds, context),
  // A timed-out or cancelled wait's first note says what is still pending and how to keep waiting.
  stoppedEarly: (data) => (isRecord(data) && data.status !== 'finished' && Array.isArray(data.notes) ? `INCOMPLETE: ${String(data.notes[0])}` : undefined),
  taskSupport: 'optional',
});

export const sources = defineGroup({
  name: 'sources',
  description: 'Knowledge sources: provider discovery and registration, crawling, ingestion jobs and waiting for them.',
  tools: [listProviderResources, registerProviderResources, crawlLinks, ingestSources, getSource, waitTool],
  // People name products where the spec names provider kinds, and call a source a document.
  aliases: {
    ...Object.fromEntries(['notion', 'coda', 'evernote', 'obsidian', 'onenote', 'quip'].map((product) => [product, 'notes'])),
    ...Object.fromEntries(['confluence', 'gitbook', 'mediawiki', 'slab', 'guru', 'nuclino'].map((product) => [product, 'wiki'])),
    ...Object.fromEntries(['zendesk', 'intercom', 'freshdesk', 'helpscout', 'gorgias', 'kustomer', 'document360'].map((product) => [product, 'helpcenter'])),
    ...Object.fromEntries(['google', 'gdrive', 'dropbox', 'onedrive', 'sharepoint'].map((product) => [product, 'drive'])),
    document: 'source',
    doc: 'source',
  },
  resources: [
    {
      name: 'source',
      title: 'One source',
      description: 'A source record with its ingestion status, error and extracted paragraphs.',
      uri: 'svc://sources/{sourceId}',
      tool: 'get_source',
    },
  ],
  prompts: [importKnowledgeFromUrls],
});
