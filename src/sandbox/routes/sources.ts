/**
 * Sources: provider discovery and registration, deep crawl, ingestion jobs, one source record.
 * Ingestion outcomes are deterministic (see `ingestionOutcome` and CHOICES.md "Knowledge").
 */
import { badRequest } from '../errors.js';
import { isUuid, newId, newJobId } from '../ids.js';
import type { RouteRequest } from '../router.js';
import { advanceJob, findInWorkspace, iso, requireInWorkspace, type SandboxState, type Workspace } from '../state.js';
import type { IngestionJob, ProviderKind, SourceKind, SourceRecord } from '../types.js';
import { Violations, isPlainObject, objectBody, optionalBoolean, optionalString, requireString } from '../validate.js';

export const SOURCE_KINDS: readonly SourceKind[] = ['web', 'drive', 'notes', 'helpcenter', 'wiki'];
/** Providers with discovery and registration (spec: `provider` is one of notes, helpcenter, wiki). */
export const RESOURCE_PROVIDERS: readonly ProviderKind[] = ['notes', 'helpcenter', 'wiki'];

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Source record on the wire: the spec's fields plus the linked job id and provider metadata. */
export function sourceView(s: SourceRecord) {
  return {
    id: s.id,
    source: s.source,
    url: s.url,
    title: s.title,
    success: s.success,
    changed: s.changed,
    linkedJobStatus: s.linkedJobStatus,
    linkedKnowledgeId: s.linkedKnowledgeId,
    error: s.error,
    paragraphs: [...s.paragraphs],
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    linkedJobId: s.linkedJobId,
    externalId: s.externalId,
    mimeType: s.mimeType,
    object: s.object,
  };
}

/** Brings the source's linked job up to date with the clock. */
export function refreshSource(state: SandboxState, ws: Workspace, s: SourceRecord): SourceRecord {
  const job = s.linkedJobId ? ws.jobs.get(s.linkedJobId) : undefined;
  if (job) advanceJob(state, ws, job);
  return s;
}

const CONTENT_TYPES: Record<string, string> = { zip: 'application/zip', exe: 'application/x-msdownload', bin: 'application/octet-stream' };

/**
 * The documented outcome of ingesting one item, decided from its URL (CHOICES.md):
 * a host under `.invalid` (a reserved name that never resolves): unreachable host;
 * `/private` or `/login` in the path: authentication-protected; `/no-robots`: robots exclusion;
 * `.zip`, `.exe`, `.bin`: unextractable content type; a provider item whose URL or external id
 * contains `expired`: expired provider connection. Anything else completes.
 */
export function ingestionOutcome(kind: SourceKind, url: string, externalId: string | null, title: string): { outcome: 'COMPLETED' | 'FAILED'; error: string; paragraphs: string[] } {
  let path = url.toLowerCase();
  let host = '';
  try {
    const parsed = new URL(url);
    path = parsed.pathname.toLowerCase();
    host = parsed.hostname.toLowerCase();
  } catch {
    /* keep the raw text */
  }
  const fail = (error: string) => ({ outcome: 'FAILED' as const, error, paragraphs: [] });
  if (host === 'invalid' || host.endsWith('.invalid')) return fail(`Fetching the URL failed: the host ${host} could not be reached (DNS lookup failed)`);
  if (path.includes('/private') || path.includes('/login')) return fail('Fetching the URL failed: HTTP 401 (the page requires authentication)');
  if (path.includes('/no-robots')) return fail("Fetching the URL is disallowed by the site's robots.txt (robots exclusion)");
  const extension = /\.(zip|exe|bin)$/.exec(path)?.[1];
  if (extension) return fail(`Unsupported content type ${CONTENT_TYPES[extension]}: no text could be extracted`);
  if (kind !== 'web' && (url.toLowerCase().includes('expired') || (externalId ?? '').toLowerCase().includes('expired'))) {
    return fail(`The ${kind} connection has expired; reconnect ${kind} in the dashboard and refresh the source`);
  }
  return { outcome: 'COMPLETED', error: '', paragraphs: paragraphsFor(url, title) };
}

function paragraphsFor(url: string, title: string): string[] {
  let host = 'the source';
  try {
    host = new URL(url).hostname;
  } catch {
    /* not a URL */
  }
  const topic = title.toLowerCase();
  return [
    `${title}: an overview of ${topic} as published on ${host}.`,
    `This page explains ${topic} step by step, with the conditions that apply and the exceptions customers ask about most.`,
    `For anything not covered here about ${topic}, customers are asked to contact the support team.`,
  ];
}

/** Title of a web page, derived from its URL: the last path segment in sentence case, else the host. */
export function titleFromUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const segment = parsed.pathname.split('/').filter(Boolean).pop();
    if (!segment) return parsed.hostname;
    const words = decodeURIComponent(segment)
      .replace(/\.[a-z0-9]+$/i, '')
      .replace(/[-_]+/g, ' ')
      .trim();
    return words ? words.charAt(0).toUpperCase() + words.slice(1) : parsed.hostname;
  } catch {
    return url;
  }
}

function checkProvider(req: RouteRequest): ProviderKind {
  const provider = req.params.provider;
  if (!(RESOURCE_PROVIDERS as readonly string[]).includes(provider)) {
    throw badRequest([`provider must be one of the following values: ${RESOURCE_PROVIDERS.join(', ')}`]);
  }
  if (!req.workspace.connectedProviders.has(provider as ProviderKind)) {
    throw badRequest([`provider ${provider} is not connected in this workspace`]);
  }
  return provider as ProviderKind;
}

function importedKeys(ws: Workspace, provider: ProviderKind): { externalIds: Set<string>; urls: Set<string> } {
  const externalIds = new Set<string>();
  const urls = new Set<string>();
  for (const s of ws.sources.values()) {
    if (s.source !== provider) continue;
    if (s.externalId) externalIds.add(s.externalId);
    urls.add(s.url);
  }
  return { externalIds, urls };
}

export function discover(req: RouteRequest) {
  const provider = checkProvider(req);
  const ws = req.workspace;
  const { externalIds, urls } = importedKeys(ws, provider);
  const fresh = (r: { externalId: string; originalUrl: string }) => !externalIds.has(r.externalId) && !urls.has(r.originalUrl);
  const catalog = structuredClone(ws.providerCatalog);
  if (provider === 'notes') return { body: catalog.notes.filter(fresh) };
  if (provider === 'helpcenter') {
    const categories = catalog.helpcenter
      .map((category) => ({
        ...category,
        children: category.children.map((section) => ({ ...section, children: section.children.filter(fresh) })).filter((section) => section.children.length > 0),
      }))
      .filter((category) => category.children.length > 0);
    return { body: categories };
  }
  const spaces = catalog.wiki.map((space) => ({ ...space, pages: space.pages.filter(fresh) })).filter((space) => space.pages.length > 0);
  return { body: spaces };
}

const RESOURCE_FIELDS = ['originalUrl', 'title', 'externalId', 'mimeType'] as const;

export function register(req: RouteRequest) {
  const provider = checkProvider(req);
  const ws = req.workspace;
  const body = objectBody(req.body);
  const v = new Violations();
  if (!Array.isArray(body.resources)) {
    v.add('resources must be an array');
    v.throwIfAny();
  }
  const resources = body.resources as unknown[];
  resources.forEach((item, index) => {
    if (!isPlainObject(item)) {
      v.add(`resources.${index} must be an object`);
      return;
    }
    for (const field of RESOURCE_FIELDS) requireString(v, `resources.${index}.${field}`, item[field]);
    optionalString(v, `resources.${index}.storageUrl`, item.storageUrl);
    optionalString(v, `resources.${index}.object`, item.object);
  });
  v.throwIfAny();

  const addedDocumentIds: string[] = [];
  const updatedDocumentIds: string[] = [];
  const at = iso(req.now);
  for (const item of resources as Record<string, string | undefined>[]) {
    const existing = [...ws.sources.values()].find((s) => s.source === provider && s.externalId === item.externalId);
    if (existing) {
      existing.url = item.originalUrl!;
      existing.title = item.title!;
      existing.mimeType = item.mimeType!;
      existing.object = item.object ?? existing.object;
      existing.storageUrl = item.storageUrl ?? existing.storageUrl;
      existing.updatedAt = at;
      if (!updatedDocumentIds.includes(existing.id)) updatedDocumentIds.push(existing.id);
      continue;
    }
    const record = addSource(ws, at, {
      source: provider,
      url: item.originalUrl!,
      title: item.title!,
      externalId: item.externalId!,
      mimeType: item.mimeType!,
      object: item.object ?? null,
      storageUrl: item.storageUrl ?? null,
    });
    addedDocumentIds.push(record.id);
  }
  return { body: { addedDocumentIds, updatedDocumentIds } };
}

/** A source the workspace has not ingested yet: what the caller names it by, the rest as every new source starts. */
type NewSource = Pick<SourceRecord, 'source' | 'url' | 'title' | 'externalId' | 'mimeType' | 'object' | 'storageUrl'>;

function addSource(ws: RouteRequest['workspace'], at: string, named: NewSource): SourceRecord {
  const record: SourceRecord = {
    id: newId(),
    companyId: ws.id,
    ...named,
    success: false,
    changed: false,
    linkedJobStatus: 'PENDING',
    linkedKnowledgeId: null,
    error: '',
    paragraphs: [],
    createdAt: at,
    updatedAt: at,
    linkedJobId: null,
  };
  ws.sources.set(record.id, record);
  return record;
}

const CRAWL_PAGES = ['faq', 'shipping', 'returns', 'warranty', 'sizing', 'care-guide', 'contact', 'gift-cards', 'payment-methods', 'track-order'];

export function crawl(req: RouteRequest) {
  const body = objectBody(req.body);
  const v = new Violations();
  const url = requireString(v, 'url', body.url);
  if (url !== undefined && !isHttpUrl(url)) v.add('url must be a URL address');
  let maxLinks = 10;
  if (body.maxLinks !== undefined) {
    if (!Number.isInteger(body.maxLinks)) v.add('maxLinks must be an integer number');
    else if ((body.maxLinks as number) < 1) v.add('maxLinks must not be less than 1');
    else maxLinks = body.maxLinks as number;
  }
  v.throwIfAny();
  const seed = new URL(url!);
  const base = seed.pathname.replace(/\/[^/]*$/, '');
  const links = CRAWL_PAGES.map((page) => `${seed.origin}${base}/${page}`)
    .filter((link) => link !== `${seed.origin}${seed.pathname}`)
    .slice(0, maxLinks);
  return { body: { url: url!, links } };
}

function stringArray(v: Violations, name: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    v.add(`${name} must be an array`);
    return [];
  }
  if (value.some((item) => typeof item !== 'string' || item.trim() === '')) v.add(`each value in ${name} must be a non-empty string`);
  return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
}

export function ingest(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const body = objectBody(req.body);
  const v = new Violations();
  const source = (body.source ?? 'web') as string;
  if (typeof source !== 'string' || !(SOURCE_KINDS as readonly string[]).includes(source)) {
    v.add(`source must be one of the following values: ${SOURCE_KINDS.join(', ')}`);
  }
  const toAdd = stringArray(v, 'documentIdsToAdd', body.documentIdsToAdd);
  const toRefresh = stringArray(v, 'documentIdsToRefresh', body.documentIdsToRefresh);
  const english = optionalBoolean(v, 'english', body.english) ?? true;
  const baser = optionalBoolean(v, 'baser', body.baser) ?? false;
  v.throwIfAny();

  const kind = source as SourceKind;
  const lists: [string, string[]][] = [
    ['documentIdsToAdd', toAdd],
    ['documentIdsToRefresh', toRefresh],
  ];
  if (kind === 'web') {
    for (const [name, items] of lists) {
      const ids = items.filter((item) => !isHttpUrl(item) && (isUuid(item) || [...state.workspaces.values()].some((w) => w.sources.has(item))));
      if (ids.length) v.add(`${name} must contain URLs when source is web; source IDs are not allowed with source=web (got ${ids.join(', ')})`);
      else if (items.some((item) => !isHttpUrl(item))) v.add(`each value in ${name} must be a URL address when source is web`);
    }
    v.throwIfAny();
  } else if (!ws.connectedProviders.has(kind)) {
    throw badRequest([`source ${kind} is not connected in this workspace`]);
  }

  const records: SourceRecord[] = [];
  const resolved: Record<string, string[]> = { documentIdsToAdd: [], documentIdsToRefresh: [] };
  const at = iso(req.now);
  for (const [name, items] of lists) {
    for (const item of items) {
      let record: SourceRecord | undefined;
      if (kind === 'web') {
        record = [...ws.sources.values()].find((s) => s.source === 'web' && s.url === item);
        record ??= addSource(ws, at, { source: 'web', url: item, title: titleFromUrl(item), externalId: null, mimeType: null, object: null, storageUrl: null });
      } else {
        record = findInWorkspace(state, ws, 'sources', item);
        if (!record || record.source !== kind) {
          throw badRequest([`${name} contains ${item}, which is not a ${kind} source of this workspace`]);
        }
      }
      if (!records.includes(record)) records.push(record);
      resolved[name].push(record.id);
    }
  }

  const jobs: IngestionJob[] = records.map((record) => {
    const result = ingestionOutcome(kind, record.url, record.externalId, record.title);
    const job: IngestionJob = {
      id: newJobId(),
      documentId: record.id,
      status: 'PENDING',
      companyId: ws.id,
      queuedAt: req.now,
      outcome: result.outcome,
      failureError: result.error,
      resultParagraphs: result.paragraphs,
      english,
      baser,
    };
    ws.jobs.set(job.id, job);
    record.linkedJobId = job.id;
    record.linkedJobStatus = 'PENDING';
    record.updatedAt = at;
    return job;
  });
  return {
    body: {
      jobs: jobs.map((job) => ({ id: job.id, documentId: job.documentId, status: job.status })),
      documents: records.map(sourceView),
      addedDocumentIds: resolved.documentIdsToAdd,
      refreshedDocumentIds: resolved.documentIdsToRefresh,
    },
  };
}

export function getSource(req: RouteRequest) {
  const { workspace: ws, state } = req;
  const id = req.params.id;
  const record = requireInWorkspace(state, ws, 'sources', id, `Source ${id} not found`);
  return { body: sourceView(refreshSource(state, ws, record)) };
}
