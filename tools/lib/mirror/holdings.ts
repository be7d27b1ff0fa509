import type { WorkspaceMirror } from '../../../src/mirror/mirror.js';
import { heldAgents, heldWindows } from './sync.js';
import { merged } from './windows.js';

/** What a mirror holds, in counts and windows: sync_workspace's answer and svc://mirror/status. */
export interface Holdings {
  conversations: number;
  events: number;
  articles: number;
  articleVersions: number;
  folders: number;
  actions: number;
  idsSeen: number;
  /** Per agent, the windows of createdAt read whole, and when each was read. */
  windows: Array<{ botId: string; agentName: string | null; since: string; until: string; syncedAt: string }>;
  /** The span every agent's conversations are held over, if one is. */
  span?: { since: string; until: string };
  lastSyncs: Array<{ startedAt: string; requests: number; conversations: number; outcome: string }>;
  memoryMb: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function holdingsOf(mirror: WorkspaceMirror): Promise<Holdings> {
  const [counts] = await mirror.rows(`SELECT
      (SELECT CAST(count(*) AS DOUBLE) FROM conversations) AS conversations,
      (SELECT CAST(count(*) AS DOUBLE) FROM events) AS events,
      (SELECT CAST(count(*) AS DOUBLE) FROM articles) AS articles,
      (SELECT CAST(count(*) AS DOUBLE) FROM article_versions) AS "articleVersions",
      (SELECT CAST(count(*) AS DOUBLE) FROM folders) AS folders,
      (SELECT CAST(count(*) AS DOUBLE) FROM actions) AS actions,
      (SELECT CAST(count(*) AS DOUBLE) FROM ids_seen) AS "idsSeen"`);
  const runs = await mirror.rows('SELECT CAST(epoch_ms("startedAt") AS DOUBLE) AS "startedAt", requests, conversations, outcome FROM sync_runs ORDER BY "startedAt" DESC LIMIT 5');
  const agents = await heldAgents(mirror);
  const held = await heldWindows(mirror);
  const names = new Map(agents.map((agent) => [agent.botId, agent.agentName]));
  const perAgent = agents.map((agent) => merged(held.filter((window) => window.botId === agent.botId)));
  // The span held for every agent: the newest start and oldest end of each agent's one merged window.
  const whole = perAgent.every((windows) => windows.length === 1) && perAgent.length > 0;
  const span = whole ? { since: Math.max(...perAgent.map((windows) => windows[0].since)), until: Math.min(...perAgent.map((windows) => windows[0].until)) } : undefined;
  return {
    conversations: Number(counts.conversations),
    events: Number(counts.events),
    articles: Number(counts.articles),
    articleVersions: Number(counts.articleVersions),
    folders: Number(counts.folders),
    actions: Number(counts.actions),
    idsSeen: Number(counts.idsSeen),
    windows: held.map((window) => ({ botId: window.botId, agentName: names.get(window.botId) ?? null, since: iso(window.since), until: iso(window.until), syncedAt: iso(window.syncedAt) })),
    span: span && span.since <= span.until ? { since: iso(span.since), until: iso(span.until) } : undefined,
    lastSyncs: runs.map((run) => ({ startedAt: iso(Number(run.startedAt)), requests: Number(run.requests), conversations: Number(run.conversations), outcome: String(run.outcome) })),
    memoryMb: Math.round((await mirror.memoryBytes()) / 1024 / 102.4) / 10,
  };
}

/** Holdings in a few lines; agent names are third-party text. */
export function renderHoldings(holdings: Holdings, quote: (value: unknown) => string): string {
  const lines = [
    `Held: ${holdings.conversations} conversations (${holdings.events} events), ${holdings.articles} articles and drafts (${holdings.articleVersions} versions seen), ${holdings.folders} folders, ${holdings.actions} actions and attributes, ${holdings.idsSeen} ids of unlisted kinds; ${holdings.memoryMb} MB.`,
    holdings.span ? `Every agent's conversations created ${holdings.span.since} to ${holdings.span.until}.` : 'No window is held whole for every agent yet.',
  ];
  for (const window of holdings.windows) lines.push(`- ${quote(window.agentName ?? window.botId)} (${window.botId}): ${window.since} to ${window.until}, read ${window.syncedAt}`);
  for (const run of holdings.lastSyncs) lines.push(`Sync ${run.startedAt}: ${run.requests} requests, ${run.conversations} conversations read, ${run.outcome}.`);
  return lines.join('\n');
}
