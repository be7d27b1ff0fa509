import type { ToolContext } from '../../src/engine/define.js';
import { CHANGE_DEFINITION, DEFINITIONS, type Definitions, type StatsResult } from '../../src/views/results.js';

/**
 * Definitions once per session (design 15): the first stats or explain result of a session states
 * how each figure is counted, later ones name the figures only. Each definition is the session
 * topic `definition:<figure>`, so results of different tools share what was already said.
 */

/** The definitions a result states: of its figures' (and `change`'s when compared), those this session has not been told yet. */
export function definitionsFor(compared: boolean, context: Pick<ToolContext, 'unstated'>): { definitions?: Definitions } {
  return unstatedDefinitions(compared ? { ...DEFINITIONS, change: CHANGE_DEFINITION } : DEFINITIONS, context);
}

/** Of these definitions, those this session has not been told yet, or nothing when all were. */
export function unstatedDefinitions(all: Definitions, context: Pick<ToolContext, 'unstated'>): { definitions?: Definitions } {
  const fresh = context.unstated(Object.keys(all).map((figure) => `definition:${figure}`)).map((topic) => topic.slice('definition:'.length));
  return fresh.length ? { definitions: Object.fromEntries(fresh.map((figure) => [figure, all[figure]])) } : {};
}

/** The definitions a stats result states, and, for those stated earlier in the session, one line saying where they are. */
export function definitionLines(result: StatsResult): string[] {
  const stated = Object.entries(result.definitions ?? {});
  const earlier = [...Object.keys(DEFINITIONS), ...(result.change ? ['change'] : [])].filter((figure) => !stated.some(([name]) => name === figure));
  return [
    ...(stated.length ? ['', 'Definitions:', ...stated.map(([figure, definition]) => `- ${figure}: ${definition}`)] : ['']),
    ...(earlier.length ? [`${stated.length ? 'Other definitions' : 'Definitions'}: as stated earlier in this session (svc://guide has them too).`] : []),
  ];
}
