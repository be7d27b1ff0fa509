/** The simulated reply flow of generate answer (also used to build the seed and generated conversations). */
import { firstSentences, retrieve } from './retrieval.js';
import { articleRef, liveArticlesForBot, type Workspace } from './state.js';
import type { Article, Conversation, EventType } from './types.js';

/** Builds the svcbot reply to a user message from the agent's live articles (also used by generate answer). */
export function buildReply(ws: Workspace, botId: string, userMessage: string): { type: EventType; message: string | null; used: Article[] } {
  const hits = retrieve(userMessage, liveArticlesForBot(ws, botId));
  if (hits.length === 0) return { type: 'silent_escalation', message: null, used: [] };
  return { type: 'message', message: firstSentences(hits[0].article.mainKnowledge), used: hits.map((h) => h.article) };
}

/** Adds articles (and their folders) to the conversation-level usedArticles/usedSubfolders. */
export function addUsedArticles(ws: Workspace, conv: Pick<Conversation, 'usedArticles' | 'usedSubfolders'>, used: Article[]): void {
  for (const a of used) {
    if (!conv.usedArticles.some((u) => u.id === a.id)) conv.usedArticles.push(articleRef(a));
    const folder = ws.folders.get(a.parentFolderId);
    if (folder && !conv.usedSubfolders.some((f) => f.id === folder.id)) conv.usedSubfolders.push({ id: folder.id, title: folder.name });
  }
}

/** A reply as a conversation records it: the articles it used, and the folders they come from. */
export interface RecordedReply extends Pick<Conversation, 'usedArticles' | 'usedSubfolders'> {
  type: EventType;
  message: string | null;
}

/** The agent's reply to a user message, as the seed and generated conversations record it. */
export function recordReply(ws: Workspace, botId: string, userMessage: string): RecordedReply {
  const reply = buildReply(ws, botId, userMessage);
  const recorded: RecordedReply = { type: reply.type, message: reply.message, usedArticles: [], usedSubfolders: [] };
  addUsedArticles(ws, recorded, reply.used);
  return recorded;
}
