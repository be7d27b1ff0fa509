import type { ToolContext } from '../../src/engine/define.js';
import { isRecord } from '../../src/json.js';
import { differs, listChanges, listOf, renderHunks, renderPassages, textDiff, textOf, type Quote } from './diff.js';
import { ARTICLE_COMPARED_FIELDS, ARTICLE_LIST_FIELDS, ARTICLE_TEXT_FIELDS, VERDICTS, type ArticleComparison, type DraftReview, type FieldChange, type Verdict } from '../../src/views/results.js';

type Article = Record<string, unknown>;

const numberOr = (value: unknown) => (typeof value === 'number' ? value : null);

/**
 * Whether the draft's own publishes account for every version the live article moved past the one
 * the draft was made from. The spec keeps no count of publishes, but it names who wrote each
 * article and when: a published draft whose own author last wrote it, and whose live article was
 * last written by that author no later than that, left the live article as its own last publish
 * did. A draft published twice, then edited by its author, is then not stale.
 */
function onlyOwnPublishes(draft: Article, live: Article): boolean {
  const author = draft.createdBy;
  const liveWritten = Date.parse(String(live.updatedAt));
  const draftWritten = Date.parse(String(draft.updatedAt));
  return draft.isDraftPublished === true && typeof author === 'string' && draft.updatedBy === author && live.updatedBy === author && liveWritten <= draftWritten;
}

/**
 * How many versions the live article moved past the one the draft was made from for reasons
 * other than this draft. A publish raises the live article's version by one, and the spec's
 * `isDraftPublished` says whether this draft was published: that one step is its own, not a later
 * change that publishing would undo; so are all of them when `onlyOwnPublishes` says so. Short of
 * that, a draft published more than once counts one step and reads as stale: the cautious side.
 */
function foreignVersions(draft: Article, live: Article): number {
  const liveVersion = numberOr(live.version);
  const madeFrom = numberOr(draft.originalArticleVersion);
  if (liveVersion === null || madeFrom === null || onlyOwnPublishes(draft, live)) return 0;
  return Math.max(0, liveVersion - madeFrom - (draft.isDraftPublished === true ? 1 : 0));
}

/**
 * Field-level comparison of every field a publish writes; `live` undefined means the draft is
 * shown whole, as a new article. A draft identical to its live article is `identical` even when
 * the live article moved on: publishing then overwrites nothing.
 */
export function compareArticle(draft: Article, live: Article | undefined): ArticleComparison {
  const base: Article = live ?? {};
  const warnings: string[] = [];
  const originalId = typeof draft.originalArticleId === 'string' ? draft.originalArticleId : null;
  if (originalId && !live) warnings.push(`The live article ${originalId} this draft was made from no longer exists: publishing creates a new live article.`);
  const liveVersion = numberOr(live?.version);
  const draftVersion = numberOr(draft.originalArticleVersion);

  // A new article is listed whole, but an empty misc says nothing.
  const shown = (field: (typeof ARTICLE_COMPARED_FIELDS)[number]) => (live ? field !== 'parentFolderId' : !(isRecord(draft[field]) && Object.keys(draft[field]).length === 0));
  const fields = ARTICLE_COMPARED_FIELDS.filter((field) => shown(field) && differs(base[field], draft[field])).map(
    (field): FieldChange => ({ field, ...(live ? { before: base[field] } : {}), after: draft[field] }),
  );
  const text = ARTICLE_TEXT_FIELDS.filter((field) => textOf(base[field]) !== textOf(draft[field])).map((field) => ({ field, ...textDiff(textOf(base[field]), textOf(draft[field])) }));
  const lists = ARTICLE_LIST_FIELDS.map((field) => ({ field, ...listChanges(listOf(base[field]), listOf(draft[field])) })).filter((list) => list.added.length || list.removed.length);
  const changed = fields.length + text.length + lists.length > 0;
  const stale = live !== undefined && changed && foreignVersions(draft, live) > 0;
  if (stale) {
    warnings.push(
      `Stale draft: it was made from version ${draftVersion}, and the live article, now at version ${liveVersion}, was changed since${draft.isDraftPublished === true ? " (besides this draft's own publish)" : ''}. Publishing overwrites the later change(s); compare them first.`,
    );
  }
  if (draft.isDraftPublished === true) warnings.push('This draft was already published once; publishing again writes it to the same live article once more (version + 1).');
  return {
    draftArticleId: String(draft.id),
    title: draft.title,
    verdict: !live ? 'new' : !changed ? 'identical' : stale ? 'stale' : 'changes',
    liveArticleId: live ? String(live.id) : null,
    liveVersion,
    originalArticleVersion: draftVersion,
    isDraftPublished: draft.isDraftPublished === true,
    draftCreatedAt: draft.createdAt,
    warnings,
    fields,
    text,
    lists,
  };
}

function articlesIn(response: unknown): Article[] {
  const items = Array.isArray(response) ? response : isRecord(response) && Array.isArray(response.articles) ? response.articles : [];
  return items.filter(isRecord);
}

/**
 * Reads drafts and the live articles they came from in two requests whatever their number
 * (get_articles takes many ids). Drafts that do not exist are left out of the map.
 */
export async function loadDraftPairs(context: ToolContext, draftIds: string[]): Promise<Map<string, { draft: Article; live?: Article }>> {
  const pairs = new Map<string, { draft: Article; live?: Article }>();
  if (draftIds.length === 0) return pairs;
  const drafts = articlesIn(await context.call('get_articles', { articleIds: [...new Set(draftIds)] }));
  const originalIds = [...new Set(drafts.map((draft) => draft.originalArticleId).filter((id): id is string => typeof id === 'string' && id !== ''))];
  const lives = originalIds.length ? articlesIn(await context.call('get_articles', { articleIds: originalIds })) : [];
  const liveById = new Map(lives.map((live) => [String(live.id), live]));
  for (const draft of drafts) pairs.set(String(draft.id), { draft, live: liveById.get(String(draft.originalArticleId)) });
  return pairs;
}

/**
 * The comparison in few tokens for results rendered as an outline: each text change as the
 * sentences it replaces and the ones it writes, and no warnings (the caller lists them once, at
 * the top of its result).
 */
export function briefComparison(comparison: ArticleComparison): Record<string, unknown> {
  const diff = comparison.text.flatMap((entry) =>
    entry.passages.map((passage) => ({ field: entry.field, before: passage.removed.join(' ') || undefined, after: passage.added.join(' ') || undefined })),
  );
  return {
    verdict: comparison.verdict,
    liveArticleId: comparison.liveArticleId ?? undefined,
    fields: comparison.fields.length ? comparison.fields : undefined,
    diff: diff.length ? diff : undefined,
    lists: comparison.lists.length ? comparison.lists : undefined,
  };
}

/** One draft: verdict and warnings first, then its title and each changed field, in one envelope. */
function renderOne(comparison: ArticleComparison, quote: Quote): string[] {
  const draft = `Draft ${comparison.draftArticleId}`;
  const live = `live article ${comparison.liveArticleId} (version ${comparison.liveVersion})`;
  const head: Record<Verdict, string> = {
    new: `${draft} is NEW: publishing creates a live article with the content below.`,
    identical: `${draft} is IDENTICAL to ${live} in every field a publish writes: publishing changes nothing.`,
    changes: `${draft} CHANGES ${live}, made from version ${comparison.originalArticleVersion}; publishing writes:`,
    stale: `${draft} is STALE against ${live}, made from version ${comparison.originalArticleVersion}; publishing writes:`,
  };
  const body = quote.block((text) => {
    const lines = comparison.fields.some((field) => field.field === 'title') ? [] : [`title: ${text(comparison.title)}`];
    for (const field of comparison.fields) {
      // Flags are the API's own values; ids stay bare beside the folder's name; any other text was written by someone.
      const show = (value: unknown, name?: string) =>
        name
          ? `${text(name)} (${String(value)})`
          : typeof value === 'boolean' || field.field === 'parentFolderId'
            ? String(value)
            : text(typeof value === 'string' ? value : JSON.stringify(value ?? null));
      lines.push(comparison.verdict === 'new' ? `${field.field}: ${show(field.after, field.afterName)}` : `${field.field}: ${show(field.before)} -> ${show(field.after)}`);
    }
    for (const list of comparison.lists) {
      if (list.added.length) lines.push(`${list.field} added: ${text(list.added.join(' | '))}`);
      if (list.removed.length) lines.push(`${list.field} removed: ${text(list.removed.join(' | '))}`);
    }
    for (const entry of comparison.text) {
      lines.push(`${entry.field}:`);
      // A new text reads best as its lines, with no diff header against nothing; a changed one as the sentences that change.
      if (comparison.verdict === 'new') lines.push(...entry.hunks.flatMap((hunk) => hunk.lines.map((line) => `  ${text(line.text)}`)));
      else lines.push(...(entry.passages.length === 0 ? renderHunks(entry.hunks, text) : renderPassages(entry.passages, text)));
    }
    return lines;
  });
  return [head[comparison.verdict], ...comparison.warnings.map((warning) => `WARNING: ${warning}`), ...body];
}

/** How many drafts got a verdict, as a phrase: `1 new`, `2 with changes`. */
const verdictCount = (verdict: Verdict, count: number) => `${count} ${verdict === 'changes' ? 'with changes' : verdict}`;

/** Text rendering of compare_article_draft: the verdicts counted when there are several, then each draft. */
export function renderDraftReview(data: unknown, quote: Quote): string {
  const review = data as DraftReview;
  const lines: string[] = [];
  if (review.drafts.length > 1) {
    const counts = VERDICTS.filter((verdict) => review.verdicts[verdict]).map((verdict) => verdictCount(verdict, review.verdicts[verdict]!));
    lines.push(`${review.drafts.length} drafts: ${counts.join(', ')}.`);
  }
  if (review.notFound?.length) lines.push(`No article with id ${review.notFound.join(', ')} in this workspace (list_articles type "draft" lists drafts).`);
  if (review.notDrafts?.length) lines.push(`Live articles, not drafts: ${review.notDrafts.join(', ')}.`);
  for (const comparison of review.drafts) lines.push(...(lines.length ? [''] : []), ...renderOne(comparison, quote));
  return lines.join('\n');
}
