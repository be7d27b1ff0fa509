import type { PreviewContext } from '../../src/engine/define.js';
import { differs, lineDiff, listChanges, listOf, passageDiff, renderPassages, textOf } from './diff.js';
import { ARTICLE_LIST_FIELDS, ARTICLE_TEXT_FIELDS } from '../../src/views/results.js';
import { compareArticle } from './article-review.js';
import { agentNames, agentsChange, agentsOfFolder, entryWithLines, lookup, named, readAgents, readArticles, readFolders, unreadable, type Item, type Lookup } from './effects.js';

/** Changed lines a preview shows per text field; the rest is counted in a warning, since the user can read the article whole. */
const MAX_LINES_PER_FIELD = 24;

const FLAG_FIELDS = ['active', 'public', 'escalation'] as const;
/** The article fields a write may set; everything else in the input is an id or an engine option. */
const CONTENT_FIELDS = ['title', ...ARTICLE_TEXT_FIELDS, ...ARTICLE_LIST_FIELDS, ...FLAG_FIELDS, 'misc', 'parentFolderId'] as const;

/** The article as it will be after a write that sets the content fields given in `input`. */
function withChanges(article: Item, input: Item): Item {
  const changes = Object.fromEntries(CONTENT_FIELDS.filter((field) => input[field] !== undefined).map((field) => [field, input[field]]));
  return { ...article, ...changes };
}

/**
 * Field-level changes from one article state to another, one entry per field: title and flags as
 * old -> new, bodies as the sentences that change, questions and keywords as added and removed
 * items. Lines for one envelope: every third-party value goes through `text`, which keeps it on its line.
 */
function articleChanges(text: (value: unknown) => string, before: Item, after: Item, cut: (field: string, left: number) => void, folders?: Lookup): string[] {
  const changes: string[] = [];
  // A new article (no before) is listed whole: values rather than changes.
  const change = (field: string, show: (value: unknown) => string) => (before[field] === undefined ? `${field}: ${show(after[field])}` : `${field}: ${show(before[field])} -> ${show(after[field])}`);
  if (differs(before.title, after.title)) changes.push(change('title', text));
  for (const field of FLAG_FIELDS) {
    if (after[field] !== undefined && differs(before[field], after[field])) changes.push(change(field, String));
  }
  if (after.parentFolderId !== undefined && differs(before.parentFolderId, after.parentFolderId)) {
    const folder = (id: unknown) => {
      const name = folders?.byId.get(String(id))?.name;
      return name === undefined ? String(id) : `${text(name)} (${String(id)})`;
    };
    changes.push(`folder: ${folder(before.parentFolderId)} -> ${folder(after.parentFolderId)}`);
  }
  for (const field of ARTICLE_TEXT_FIELDS) {
    const lines = bodyDiff(text, textOf(before[field]), textOf(after[field]));
    if (lines.length > MAX_LINES_PER_FIELD) cut(field, lines.length - MAX_LINES_PER_FIELD);
    if (lines.length) changes.push(`${field}:`, ...lines.slice(0, MAX_LINES_PER_FIELD));
  }
  for (const field of ARTICLE_LIST_FIELDS) {
    const { added, removed } = listChanges(listOf(before[field]), listOf(after[field]));
    if (added.length) changes.push(`${field}${before[field] === undefined ? '' : ' added'}: ${text(added.join(' | '))}`);
    if (removed.length) changes.push(`${field} removed: ${text(removed.join(' | '))}`);
  }
  // A publish writes the draft's origin and misc too (the spec's article record).
  for (const field of ['origin', 'misc'] as const) {
    if (after[field] !== undefined && differs(before[field], after[field])) changes.push(change(field, (value) => text(typeof value === 'string' ? value : JSON.stringify(value ?? null))));
  }
  return changes;
}

/**
 * What changes in a body, readable on its own: for a changed text, the sentences that change,
 * whole, with the unchanged sentence on either side; a new text, line by line.
 */
function bodyDiff(text: (value: unknown) => string, before: string, after: string): string[] {
  if (before === after) return [];
  const passages = before === '' ? [] : passageDiff(before, after);
  // A new text is shown as its lines, with no marks against nothing.
  return passages.length
    ? renderPassages(passages, text, '  ')
    : lineDiff(before, after).flatMap((hunk) => hunk.lines.filter((line) => line.mark !== ' ').map((line) => `  ${before === '' ? '' : `${line.mark} `}${text(line.text)}`));
}

/** The changes as one preview entry: a heading, then the lines of every field in one envelope; `none` when nothing changes. */
function changesEntry(context: PreviewContext, heading: string, none: string, before: Item, after: Item, folders?: Lookup): string[] {
  // A preview that shows part of a change says so first: the user approves what they read.
  const cut = (field: string, left: number) =>
    context.warn(`This preview shows the first ${MAX_LINES_PER_FIELD} changed lines of ${field}; ${left} more are not shown here (compare_article_draft or get_articles shows them all).`);
  const lines = context.quote.block((text) => articleChanges(text, before, after, cut, folders));
  return lines.length ? [entryWithLines(heading, lines)] : [none];
}

/** `"Title" (id, version n)`. */
function describeArticle(context: PreviewContext, article: Item): string {
  return `${context.quote(article.title)} (${String(article.id)}, version ${String(article.version ?? '?')})`;
}

type ArticleInput = Item & { articleId: string };

/** Reads one article; the failure or absence comes back as the preview's lines. */
async function readOne(context: PreviewContext, articleId: string): Promise<{ article: Item } | { lines: string[] }> {
  const read = await readArticles(context, [articleId]);
  if (read.failed) return { lines: [read.failed] };
  const article = read.byId.get(articleId);
  if (!article) return { lines: [`No article ${articleId} exists in this workspace: the API will answer 404 and nothing will change.`] };
  return { article };
}

export async function previewPublish(input: ArticleInput, context: PreviewContext): Promise<string[]> {
  const found = await readOne(context, input.articleId);
  if ('lines' in found) return found.lines;
  const draft = found.article;
  if (draft.isDraft !== true) return [`${describeArticle(context, draft)} is a live article, not a draft: the API will answer 404 and nothing will change.`];
  const lines = draft.isDraftPublished ? ['This draft was already published once: publishing again writes it to the same live article once more (version + 1).'] : [];
  const published = withChanges(draft, input);
  const originalId = typeof draft.originalArticleId === 'string' ? draft.originalArticleId : undefined;
  const originals = originalId ? await readArticles(context, [originalId]) : undefined;
  if (originals?.failed) return [...lines, `Publishes onto live article ${originalId}, but ${originals.failed.replace(/^C/, 'c')}`];
  const live = originalId ? originals?.byId.get(originalId) : undefined;
  if (!live) {
    const why = originalId ? `the live article it came from (${originalId}) no longer exists, so ` : '';
    return [
      ...lines,
      `Creates a new live article: ${why}draft ${context.quote(published.title)} (${input.articleId}) becomes a live article at version 1 in folder ${String(draft.parentFolderId)}.`,
      ...changesEntry(context, 'Its content:', 'It has no content fields.', {}, { ...published, title: undefined, parentFolderId: undefined }),
    ];
  }
  const version = typeof live.version === 'number' ? live.version : undefined;
  lines.push(`Overwrites live article ${describeArticle(context, live)}: version ${version ?? '?'} -> ${version === undefined ? '?' : version + 1}.`);
  if (compareArticle(published, live).verdict === 'stale') {
    context.warn(
      `STALE draft: it was made from version ${String(draft.originalArticleVersion)}, but the live article is now at version ${version ?? '?'}: publishing overwrites the changes made since then (compare_article_draft shows them).`,
    );
  }
  // Publishing replaces the content; the live article keeps its folder.
  lines.push(
    ...changesEntry(context, 'What it writes:', 'No content changes: the live article keeps its content and only its version goes up.', live, { ...published, parentFolderId: live.parentFolderId }),
  );
  return lines;
}

export async function previewUpdate(input: ArticleInput, context: PreviewContext): Promise<string[]> {
  const found = await readOne(context, input.articleId);
  if ('lines' in found) return found.lines;
  const { article } = found;
  const folders = input.parentFolderId !== undefined ? await readFolders(context) : undefined;
  const version = typeof article.version === 'number' ? article.version : undefined;
  const kind = article.isDraft ? 'draft' : 'live article';
  if (!article.isDraft)
    context.warn('It changes the live article at once: agents answer from the new content right away, with no review (create_article_draft, then publish_article_draft, lets someone check it first).');
  return [
    `Changes ${kind} ${describeArticle(context, article)} at once: version ${version ?? '?'} -> ${version === undefined ? '?' : version + 1}.`,
    ...changesEntry(context, 'What it writes:', 'No field changes: the values given equal the current ones (the version still goes up).', article, withChanges(article, input), folders),
    ...(folders ? unreadable(folders) : []),
  ];
}

export async function previewCreateDraft(input: ArticleInput, context: PreviewContext): Promise<string[]> {
  const found = await readOne(context, input.articleId);
  if ('lines' in found) return found.lines;
  const { article } = found;
  if (article.isDraft) return [`${describeArticle(context, article)} is itself a draft: the API refuses drafts of drafts (400).`];
  return [
    `Creates a draft of live article ${describeArticle(context, article)}; the live article stays as it is until publish_article_draft.`,
    ...changesEntry(context, 'The draft differs from it in:', 'The draft starts as an exact copy of the live article.', article, withChanges(article, input)),
  ];
}

export async function previewMoveArticle(input: ArticleInput, context: PreviewContext): Promise<string[]> {
  const [found, folders, agents] = await Promise.all([readOne(context, input.articleId), readFolders(context), readAgents(context)]);
  if ('lines' in found) return found.lines;
  const { article } = found;
  const target = input.parentFolderId;
  if (typeof target !== 'string') return [`No parentFolderId given: the API needs the target folder (400). ${describeArticle(context, article)} stays where it is.`];
  const lines = [`Moves article ${describeArticle(context, article)} from folder ${named(context, folders, article.parentFolderId)} to folder ${named(context, folders, target)}.`];
  if (!folders.failed && !folders.byId.has(target)) lines.push(`Folder ${target} does not exist in this workspace: the API will refuse the move (400).`);
  else if (!folders.failed && !article.isDraft) {
    lines.push(`Agents answering from it: ${agentsChange(context, agents, agentsOfFolder(folders, article.parentFolderId), agentsOfFolder(folders, target))}.`);
  }
  return [...lines, ...unreadable(folders, agents)];
}

export async function previewDeleteArticle(input: ArticleInput, context: PreviewContext): Promise<string[]> {
  const found = await readOne(context, input.articleId);
  if ('lines' in found) return found.lines;
  const { article } = found;
  const [folders, agents, drafts] = await Promise.all([readFolders(context), readAgents(context), article.isDraft ? undefined : lookup(context, 'list_articles', { type: 'draft' }, 'the drafts')]);
  const lines = [
    `Deletes ${article.isDraft ? 'draft' : 'live article'} ${describeArticle(context, article)} in folder ${named(context, folders, article.parentFolderId)}. This is permanent: no route restores it.`,
  ];
  if (article.isDraft) {
    lines.push(
      typeof article.originalArticleId === 'string' ? `The live article it was made from (${article.originalArticleId}) is not changed.` : 'It has no live original: its content exists nowhere else.',
    );
  } else {
    if (!folders.failed && article.active !== false) {
      lines.push(`Agents that stop answering from it: ${agentNames(context, agents, agentsOfFolder(folders, article.parentFolderId))}.`);
    }
    const children = drafts ? [...drafts.byId.values()].filter((draft) => draft.originalArticleId === article.id) : [];
    if (drafts && !drafts.failed) {
      lines.push(
        children.length
          ? `Drafts made from it stay: ${children.map((draft) => `${context.quote(draft.title)} (${String(draft.id)})`).join(', ')}; publishing one later creates a new live article.`
          : 'No draft was made from it.',
      );
    }
  }
  return [...lines, ...unreadable(folders, agents, ...(drafts ? [drafts] : []))];
}
