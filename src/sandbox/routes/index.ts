/**
 * Route groups of the sandbox. To add a group: create `routes/<group>.ts` exporting
 * `export const routes = defineRoutes([...])` and add one line below.
 */
import type { RouteDef } from '../router.js';
import { routes as agents } from './agents.js';
import { routes as conversations } from './conversations.js';

export const allRoutes: RouteDef[] = [
  ...agents,
  ...conversations,
];
