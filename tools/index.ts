import type { ToolGroup } from '../src/engine/define.js';
import { agents } from './agents.js';
import { conversations } from './conversations.js';

/** Every tool group, in the order tools/list shows them. */
export const catalog: ToolGroup[] = [agents, conversations];
