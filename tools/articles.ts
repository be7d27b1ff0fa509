import { z } from 'zod';
import { defineGroup, defineTool, type ToolContext } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { isRecord } from '../src/json.js';
import { previewCreateDraft, previewDeleteArticle, previewMoveArticle, previewPublish, previewUpdate } from './lib/article-effects.js';
import { compareArticle, loadDraftPairs, renderDraftReview } from './lib/article-review.js';
import type { DraftReview } from '../src/views/results.js';
import { defined, fieldOf, records } from './lib/records.js';
import { PASS_THROUGH } from './lib/inputs.js';
import { shape } from './lib/shapes.js';
import { articleAnswered, articleDeleted, draftPublished } from './lib/mirror/writes.js';

/** Article record (spec, Resources): what both views keep; the full view adds the body fields. */
const articleRecord = shape({ id: z.string(), title: z.string() }, { version: z.number().nullable(), isDraft: z.boolean(), originalArticleId: z.string().nullable() });

const articleList = shape({ articles: z.array(articleRecord) });

const content = {
  title: z.string().optional(),
  mainKnowledge: z.string().optional().describe('Body'),
  agentInstruction: z.string().optional(),
  questions: z.array(z.string()).optional(),
  keywords: z.array(z.string()).optional(),
  escalation: z.boolean().optional(),
  misc: z.record(z.unknown()).optional(),
  active: z.boolean().optional(),
  public: z.boolean().optional().describe('Shown in the help center'),
};

const NOT_FOUND = 'no article with this id in this workspace (list_articles lists live and draft ids)';

const listArticles = defineTool({
  name: 'list_articles',
  title: 'List articles',
  words: 'published live drafts pending all exist kb waiting browse overview available current entry page faq doc help',
  gives: ['articleId', 'articleIds', 'draftArticleId', 'draftArticleIds'],
  scope: 'read',
  core: true,
  description: 'Lists knowledge-base articles, live (default) or drafts, with ids, versions and folders. Text: get_articles.',
  input: z
    .object({ type: z.enum(['live', 'draft']).optional(), pending: z.boolean().optional().describe('Drafts not yet published') })
    .refine((input) => !input.pending || input.type !== 'live', { message: 'lists drafts: use it with type "draft"', path: ['pending'] })
    // pending alone means drafts: the API has no such filter, so the tool asks for drafts and keeps the unpublished ones.
    .transform((input) => (input.pending ? { ...input, type: 'draft' as const } : input)),
  route: { method: 'GET', path: '/v2/hc-articles/public', query: ['type'], payloadNotShown: ['type'] },
  transform: (articles, input) => (input.pending && Array.isArray(articles) ? articles.filter((article) => !(isRecord(article) && article.isDraftPublished === true)) : articles),
  output: articleList,
  list: {
    items: 'articles',
    compact: (item) =>
      defined({
        id: item.id,
        title: item.title,
        version: item.version,
        parentFolderId: item.parentFolderId,
        active: item.active,
        public: item.public,
        isDraft: item.isDraft || undefined,
        originalArticleId: item.originalArticleId,
        originalArticleVersion: item.originalArticleVersion,
        isDraftPublished: item.isDraft ? item.isDraftPublished : undefined,
        updatedAt: item.updatedAt,
      }),
    more: 'Read bodies of a few articles with get_articles.',
  },
});

const getArticles = defineTool({
  name: 'get_articles',
  title: 'Get articles by id',
  words: 'read open text body content says full print view details look inspect fetch kb entry page faq doc help',
  scope: 'read',
  core: true,
  description: 'Reads the full text of articles, live or draft: body, agent instructions, questions, keywords. Ids from list_articles.',
  input: z.object({ articleIds: idList() }),
  route: { method: 'POST', path: '/v2/hc-articles/ids/public', body: ['articleIds'], read: true },
  transform: (articles, input) => withNotFound(articles, input.articleIds),
  output: articleList,
});

/** The API leaves unknown ids out silently: the result names them. */
function withNotFound(response: unknown, requested: string[]): Record<string, unknown> {
  // companyId is the key's own workspace, the same on every article.
  const articles = Array.isArray(response) ? response.map((article) => (isRecord(article) ? { ...article, companyId: undefined } : article)) : [];
  const found = new Set(articles.filter(isRecord).map((article) => String(article.id)));
  const notFound = requested.filter((id) => !found.has(id));
  if (notFound.length === 0) return { articles };
  const which = articles.length ? `${notFound.length} of ${requested.length} ids` : 'None of the ids';
  return { articles, notFound, note: `${which} matched no article in this workspace (list_articles lists live ids; type draft lists drafts).` };
}

const createArticle = defineTool({
  name: 'create_article',
  title: 'Create an article',
  words: 'new add write kb entry page faq make set up doc help',
  scope: 'write',
  description: `Writes a new live article in a folder (parentFolderId from list_folders). ${PASS_THROUGH}`,
  input: z.object({ ...content, parentFolderId: z.string().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-articles/public', body: 'rest', payloadNotShown: [] },
  keepMirror: articleAnswered,
  done: (data) => `Article ${fieldOf(data, 'id')} created (version 1) in folder ${fieldOf(data, 'parentFolderId')}; next: assign_folders_to_agent if no agent answers from that folder yet.`,
  errors: { 400: 'check the content fields and that parentFolderId is a folder of this workspace (list_folders)' },
});

const updateArticle = defineTool({
  name: 'update_article',
  title: 'Update an article',
  words: 'edit change fix typo modify directly immediately deactivate disable correct rename adjust kb entry page faq doc help',
  scope: 'write',
  idempotent: true,
  description: `Edits an article in place, live at once (create_article_draft makes a draft to review instead). Id from list_articles. ${PASS_THROUGH}`,
  input: z.object({ articleId: idInput(), ...content }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-articles/{articleId}/public', body: 'rest', payloadNotShown: [] },
  keepMirror: articleAnswered,
  preview: previewUpdate,
  done: (data, input) => `Article ${input.articleId} updated, now version ${fieldOf(data, 'version')}.`,
  errors: { 404: NOT_FOUND },
});

const createDraft = defineTool({
  name: 'create_article_draft',
  title: 'Draft a change to an article',
  words: 'revision propose suggest edit review approval unpublished copy new add make set up kb entry page faq doc help',
  scope: 'write',
  description: `Starts a reviewable revision of a live article (id from list_articles), live only after publish_article_draft. ${PASS_THROUGH}`,
  input: z.object({ articleId: idInput(), ...content }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-articles/{articleId}/draft/public', body: 'rest', payloadNotShown: [] },
  keepMirror: articleAnswered,
  preview: previewCreateDraft,
  done: (data, input) =>
    `Draft ${fieldOf(data, 'id')} created from article ${input.articleId} (version ${fieldOf(data, 'originalArticleVersion')}); next: compare_article_draft, then publish_article_draft.`,
  errors: { 404: NOT_FOUND, 400: 'drafts are made from live articles' },
});

const nonEmpty = 'must not be empty (the API rejects empty article arrays on publish)';

const publishDraft = defineTool({
  name: 'publish_article_draft',
  title: 'Publish a draft',
  words: 'release push live go apply reviewed approved ship kb entry page faq doc help',
  scope: 'write',
  description: `Makes a reviewed draft live: updates the article it came from (version + 1) or creates one; whether a body is required is not shown. Id from list_articles type draft. ${PASS_THROUGH}`,
  input: z
    .object({
      articleId: idInput(),
      ...content,
      questions: z.array(z.string()).min(1, nonEmpty).optional(),
      keywords: z.array(z.string()).min(1, nonEmpty).optional(),
    })
    .passthrough(),
  // "Whether the publish route requires a body: not shown."
  route: { method: 'POST', path: '/v2/hc-articles/{articleId}/publish/public', body: 'rest', payloadNotShown: [] },
  keepMirror: draftPublished,
  output: articleRecord,
  preview: previewPublish,
  done: (data, input) => `Draft ${input.articleId} published: live article ${fieldOf(data, 'id')} is now at version ${fieldOf(data, 'version')}.`,
  errors: {
    404: 'no draft with this id in this workspace (list_articles with type draft lists drafts; create_article_draft makes one)',
    400: 'required article arrays must not be empty',
  },
});

const moveArticle = defineTool({
  name: 'move_article',
  title: 'Move an article',
  words: 'put into relocate transfer file under different another wrong folder nest reorganize kb entry page faq doc help',
  scope: 'write',
  idempotent: true,
  description: `Files an article under another folder. Ids from list_articles and list_folders. ${PASS_THROUGH}`,
  input: z.object({ articleId: idInput(), parentFolderId: z.string().optional() }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-articles/{articleId}/move/public', body: 'rest', payloadNotShown: [] },
  keepMirror: articleAnswered,
  preview: previewMoveArticle,
  done: (data, input) => `Article ${input.articleId} moved to folder ${fieldOf(data, 'parentFolderId')}; next: list_folders shows which agents answer from it.`,
  errors: { 404: NOT_FOUND, 400: 'parentFolderId must be a folder of this workspace (list_folders)' },
});

const deleteArticle = defineTool({
  name: 'delete_article',
  title: 'Delete an article',
  words: 'remove erase trash drop rid outdated duplicate obsolete purge discard wipe destroy kb entry page faq doc help',
  scope: 'write',
  destructive: true,
  idempotent: true,
  description: 'Permanently deletes an article, live or draft; agents stop answering from it. Id from list_articles.',
  input: z.object({ articleId: idInput() }),
  route: { method: 'DELETE', path: '/v2/hc-articles/{articleId}/public', payloadNotShown: [] },
  keepMirror: articleDeleted,
  preview: previewDeleteArticle,
  done: (_data, input) => `Article ${input.articleId} deleted permanently.`,
  errors: { 404: NOT_FOUND },
});

const MAX_DRAFTS = 20;

type DraftIds = { draftArticleId?: string; draftArticleIds?: string[] };
/** The drafts asked for, by either field, each once. */
const draftIdsOf = (input: DraftIds) => [...new Set([...(input.draftArticleId ? [input.draftArticleId] : []), ...(input.draftArticleIds ?? [])])];

/** Every draft's verdict from two reads (drafts, then the live articles they came from), plus the folders when a new article needs its folder named. */
async function reviewDrafts(input: DraftIds, context: ToolContext): Promise<DraftReview> {
  const ids = draftIdsOf(input);
  const pairs = await loadDraftPairs(context, ids);
  const notFound = ids.filter((id) => !pairs.has(id));
  const notDrafts = ids.filter((id) => pairs.has(id) && pairs.get(id)?.draft.isDraft !== true);
  const drafts = ids.flatMap((id) => {
    const pair = pairs.get(id);
    return pair?.draft.isDraft === true ? [compareArticle(pair.draft, pair.live)] : [];
  });
  if (drafts.length === 0) {
    throw new ToolFailure(
      notDrafts.length
        ? `${notDrafts.join(', ')} ${notDrafts.length > 1 ? 'are live articles' : 'is a live article'}, not a draft; list_articles with type "draft" lists drafts (create_article_draft makes one).`
        : `No article ${notFound.join(', ')} in this workspace; list_articles with type "draft" lists draft ids.`,
    );
  }
  const folders = drafts.flatMap((comparison) => comparison.fields.filter((field) => field.field === 'parentFolderId'));
  if (folders.length) {
    const names = new Map(records(await context.call('list_folders', {})).map((entry) => [String(entry.id), entry.name]));
    for (const folder of folders) {
      const name = names.get(String(folder.after));
      if (typeof name === 'string') folder.afterName = name;
    }
  }
  const verdicts: DraftReview['verdicts'] = {};
  for (const { verdict } of drafts) verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
  return { verdicts, drafts, ...(notFound.length ? { notFound } : {}), ...(notDrafts.length ? { notDrafts } : {}) };
}

const compareArticleDraft = defineTool({
  name: 'compare_article_draft',
  title: 'Compare drafts with their live articles',
  words: 'diff difference changes stale outdated before publish versus against kb entry page faq doc help review pending',
  scope: 'read',
  core: true,
  description: 'What publishing drafts would change, one verdict each (new, identical, changes, stale): changed sentences, fields, questions/keywords. Ids: list_articles type draft, pending true.',
  input: z
    .object({
      draftArticleId: idInput().optional(),
      draftArticleIds: idList().max(MAX_DRAFTS, `must hold at most ${MAX_DRAFTS} ids`).optional(),
    })
    .refine((input) => draftIdsOf(input).length > 0, { message: 'give draftArticleId or draftArticleIds', path: ['draftArticleId'] })
    // Only where draftArticleIds alone keeps its own limit: one rule, one line.
    .refine((input) => draftIdsOf(input).length <= MAX_DRAFTS || (input.draftArticleIds?.length ?? 0) > MAX_DRAFTS, {
      message: `at most ${MAX_DRAFTS} drafts in one call`,
      path: ['draftArticleIds'],
    }),
  handler: reviewDrafts,
  text: renderDraftReview,
  ui: 'review',
});

export const articles = defineGroup({
  name: 'articles',
  description: 'Knowledge articles, live and draft: read, write, draft, publish, move, delete.',
  tools: [listArticles, getArticles, createArticle, updateArticle, createDraft, publishDraft, moveArticle, deleteArticle, compareArticleDraft],
  aliases: { faq: 'article', entry: 'article' },
  resources: [
    { name: 'articles-live', title: 'Live articles', description: 'Every live article with id, version and folder.', uri: 'svc://articles/live', tool: 'list_articles', args: { type: 'live' } },
    {
      name: 'articles-draft',
      title: 'Draft articles',
      description: 'Every draft with the live article it was made from.',
      uri: 'svc://articles/draft',
      tool: 'list_articles',
      args: { type: 'draft' },
    },
  ],
});
