/**
 * Keyword retrieval used by the simulated reply flow of generate answer.
 * Tokenize, drop stopwords, light stemming; score each article:
 *   +3 per query token found in the title, +3 in keywords, +2 in questions, +1 in mainKnowledge.
 * A match needs a best score of at least MIN_SCORE; used articles are those scoring at least
 * half the best (and MIN_SCORE), at most MAX_USED, best first.
 */
import type { Article } from './types.js';

export const MIN_SCORE = 3;
export const MAX_USED = 3;

const STOPWORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being below between both
but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further get
got had hadn't has hasn't have haven't having he her here hers herself him himself his how i i'm i've if in into is isn't
it it's its itself just let's me more most much my myself need no nor not now of off on once only or other ought our ours
ourselves out over own please same she should shouldn't so some such than thank thanks that that's the their theirs them
themselves then there there's these they they're this those through to too under until up very want was wasn't we we're
were weren't what what's when where where's which while who who's whom why will with won't would wouldn't you you'd
you'll you're you've your yours yourself yourselves hi hello hey there help question also ok okay yes`.split(/\s+/),
);

function stem(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  return t;
}

export function tokenize(text: string): string[] {
  const raw =
    text
      .toLowerCase()
      .replace(/[’']/g, "'")
      .match(/[a-z0-9']+/g) ?? [];
  const out: string[] = [];
  for (const r of raw) {
    const w = r.replace(/^'+|'+$/g, '');
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.push(stem(w.replace(/'s$/, '')));
  }
  return out;
}

export interface ScoredArticle {
  article: Article;
  score: number;
}

export function scoreArticles(query: string, articles: Article[]): ScoredArticle[] {
  const q = [...new Set(tokenize(query))];
  if (q.length === 0) return [];
  const scored: ScoredArticle[] = [];
  for (const a of articles) {
    const title = new Set(tokenize(a.title));
    const keywords = new Set(a.keywords.flatMap(tokenize));
    const questions = new Set(a.questions.flatMap(tokenize));
    const body = new Set(tokenize(a.mainKnowledge));
    let score = 0;
    for (const t of q) {
      if (title.has(t)) score += 3;
      if (keywords.has(t)) score += 3;
      if (questions.has(t)) score += 2;
      if (body.has(t)) score += 1;
    }
    if (score > 0) scored.push({ article: a, score });
  }
  scored.sort((x, y) => y.score - x.score || x.article.title.localeCompare(y.article.title));
  return scored;
}

/** The articles used for a reply, best first; empty when nothing matches well enough. */
export function retrieve(query: string, articles: Article[]): ScoredArticle[] {
  const scored = scoreArticles(query, articles);
  if (scored.length === 0 || scored[0].score < MIN_SCORE) return [];
  const floor = Math.max(MIN_SCORE, scored[0].score / 2);
  return scored.filter((s) => s.score >= floor).slice(0, MAX_USED);
}

/** First sentences of a text, up to about `maxChars`. */
export function firstSentences(text: string, count = 2, maxChars = 400): string {
  const sentences = text
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?])\s+/);
  let out = '';
  for (const s of sentences.slice(0, count)) {
    if (out && out.length + s.length + 1 > maxChars) break;
    out = out ? `${out} ${s}` : s;
  }
  return out.length > maxChars ? `${out.slice(0, maxChars - 1)}…` : out;
}
