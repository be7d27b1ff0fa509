/**
 * The sandbox's API: every route with its scope, answered by a handler of its group module
 * (`routes/<group>.ts`). To add a route: export its handler from the group module and add one line below.
 */
import type { RouteDef } from '../router.js';
import * as actions from './actions.js';
import * as agents from './agents.js';
import * as articles from './articles.js';
import * as conversations from './conversations.js';
import * as folders from './folders.js';
import * as knowledge from './knowledge.js';
import * as refine from './refine.js';
import * as replays from './replays.js';
import * as rules from './rules.js';
import * as sources from './sources.js';
import * as tags from './tags.js';
import * as testing from './testing.js';

export const allRoutes: RouteDef[] = [
  { method: 'GET', path: '/v2/bots/public', scope: 'read', handler: agents.listAgents },

  { method: 'GET', path: '/v2/hc-interactions/public', scope: 'read', handler: conversations.listConversations },
  { method: 'POST', path: '/v2/hc-interactions/events/public', scope: 'write', handler: conversations.generateAnswer },
  { method: 'POST', path: '/v2/hc-interactions/{id}/feedback/public', scope: 'write', handler: conversations.feedback },
  { method: 'DELETE', path: '/v2/hc-interactions/{id}/public', scope: 'write', handler: conversations.deleteConversation },

  { method: 'GET', path: '/v2/documents/public/resources/{provider}', scope: 'read', handler: sources.discover },
  { method: 'POST', path: '/v2/documents/public/resources/{provider}', scope: 'write', handler: sources.register },
  { method: 'POST', path: '/v2/documents/public/deep-crawl/links', scope: 'write', handler: sources.crawl },
  { method: 'POST', path: '/v2/documents/public', scope: 'write', handler: sources.ingest },
  { method: 'GET', path: '/v2/documents/public/{id}', scope: 'read', handler: sources.getSource },

  { method: 'POST', path: '/v2/knowledge/public/tree/initialize', scope: 'write', handler: knowledge.initializeTree },
  { method: 'POST', path: '/v2/knowledge/public/tree/persist', scope: 'write', handler: knowledge.persistTree },
  { method: 'POST', path: '/v2/knowledge/public', scope: 'write', handler: knowledge.generate },
  { method: 'POST', path: '/v2/knowledge/public/bulk', scope: 'write', handler: knowledge.generateBulk },
  { method: 'POST', path: '/v2/knowledge/public/jobs/status', scope: 'read', handler: knowledge.jobsStatus },

  { method: 'GET', path: '/v2/hc-articles/public', scope: 'read', handler: articles.listArticles },
  { method: 'POST', path: '/v2/hc-articles/ids/public', scope: 'read', handler: articles.articlesByIds },
  { method: 'POST', path: '/v2/hc-articles/public', scope: 'write', handler: articles.createArticle },
  { method: 'PUT', path: '/v2/hc-articles/{id}/public', scope: 'write', handler: articles.updateArticle },
  { method: 'POST', path: '/v2/hc-articles/{id}/draft/public', scope: 'write', handler: articles.createDraft },
  { method: 'POST', path: '/v2/hc-articles/{id}/publish/public', scope: 'write', handler: articles.publishDraft },
  { method: 'PUT', path: '/v2/hc-articles/{id}/move/public', scope: 'write', handler: articles.moveArticle },
  { method: 'DELETE', path: '/v2/hc-articles/{id}/public', scope: 'write', handler: articles.deleteArticle },

  { method: 'GET', path: '/v2/hc-folders/public', scope: 'read', handler: folders.listFolders },
  { method: 'POST', path: '/v2/hc-folders/public', scope: 'write', handler: folders.createFolder },
  { method: 'PUT', path: '/v2/hc-folders/{id}/public', scope: 'write', handler: folders.updateFolder },
  { method: 'PUT', path: '/v2/hc-folders/{id}/move/public', scope: 'write', handler: folders.moveFolder },
  { method: 'DELETE', path: '/v2/hc-folders/{id}/public', scope: 'write', handler: folders.deleteFolder },
  { method: 'POST', path: '/v2/hc-bot-folder-junctions/public', scope: 'write', handler: folders.assignFolders },

  { method: 'GET', path: '/v2/hc-tools/public', scope: 'read', handler: actions.listTools },
  { method: 'POST', path: '/v2/hc-tools/public', scope: 'write', handler: actions.createTool },
  { method: 'PATCH', path: '/v2/hc-tools/{id}/public', scope: 'write', handler: actions.updateTool },
  { method: 'POST', path: '/v2/api-function-configs/public', scope: 'write', handler: actions.saveDataStep },
  { method: 'POST', path: '/v2/hc-tools/junctions/public', scope: 'write', handler: actions.assign },
  { method: 'POST', path: '/v2/hc-tools/{id}/test-run/public', scope: 'write', handler: actions.testTool },
  { method: 'POST', path: '/v2/api-function-configs/test-run/public', scope: 'write', handler: actions.testDataStep },

  { method: 'GET', path: '/v2/hc-rules/{id}/versions/public', scope: 'read', handler: rules.listRuleVersions },
  { method: 'GET', path: '/v2/hc-rules/{id}/versions/{versionId}/public', scope: 'read', handler: rules.getRuleVersion },
  { method: 'GET', path: '/v2/replays/{id}/public', scope: 'read', handler: replays.getReplay },
  { method: 'GET', path: '/v2/fix-review/interactions/{id}/events/{eventId}/session/public', scope: 'read', handler: refine.getRefineSession },
  { method: 'POST', path: '/v2/test-suite/criteria-groups/{id}/cases/public', scope: 'write', handler: testing.addCases },
  { method: 'POST', path: '/v2/test-sets/{testSetId}/runs/public', scope: 'write', handler: testing.startRun },
  { method: 'POST', path: '/v2/tag-groups/{id}/tags/public', scope: 'write', handler: tags.createTag },
];
