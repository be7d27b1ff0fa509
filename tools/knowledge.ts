import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput, idList } from '../src/engine/inputs.js';
import { PASS_THROUGH } from './lib/inputs.js';
import { countOf, fieldOf } from './lib/records.js';

/**
 * The knowledge routes are known by method and path only (spec: payloads "not shown"). Each tool
 * types the fields a user would plausibly send, all optional, and passes any other JSON field
 * through unchanged.
 */
const initializeTree = defineTool({
  name: 'initialize_knowledge_tree',
  title: 'Propose a knowledge tree',
  words: 'suggest propose plan organise organize structure hierarchy layout outline',
  gives: ['treeId'],
  scope: 'write',
  description: `Proposes folders and articles for processed sources (ids from ingest_sources); returns a treeId for persist_knowledge_tree. ${PASS_THROUGH}`,
  input: z.object({ documentIds: idList('Source ids').optional(), parentFolderId: idInput().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/tree/initialize', body: 'rest', payloadNotShown: [] },
  done: (data) => `Tree ${fieldOf(data, 'treeId')} proposed (${countOf(data, 'folders')} folder(s)); next: review it, then persist_knowledge_tree with this treeId.`,
  errors: { 400: 'check the source ids (ingest_sources returns them) and the folder id (list_folders)' },
});

const persistTree = defineTool({
  name: 'persist_knowledge_tree',
  title: 'Save a knowledge tree',
  words: 'save accept commit apply structure plan proposal confirm keep hierarchy outline layout',
  scope: 'write',
  description: `Saves a proposed tree (treeId from initialize_knowledge_tree) as folders and draft articles. ${PASS_THROUGH}`,
  input: z.object({ treeId: idInput().optional(), parentFolderId: idInput().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/tree/persist', body: 'rest', payloadNotShown: [] },
  done: (data) =>
    `Tree ${fieldOf(data, 'treeId')} saved as ${countOf(data, 'folders')} folder(s) and ${countOf(data, 'articles')} draft(s); next: list_articles type draft, then compare_article_draft and publish_article_draft.`,
  errors: { 400: 'check the treeId (initialize_knowledge_tree returns it; a tree is saved once) and the folder id' },
});

const generateKnowledge = defineTool({
  name: 'generate_knowledge',
  title: 'Generate knowledge from a source',
  words: 'write draft turn article single document page convert',
  gives: ['jobIds'],
  scope: 'write',
  description: `Writes a draft article from one processed source (id from ingest_sources); returns a job for get_knowledge_jobs_status. ${PASS_THROUGH}`,
  input: z.object({ documentId: idInput('Source id').optional(), folderId: idInput().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public', body: 'rest', payloadNotShown: [] },
  done: (data) => `Knowledge job ${fieldOf(data, 'id')} started for source ${fieldOf(data, 'documentId')}; next: get_knowledge_jobs_status with jobIds [${fieldOf(data, 'id')}].`,
  errors: { 400: 'check the source id (ingest_sources returns it) and the folder id (list_folders)' },
});

const generateBulk = defineTool({
  name: 'generate_knowledge_bulk',
  title: 'Generate knowledge from many sources',
  words: 'batch bulk many all several once together drafts articles write convert',
  gives: ['jobIds'],
  scope: 'write',
  description: `Writes draft articles from many processed sources at once (ids from ingest_sources), one job each. ${PASS_THROUGH}`,
  input: z.object({ documentIds: idList('Source ids').optional(), folderId: idInput().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/bulk', body: 'rest', payloadNotShown: [] },
  done: (data) => `${countOf(data, 'jobs')} knowledge job(s) started; next: get_knowledge_jobs_status with their ids.`,
  errors: { 400: 'check the source ids (ingest_sources returns them) and the folder id (list_folders)' },
});

const jobsStatus = defineTool({
  name: 'get_knowledge_jobs_status',
  title: 'Knowledge job status',
  words: 'progress finished done complete generation drafting writing open read view details look inspect fetch status',
  scope: 'read',
  description: `Checks article generation jobs of generate_knowledge(_bulk); gives each finished draft's article id. ${PASS_THROUGH}`,
  input: z.object({ jobIds: idList().optional() }).passthrough(),
  route: { method: 'POST', path: '/v2/knowledge/public/jobs/status', body: 'rest', read: true, payloadNotShown: [] },
});

export const knowledge = defineGroup({
  name: 'knowledge',
  description: 'Knowledge generation from processed sources: trees, jobs and their status.',
  tools: [initializeTree, persistTree, generateKnowledge, generateBulk, jobsStatus],
  // The spec calls the folders and articles a knowledge graph.
  aliases: Object.fromEntries(['graph', 'skeleton', 'hierarchy', 'taxonomy', 'outline'].map((name) => [name, 'tree'])),
});
