import type { ToolGroup } from '../src/engine/define.js';
import { agents } from './agents.js';
import { conversations } from './conversations.js';
import { sources } from './sources.js';
import { knowledge } from './knowledge.js';
import { articles } from './articles.js';
import { folders } from './folders.js';
import { actions } from './actions.js';
import { rules } from './rules.js';
import { replays } from './replays.js';
import { refine } from './refine.js';
import { testing } from './testing.js';
import { tags } from './tags.js';
import { analytics } from './analytics.js';

/** Every tool group, in the order tools/list shows them. */
export const catalog: ToolGroup[] = [agents, conversations, sources, knowledge, articles, folders, actions, rules, replays, refine, testing, tags, analytics];
