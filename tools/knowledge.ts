import { z } from 'zod';
import { defineTool, type ToolGroup } from '../src/engine/define.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { DOCUMENT_TEXT } from './common.js';
import { countOf, fieldOf } from './effects.js';

/**
 * The knowledge routes are known by method and path only (spec: payloads "not shown"). Each tool
 * types the fields a user would plausibly send, all optional, and passes any other JSON field
 * through unchanged.
 */
const NOT_DOCUMENTED = 'Payload shape is not documented: the fields shown are the usual ones; others pass through.';


const initializeTree = defineTool({
  name: 'initialize_knowledge_tree',
  title: 'Propose a knowledge tree',
  group: 'knowledge',
  scope: 'write',
  description: `Proposes a folder and article tree from processed sources (ids from ingest_sources) and returns a treeId to review, then persist_knowledge_tree. ${NOT_DOCUMENTED}`,
  input: z
    .object({
      documentIds: idList('Source ids to organise.').optional(),
      parentFolderId: idInput('Folder to place the tree under (list_folders).').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/tree/initialize', body: 'rest' },
  done: (data) => `Tree ${fieldOf(data, 'treeId')} proposed (${countOf(data, 'folders')} folder(s)); next: review it, then persist_knowledge_tree with this treeId.`,
  untrusted: DOCUMENT_TEXT,
  errors: { 400: 'check the source ids (ingest_sources returns them) and the folder id (list_folders)' },
});

const persistTree = defineTool({
  name: 'persist_knowledge_tree',
  title: 'Save a knowledge tree',
  group: 'knowledge',
  scope: 'write',
  description: `Saves a tree from initialize_knowledge_tree as folders and draft articles (review them with list_articles type draft before publishing). ${NOT_DOCUMENTED}`,
  input: z
    .object({
      treeId: idInput('Tree id from initialize_knowledge_tree.').optional(),
      parentFolderId: idInput('Folder to create the tree under (list_folders).').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/tree/persist', body: 'rest' },
  done: (data) => `Tree ${fieldOf(data, 'treeId')} saved as ${countOf(data, 'folders')} folder(s) and ${countOf(data, 'articles')} draft(s); next: list_articles type draft, then compare_article_draft and publish_article_draft.`,
  untrusted: DOCUMENT_TEXT,
  errors: { 400: 'check the treeId (initialize_knowledge_tree returns it; a tree is saved once) and the folder id' },
});

const generateKnowledge = defineTool({
  name: 'generate_knowledge',
  title: 'Generate knowledge from a source',
  group: 'knowledge',
  scope: 'write',
  description: `Starts a job that turns one processed source (COMPLETED in wait_for_sources) into a draft article; poll it with get_knowledge_jobs_status. ${NOT_DOCUMENTED}`,
  input: z
    .object({
      documentId: idInput('Source id (from ingest_sources).').optional(),
      folderId: idInput('Folder for the draft (list_folders).').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public', body: 'rest' },
  done: (data) => `Knowledge job ${fieldOf(data, 'id')} started for source ${fieldOf(data, 'documentId')}; next: get_knowledge_jobs_status with jobIds [${fieldOf(data, 'id')}].`,
  errors: { 400: 'check the source id (ingest_sources returns it) and the folder id (list_folders)' },
});

const generateBulk = defineTool({
  name: 'generate_knowledge_bulk',
  title: 'Generate knowledge from many sources',
  group: 'knowledge',
  scope: 'write',
  description: `Starts one knowledge job per processed source, each making a draft article; poll them with get_knowledge_jobs_status. ${NOT_DOCUMENTED}`,
  input: z
    .object({
      documentIds: idList('Source ids (from ingest_sources).').optional(),
      folderId: idInput('Folder for the drafts (list_folders).').optional(),
    })
    .passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/bulk', body: 'rest' },
  done: (data) => `${countOf(data, 'jobs')} knowledge job(s) started; next: get_knowledge_jobs_status with their ids.`,
  errors: { 400: 'check the source ids (ingest_sources returns them) and the folder id (list_folders)' },
});

const jobsStatus = defineTool({
  name: 'get_knowledge_jobs_status',
  title: 'Knowledge job status',
  group: 'knowledge',
  scope: 'read',
  description: `Status of knowledge jobs from generate_knowledge or generate_knowledge_bulk, with the draft article id once done (read with get_articles). ${NOT_DOCUMENTED}`,
  input: z.object({ jobIds: idList('Job ids (job_...).').optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/jobs/status', body: 'rest', read: true },
  untrusted: DOCUMENT_TEXT,
});

export const knowledge: ToolGroup = {
  name: 'knowledge',
  description: 'Knowledge generation from processed sources: trees, jobs and their status.',
  tools: [initializeTree, persistTree, generateKnowledge, generateBulk, jobsStatus],
};
