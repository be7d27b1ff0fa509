/**
 * Route groups of the sandbox. To add a group: create `routes/<group>.ts` exporting
 * `export const routes = defineRoutes([...])` and add one line below.
 */
import type { RouteDef } from '../router.js';
import { routes as agents } from './agents.js';
import { routes as conversations } from './conversations.js';
import { routes as sources } from './sources.js';
import { routes as knowledge } from './knowledge.js';
import { routes as articles } from './articles.js';
import { routes as folders } from './folders.js';
import { routes as actions } from './actions.js';
import { routes as rules } from './rules.js';
import { routes as replays } from './replays.js';
import { routes as refine } from './refine.js';
import { routes as testing } from './testing.js';
import { routes as tags } from './tags.js';

export const allRoutes: RouteDef[] = [
  ...agents,
  ...conversations,
  ...sources,
  ...knowledge,
  ...articles,
  ...folders,
  ...actions,
  ...rules,
  ...replays,
  ...refine,
  ...testing,
  ...tags,
];
