import type { ToolContext } from '../src/engine/define.js';
import { isRecord } from '../src/engine/output.js';
import { differs, listChanges, listOf, renderHunks, textDiff, textOf, unifiedText, type Quote } from './diff.js';
import { ARTICLE_COMPARED_FIELDS, ARTICLE_LIST_FIELDS, ARTICLE_TEXT_FIELDS, type ArticleComparison, type FieldChange } from './results.js';

type Article = Record<string, unknown>;



/** Field-level comparison; `live` undefined means the draft is shown whole, as a new article. */
export function compareArticle(draft: Article, live: Article | undefined): ArticleComparison {
  const base: Article = live ?? {};
  const warnings: string[] = [];
  const originalId = typeof draft.originalArticleId === 'string' ? draft.originalArticleId : null;
  if (originalId && !live) warnings.push(`The live article ${originalId} this draft was made from no longer exists: publishing creates a new live article.`);
  const liveVersion = typeof live?.version === 'number' ? live.version : null;
  const draftVersion = typeof draft.originalArticleVersion === 'number' ? draft.originalArticleVersion : null;
  const stale = liveVersion !== null && draftVersion !== null && liveVersion > draftVersion;
  if (stale) {
    warnings.push(`Stale draft: it was made from version ${draftVersion}, the live article is now at version ${liveVersion}. Publishing overwrites the later change(s); compare them first.`);
  }
  if (draft.isDraftPublished === true) warnings.push('This draft was already published once; publishing again writes it to the same live article once more (version + 1).');

  const fields = ARTICLE_COMPARED_FIELDS.filter((field) => (field !== 'parentFolderId' || !live) && differs(base[field], draft[field])).map(
    (field): FieldChange => ({ field, ...(live ? { before: base[field] } : {}), after: draft[field] }),
  );
  const text = ARTICLE_TEXT_FIELDS.filter((field) => textOf(base[field]) !== textOf(draft[field])).map((field) => ({ field, ...textDiff(textOf(base[field]), textOf(draft[field])) }));
  const lists = ARTICLE_LIST_FIELDS.map((field) => ({ field, ...listChanges(listOf(base[field]), listOf(draft[field])) })).filter((list) => list.added.length || list.removed.length);
  const changed = fields.length + text.length + lists.length > 0;
  return {
    draftArticleId: String(draft.id),
    title: draft.title,
    outcome: live ? (changed ? 'changes' : 'identical') : 'new',
    liveArticleId: live ? String(live.id) : null,
    liveVersion,
    originalArticleVersion: draftVersion,
    stale,
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
 * The comparison in few tokens for results rendered as an outline: unified diff text instead of
 * numbered hunks, and no warnings (the caller lists them once, at the top of its result).
 */
export function briefComparison(comparison: ArticleComparison): Record<string, unknown> {
  return {
    outcome: comparison.outcome,
    liveArticleId: comparison.liveArticleId ?? undefined,
    stale: comparison.stale,
    fields: comparison.fields.length ? comparison.fields : undefined,
    diff: comparison.text.length ? comparison.text.map((entry) => `${entry.field}:\n${unifiedText(entry.hunks)}`).join('\n') : undefined,
    wordChanges: comparison.text.some((entry) => entry.words.length) ? comparison.text.flatMap((entry) => entry.words) : undefined,
    lists: comparison.lists.length ? comparison.lists : undefined,
  };
}

/** Text rendering of compare_article_draft: verdict and warnings first, then each changed field. */
export function renderArticleComparison(data: unknown, quote: Quote): string {
  const comparison = data as ArticleComparison;
  const lines: string[] = [];
  const head =
    comparison.outcome === 'new'
      ? `Draft ${comparison.draftArticleId} ${quote(comparison.title)} is a NEW article: publishing creates a live article with the content below.`
      : comparison.outcome === 'identical'
        ? `Draft ${comparison.draftArticleId} ${quote(comparison.title)} matches live article ${comparison.liveArticleId} (version ${comparison.liveVersion}): publishing changes nothing.`
        : `Draft ${comparison.draftArticleId} ${quote(comparison.title)} against live article ${comparison.liveArticleId} (live version ${comparison.liveVersion}, draft made from version ${comparison.originalArticleVersion}).`;
  lines.push(head);
  for (const warning of comparison.warnings) lines.push(`WARNING: ${warning}`);
  for (const field of comparison.fields) {
    // Flags and ids are the API's own values; titles and folder names are third-party text.
    const name = (value: unknown, label?: string) => (label ? `${quote(label)} (${String(value)})` : typeof value === 'string' && field.field === 'title' ? quote(value) : String(value));
    lines.push(comparison.outcome === 'new' ? `${field.field}: ${name(field.after, field.afterName)}` : `${field.field}: ${name(field.before)} -> ${name(field.after)}`);
  }
  for (const list of comparison.lists) {
    if (list.added.length) lines.push(`${list.field} added: ${quote(list.added.join(' | '))}`);
    if (list.removed.length) lines.push(`${list.field} removed: ${quote(list.removed.join(' | '))}`);
  }
  for (const entry of comparison.text) {
    lines.push(`${entry.field}:`);
    for (const change of entry.words) lines.push(`  changed: ${quote(change.before)} -> ${quote(change.after)}`);
    lines.push(...renderHunks(entry.hunks, quote));
  }
  return lines.join('\n');
}
