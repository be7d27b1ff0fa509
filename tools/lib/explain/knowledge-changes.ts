import type { ToolContext } from '../../../src/engine/define.js';
import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import type { Passage } from '../../../src/views/results.js';
import { passageDiff } from '../diff.js';
import { timeOf } from '../mirror/ingest.js';
import { records } from '../records.js';

/** One change to the knowledge in a span of time: an article or draft edited or published, an action or attribute updated. */
export interface KnowledgeChange {
  kind: 'article' | 'draft' | 'draft published' | 'action' | 'attribute';
  id: string;
  title: string;
  version?: number | null;
  updatedAt: string;
  updatedBy?: string | null;
  /** The sentences changed since the version before it, where the mirror holds that version. */
  passages?: Passage[];
  /** What the comparison was made against, or why there is none. */
  against?: string;
}

/** Changes shown at most; the rest are counted. */
const MAX_CHANGES = 8;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What changed in the knowledge between `since` and `until`, from the mirror: each article or draft
 * updated (with the sentences its update changed, against the last earlier version the mirror saw),
 * drafts published, actions and attributes updated. Newest first.
 */
export async function changesInMirror(mirror: WorkspaceMirror, since: number, until: number): Promise<{ changes: KnowledgeChange[]; more: number }> {
  const span = [since, until];
  const articles = await mirror.rows(
    `SELECT id, "isDraft", "isDraftPublished", title, "mainKnowledge", version, CAST(epoch_ms("updatedAt") AS DOUBLE) AS at, "updatedBy"
     FROM articles WHERE "updatedAt" BETWEEN epoch_ms(CAST($1 AS BIGINT)) AND epoch_ms(CAST($2 AS BIGINT)) ORDER BY "updatedAt" DESC`,
    span,
  );
  const actions = await mirror.rows(
    `SELECT id, name, "alwaysGet", CAST(epoch_ms("updatedAt") AS DOUBLE) AS at FROM actions WHERE "updatedAt" BETWEEN epoch_ms(CAST($1 AS BIGINT)) AND epoch_ms(CAST($2 AS BIGINT)) ORDER BY "updatedAt" DESC`,
    span,
  );
  const changes: KnowledgeChange[] = [];
  for (const article of articles) {
    const kind = article.isDraft ? (article.isDraftPublished ? 'draft published' : 'draft') : 'article';
    const change: KnowledgeChange = {
      kind,
      id: String(article.id),
      title: String(article.title ?? ''),
      version: article.version as number | null,
      updatedAt: iso(Number(article.at)),
      updatedBy: article.updatedBy as string | null,
    };
    if (kind === 'article') await compareWithEarlier(mirror, change, String(article.mainKnowledge ?? ''), Number(article.at));
    changes.push(change);
  }
  for (const action of actions) changes.push({ kind: action.alwaysGet ? 'attribute' : 'action', id: String(action.id), title: String(action.name ?? ''), updatedAt: iso(Number(action.at)) });
  changes.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { changes: changes.slice(0, MAX_CHANGES), more: Math.max(0, changes.length - MAX_CHANGES) };
}

/** The sentences an article's last update changed, against the latest earlier version the mirror saw. */
async function compareWithEarlier(mirror: WorkspaceMirror, change: KnowledgeChange, body: string, updatedAt: number): Promise<void> {
  const [earlier] = await mirror.rows(
    `SELECT version, "mainKnowledge", CAST(epoch_ms("seenAt") AS DOUBLE) AS seen FROM article_versions
     WHERE id = $1 AND "updatedAt" < epoch_ms(CAST($2 AS BIGINT)) ORDER BY "updatedAt" DESC LIMIT 1`,
    [change.id, updatedAt],
  );
  if (!earlier) {
    const [first] = await mirror.rows('SELECT CAST(epoch_ms(min("seenAt")) AS DOUBLE) AS seen FROM article_versions WHERE id = $1', [change.id]);
    change.against = first?.seen ? `no earlier version: the mirror first read this article ${iso(Number(first.seen))}` : 'no earlier version held';
    return;
  }
  change.against = `version ${earlier.version ?? '?'}`;
  change.passages = passageDiff(String(earlier.mainKnowledge ?? ''), body);
}

/** Without the mirror: the same changes from the list routes (three requests), with no earlier text to compare. */
export async function changesFromApi(context: ToolContext, since: number, until: number): Promise<{ changes: KnowledgeChange[]; more: number }> {
  const within = (record: Record<string, unknown>) => {
    const at = timeOf(record.updatedAt);
    return at !== null && at >= since && at <= until;
  };
  const live = records(await context.call('list_articles', { type: 'live' })).filter(within);
  const drafts = records(await context.call('list_articles', { type: 'draft' })).filter(within);
  const actions = records(await context.call('list_actions', {})).filter(within);
  const article = (record: Record<string, unknown>, kind: KnowledgeChange['kind']): KnowledgeChange => ({
    kind,
    id: String(record.id),
    title: String(record.title ?? ''),
    version: typeof record.version === 'number' ? record.version : null,
    updatedAt: iso(timeOf(record.updatedAt)!),
    updatedBy: typeof record.updatedBy === 'string' ? record.updatedBy : null,
    against: 'earlier versions are kept by the workspace mirror only (SVC_MIRROR=off)',
  });
  const changes = [
    ...live.map((record) => article(record, 'article')),
    ...drafts.map((record) => article(record, record.isDraftPublished ? 'draft published' : 'draft')),
    ...actions.map(
      (record): KnowledgeChange => ({ kind: record.alwaysGet ? 'attribute' : 'action', id: String(record.id), title: String(record.name ?? ''), updatedAt: iso(timeOf(record.updatedAt)!) }),
    ),
  ].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { changes: changes.slice(0, MAX_CHANGES), more: Math.max(0, changes.length - MAX_CHANGES) };
}
