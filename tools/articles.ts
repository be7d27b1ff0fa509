import { z } from 'zod';
import { defineTool, type ToolContext, type ToolGroup } from '../src/engine/define.js';
import { ToolFailure } from '../src/engine/errors.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { isRecord } from '../src/engine/output.js';
import { compareArticle, loadDraftPairs, renderArticleComparison } from './article-review.js';
import { defined, DOCUMENT_TEXT } from './common.js';

const text = z.string().nullable();
const flag = z.boolean().nullable();

/** Article record (spec, Resources): every field optional so compact views validate too. */
export const articleRecord = z
  .object({
    id: z.string(),
    title: text,
    mainKnowledge: text,
    agentInstruction: text,
    questions: z.array(z.unknown()).nullable(),
    keywords: z.array(z.unknown()).nullable(),
    escalation: flag,
    misc: z.record(z.unknown()).nullable(),
    active: flag,
    public: flag,
    parentFolderId: text,
    companyId: text,
    createdAt: text,
    updatedAt: text,
    version: z.number().nullable(),
    isDraft: flag,
    isDraftPublished: flag,
    originalArticleId: text,
    originalArticleVersion: z.number().nullable(),
    createdBy: text,
    updatedBy: text,
    origin: text,
  })
  .partial()
  .passthrough();

const articleList = z.object({ articles: z.array(articleRecord) }).partial().passthrough();

const content = {
  title: z.string().optional(),
  mainKnowledge: z.string().optional().describe('Main body.'),
  agentInstruction: z.string().optional().describe('Extra instructions for the agent.'),
  questions: z.array(z.string()).optional().describe('Question prompts the article answers.'),
  keywords: z.array(z.string()).optional(),
  escalation: z.boolean().optional(),
  misc: z.record(z.unknown()).optional(),
  active: z.boolean().optional(),
  public: z.boolean().optional().describe('Public in the help center.'),
};

const NOT_DOCUMENTED = 'Payload shape is not documented: article fields shown; others pass through.';
const NOT_FOUND = 'no article with this id in this workspace (list_articles lists live and draft ids)';

const listArticles = defineTool({
  name: 'list_articles',
  title: 'List articles',
  group: 'articles',
  scope: 'read',
  description: 'Lists live articles (type live, the default) or drafts (type draft) with ids, versions, folders and draft links. Read bodies with get_articles.',
  input: z.object({ type: z.enum(['live', 'draft']).optional().describe('live (default) or draft.') }),
  route: { method: 'GET', path: '/v2/hc-articles/public', query: ['type'] },
  transform: (articles) => ({ articles }),
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
  untrusted: DOCUMENT_TEXT,
});

const getArticles = defineTool({
  name: 'get_articles',
  title: 'Get articles by id',
  group: 'articles',
  scope: 'read',
  description: 'Reads whole articles (live or draft) by id, with body, instructions, questions and keywords. The only way to read one article; ids from list_articles. Unknown ids are left out.',
  input: z.object({ articleIds: idList('Article ids.') }),
  route: { method: 'POST', path: '/v2/hc-articles/ids/public', body: ['articleIds'], read: true },
  transform: (articles, input) => withNotFound(articles, input.articleIds),
  output: articleList,
  untrusted: DOCUMENT_TEXT,
});

/** The API leaves unknown ids out silently: the result names them. */
function withNotFound(response: unknown, requested: string[]): Record<string, unknown> {
  const articles = Array.isArray(response) ? response : [];
  const found = new Set(articles.filter(isRecord).map((article) => String(article.id)));
  const notFound = requested.filter((id) => !found.has(id));
  if (notFound.length === 0) return { articles };
  const which = articles.length ? `${notFound.length} of ${requested.length} ids` : 'None of the ids';
  return { articles, notFound, note: `${which} matched no article in this workspace (list_articles lists live ids; type draft lists drafts).` };
}

const createArticle = defineTool({
  name: 'create_article',
  title: 'Create an article',
  group: 'articles',
  scope: 'write',
  description: `Creates an article in a folder (parentFolderId from list_folders). Agents answer from it once its folder is assigned to them (assign_folders_to_agent). ${NOT_DOCUMENTED}`,
  input: z.object({ ...content, parentFolderId: z.string().optional().describe('Folder id (list_folders).') }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-articles/public', body: 'rest' },
  untrusted: DOCUMENT_TEXT,
  errors: { 400: 'check the content fields and that parentFolderId is a folder of this workspace (list_folders)' },
});

const updateArticle = defineTool({
  name: 'update_article',
  title: 'Update an article',
  group: 'articles',
  scope: 'write',
  idempotent: true,
  description: `Changes fields of an article at once (its version increases). To review a change before it goes live, use create_article_draft then publish_article_draft. ${NOT_DOCUMENTED}`,
  input: z.object({ articleId: idInput('Article id (list_articles).'), ...content }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-articles/{articleId}/public', body: 'rest' },
  untrusted: DOCUMENT_TEXT,
  errors: { 404: NOT_FOUND },
});

const createDraft = defineTool({
  name: 'create_article_draft',
  title: 'Draft a change to an article',
  group: 'articles',
  scope: 'write',
  description: `Creates a draft from a live article (records originalArticleId and version); the live article is unchanged until publish_article_draft. Fields given replace the draft's. ${NOT_DOCUMENTED}`,
  input: z.object({ articleId: idInput('Live article id (list_articles).'), ...content }).passthrough(),
  route: { method: 'POST', path: '/v2/hc-articles/{articleId}/draft/public', body: 'rest' },
  untrusted: DOCUMENT_TEXT,
  errors: { 404: NOT_FOUND, 400: 'drafts are made from live articles' },
});

const nonEmpty = 'must not be empty (the API rejects empty article arrays on publish)';

const publishDraft = defineTool({
  name: 'publish_article_draft',
  title: 'Publish a draft',
  group: 'articles',
  scope: 'write',
  description:
    'Publishes a draft: updates its original live article (version + 1) or creates a new live one, and returns it. Fields given (content, active, public) override the draft\'s. Draft ids from list_articles type draft.',
  input: z
    .object({
      articleId: idInput('Draft article id (list_articles type draft).'),
      ...content,
      questions: z.array(z.string()).min(1, nonEmpty).optional().describe('Question prompts the article answers.'),
      keywords: z.array(z.string()).min(1, nonEmpty).optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/hc-articles/{articleId}/publish/public', body: 'rest' },
  untrusted: DOCUMENT_TEXT,
  errors: {
    404: 'no draft with this id in this workspace (list_articles with type draft lists drafts; create_article_draft makes one)',
    400: 'required article arrays must not be empty, and a draft is published only once',
  },
});

const moveArticle = defineTool({
  name: 'move_article',
  title: 'Move an article',
  group: 'articles',
  scope: 'write',
  idempotent: true,
  description: 'Moves an article into another folder; agents see it through that folder\'s assignments. Payload shape is not documented: parentFolderId shown; others pass through.',
  input: z.object({ articleId: idInput('Article id (list_articles).'), parentFolderId: z.string().optional().describe('Target folder id (list_folders).') }).passthrough(),
  route: { method: 'PUT', path: '/v2/hc-articles/{articleId}/move/public', body: 'rest' },
  untrusted: DOCUMENT_TEXT,
  errors: { 404: NOT_FOUND, 400: 'parentFolderId must be a folder of this workspace (list_folders)' },
});

const deleteArticle = defineTool({
  name: 'delete_article',
  title: 'Delete an article',
  group: 'articles',
  scope: 'write',
  destructive: true,
  idempotent: true,
  description: 'Permanently deletes one article (live or draft); agents stop answering from it. Ids from list_articles.',
  input: z.object({ articleId: idInput('Article id (list_articles).') }),
  route: { method: 'DELETE', path: '/v2/hc-articles/{articleId}/public' },
  errors: { 404: NOT_FOUND },
});

async function compareDraft(input: { draftArticleId: string }, context: ToolContext): Promise<unknown> {
  const id = input.draftArticleId;
  const pair = (await loadDraftPairs(context, [id])).get(id);
  if (!pair) throw new ToolFailure(`No article ${id} in this workspace; list_articles with type "draft" lists draft ids.`);
  if (pair.draft.isDraft !== true) throw new ToolFailure(`${id} is a live article, not a draft; list_articles with type "draft" lists drafts (create_article_draft makes one).`);
  const comparison = compareArticle(pair.draft, pair.live);
  const folder = comparison.fields.find((field) => field.field === 'parentFolderId');
  if (folder) {
    const listed = await context.call('list_folders', {});
    const names = new Map((Array.isArray(listed) ? listed : []).filter(isRecord).map((entry) => [String(entry.id), typeof entry.name === 'string' ? entry.name : undefined]));
    folder.beforeName = names.get(String(folder.before));
    folder.afterName = names.get(String(folder.after));
  }
  return comparison;
}

const compareArticleDraft = defineTool({
  name: 'compare_article_draft',
  title: 'Compare a draft with its live article',
  group: 'articles',
  scope: 'read',
  description:
    'What publishing a draft changes: line diffs of mainKnowledge and agentInstruction, questions/keywords added or removed, title, active, public, folder; flags stale drafts. Check before publish_article_draft. Ids: list_articles type draft.',
  input: z.object({ draftArticleId: idInput('Draft article id.') }),
  handler: compareDraft,
  text: renderArticleComparison,
});

export const articles: ToolGroup = {
  name: 'articles',
  description: 'Knowledge articles, live and draft: read, write, draft, publish, move, delete.',
  tools: [listArticles, getArticles, createArticle, updateArticle, createDraft, publishDraft, moveArticle, deleteArticle, compareArticleDraft],
  resources: [
    { name: 'articles-live', title: 'Live articles', description: 'Every live article with id, version and folder.', uri: 'svc://articles/live', tool: 'list_articles', args: { type: 'live' } },
    { name: 'articles-draft', title: 'Draft articles', description: 'Every draft with the live article it was made from.', uri: 'svc://articles/draft', tool: 'list_articles', args: { type: 'draft' } },
  ],
};
