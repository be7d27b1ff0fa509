/**
 * The structured results that the views (src/views, built for the browser) read, and how both
 * sides format their figures. Tools build the results; views import these types and formatters.
 * This module imports nothing, so the browser build can take it whole, and the two sides cannot
 * drift apart.
 */

/** One line of a hunk with its line numbers on each side, so a side-by-side view can place it. */
export interface DiffLine {
  mark: '+' | '-' | ' ';
  text: string;
  oldLine?: number;
  newLine?: number;
}

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** Whole sentences removed and added in a row, with the unchanged sentence before and after them. */
export interface Passage {
  removed: string[];
  added: string[];
  leading?: string;
  trailing?: string;
}

export interface TextDiff {
  hunks: DiffHunk[];
  /** The same change sentence by sentence: a one-word edit inside a long paragraph is easy to miss in a line diff. */
  passages: Passage[];
}

/** One changed field, named by its path (`flowConfig.steps[2].prompt`); multi-line strings carry a line diff instead of both values. */
export interface PathChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
  hunks?: DiffHunk[];
}

/** Article bodies, compared as text. */
export const ARTICLE_TEXT_FIELDS = ['mainKnowledge', 'agentInstruction'] as const;
/** Article lists, compared as added and removed items. */
export const ARTICLE_LIST_FIELDS = ['questions', 'keywords'] as const;
/**
 * The other fields a publish writes, which a draft comparison shows as old -> new (`origin`: a
 * published article keeps the draft's). A publish leaves a live article's folder as it is, so the
 * folder shows only for a new article, which is created in the draft's.
 */
export const ARTICLE_COMPARED_FIELDS = ['title', 'active', 'public', 'escalation', 'origin', 'misc', 'parentFolderId'] as const;

export interface FieldChange {
  field: (typeof ARTICLE_COMPARED_FIELDS)[number];
  before?: unknown;
  after: unknown;
  /** The folder's name, when list_folders could name it. */
  afterName?: string;
}

/**
 * What publishing a draft does. `new`: creates a live article. `identical`: changes nothing.
 * `changes`: overwrites liveArticleId with the changes listed. `stale`: the same, but the live
 * article was changed after the draft was made (not by this draft's own publish), and publishing
 * undoes that later change too.
 */
export const VERDICTS = ['new', 'identical', 'changes', 'stale'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** A draft against the live article it came from, or against nothing when it will create a new one. */
export interface ArticleComparison {
  draftArticleId: string;
  title: unknown;
  verdict: Verdict;
  liveArticleId: string | null;
  liveVersion: number | null;
  originalArticleVersion: number | null;
  isDraftPublished: boolean;
  draftCreatedAt: unknown;
  warnings: string[];
  fields: FieldChange[];
  text: Array<{ field: (typeof ARTICLE_TEXT_FIELDS)[number] } & TextDiff>;
  lists: Array<{ field: (typeof ARTICLE_LIST_FIELDS)[number]; added: unknown[]; removed: unknown[] }>;
}

/** compare_article_draft: one verdict per draft, in the order asked, and the ids that are not drafts. */
export interface DraftReview {
  /** How many drafts got each verdict. */
  verdicts: Partial<Record<Verdict, number>>;
  drafts: ArticleComparison[];
  /** Ids with no article in this workspace. */
  notFound?: string[];
  /** Ids of live articles. */
  notDrafts?: string[];
}

/** compare_rule_versions: two versions of an intent rule, path by path. */
export interface RuleComparison {
  ruleId: string;
  name?: unknown;
  /** versionId, version, status, active, createdAt and createdBy of each side. */
  from: Record<string, unknown>;
  to: Record<string, unknown>;
  /** What the rule does: name, description, agents, trigger, flowConfig. */
  changes: PathChange[];
  /** What every new version changes anyway: status, version numbers, times. */
  metadata: PathChange[];
  note?: string;
}

export const GROUP_BY = ['agent', 'source', 'channel', 'day', 'week'] as const;
export type Dimension = (typeof GROUP_BY)[number];

export interface ArticleCount {
  id: string;
  title: string | null;
  count: number;
}

/** The figures counted per group and in total. */
export interface Counts {
  conversations: number;
  /** The agent's answers: `svcbot` message events. */
  answers: number;
  thumbsUp: number;
  thumbsDown: number;
  /** thumbsDown / (thumbsUp + thumbsDown), null when nothing was rated. */
  negativeRate: number | null;
  /** Thumbs-down answers whose `resolved` is not true. */
  unresolvedNegative: number;
  /** Every stored rating counts, 0 included; `distribution` maps each rating given to how many times (ratings never given are left out). */
  csat: { count: number; mean: number | null; distribution: Record<string, number> };
  /** `silent_escalation` events. */
  escalations: number;
  /** Articles used in thumbs-down answers, most used first. */
  negativeArticles: ArticleCount[];
}

export interface Group extends Counts {
  id: string;
  name: string;
}

export interface Stats {
  total: Counts;
  groups: Partial<Record<Dimension, Group[]>>;
}

/** What a scan of conversations over a window covered (export_conversations, conversation_stats). */
export interface ScanSummary {
  since: string;
  until: string;
  windows: number;
  agents: Array<{ botId: string; agentName: string | null }>;
  /** Upstream requests spent: one agent listing plus every page of every agent and window. */
  requests: number;
  pages: number;
  scanned: number;
  count: number;
  complete: boolean;
  note?: string;
}

/** conversation_stats. */
export type StatsResult = Stats & ScanSummary;

/** A negative rate as the text and the view show it. */
export const formatPercent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 100)}%`);
/** A CSAT mean as the text and the view show it. */
export const formatMean = (value: number | null) => (value === null ? '-' : value.toFixed(2));
