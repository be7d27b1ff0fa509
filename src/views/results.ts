/**
 * The structured results that the views read, and how both sides format their figures: the
 * contract between the tools that build these results and the views beside this file that show
 * them. It imports nothing, so the browser build can take it whole, and the two sides cannot
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

export const GROUP_BY = ['agent', 'source', 'channel', 'day', 'week', 'month', 'quarter'] as const;
export type Dimension = (typeof GROUP_BY)[number];
/** Dimensions whose groups are dates: they differ between two windows, so they are not differenced. */
export const CHRONOLOGICAL: readonly Dimension[] = ['day', 'week', 'month', 'quarter'];

const DAY = 86_400_000;

/**
 * The instants a date group holds, in UTC: a day (`2026-03-05`), an ISO week named by its Monday,
 * a month (`2026-03`) or a quarter (`2026-Q1`); undefined for an id of another form.
 */
export function periodOf(dimension: Dimension, id: string): { since: number; until: number } | undefined {
  const quarter = /^(\d{4})-Q([1-4])$/.exec(id);
  if (dimension === 'quarter' && quarter) {
    const [year, number] = [Number(quarter[1]), Number(quarter[2])];
    return { since: Date.UTC(year, (number - 1) * 3, 1), until: Date.UTC(year, number * 3, 1) - 1 };
  }
  const start = Date.parse(id);
  if (Number.isNaN(start)) return undefined;
  if (dimension === 'day') return { since: start, until: start + DAY - 1 };
  if (dimension === 'week') return { since: start, until: start + 7 * DAY - 1 };
  if (dimension === 'month') {
    const date = new Date(start);
    return { since: start, until: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - 1 };
  }
  return undefined;
}

export interface ArticleCount {
  id: string;
  title: string | null;
  count: number;
}

/** The figures counted per group and in total; `definitions` in each result says exactly what each counts. */
export interface Counts {
  conversations: number;
  answers: number;
  thumbsUp: number;
  thumbsDown: number;
  negativeRate: number | null;
  unresolvedNegative: number;
  csat: { count: number; mean: number | null; distribution: Record<string, number> };
  escalations: number;
  /** The most used first, at most five; `negativeArticlesLeftOut` says how many more there were. */
  negativeArticles: ArticleCount[];
  negativeArticlesLeftOut?: number;
}

/** A group of one dimension: an agent (id botId, name its name), a source, a channel, a day or a week (id its Monday). */
export interface Group extends Counts {
  id: string;
  name: string;
}

/**
 * What names a group of several dimensions at once: a crossed group of conversation_stats, or a
 * group of export_conversations that is the same conversations by agent, source and channel.
 * `agent` is the agent's name and `botId` its id; `day` and `week` are dates (a week by its Monday).
 */
export type GroupKeys = Partial<Record<Dimension, string>> & { botId?: string };
export type KeyedGroup = GroupKeys & Counts;

export interface Stats {
  total: Counts;
  /** One list per dimension asked for: with two dimensions, each one's own groups besides `crossed`. */
  groups: Partial<Record<Dimension, Group[]>>;
  /** With two dimensions: every pair of groups that holds conversations. */
  crossed?: KeyedGroup[];
}

/** Differences (this window minus the previous one) of the figures that have one: not of the CSAT distribution or the article lists. */
export type Change = Omit<Counts, 'csat' | 'negativeArticles' | 'negativeArticlesLeftOut'> & { csat: { count: number; mean: number | null } };

/** The figure names as `definitions` keys: each stated once per session (design 15). */
export type Definitions = Record<string, string>;

/**
 * What each figure counts, exactly as tools/lib/stats.ts counts it: stated in the first stats
 * result of a session and in svc://guide, and always in the stats view.
 */
export const DEFINITIONS: Definitions = {
  conversations: 'createdAt in the window; each under the one agent it was listed for',
  answers: 'svcbot (agent-written) events of type message',
  thumbsUp: 'svcbot events of any type with approved true',
  thumbsDown: 'svcbot events of any type with approved false',
  negativeRate: 'thumbsDown / (thumbsUp + thumbsDown): rated svcbot events, not conversations; null if none rated',
  unresolvedNegative: 'thumbsDown events whose resolved is not true',
  csat: 'csatRating values on any event, 0 included; mean = their average',
  escalations: 'silent_escalation events',
  negativeArticles: 'usedArticles of thumbsDown events, by number of such events; top 5',
};

/** What `change` is, in a comparison with the window before. */
export const CHANGE_DEFINITION =
  'this window minus previous; a rate or mean null on either side gives null; a group missing on one side counts as zero there; day and week groups (different dates) get none';

/** What a scan of conversations over a window covered (export_conversations, conversation_stats). */
export interface ScanSummary {
  since: string;
  until: string;
  /** The slices of at most 90 days the window was read in. */
  windows: number;
  agents: Array<{ botId: string; agentName: string | null }>;
  /** Upstream requests spent: one agent listing plus every page of every agent and slice. */
  requests: number;
  pages: number;
  scanned: number;
  count: number;
  complete: boolean;
  /** When `complete` is false: the matching conversations not read, exactly, or at least (the pages and agents past the stop were not read). */
  leftOut?: { count: number; exact: boolean };
  note?: string;
  /** Present when the workspace mirror answered: when the reading it relies on began. */
  mirror?: { asOf: string };
}

/** conversation_stats. */
export interface StatsResult extends Stats, ScanSummary {
  /** The definitions this session was not told yet (design 15): all of them in its first stats result. */
  definitions?: Definitions;
  /** With compareTo "previous": the same figures over the window of equal length that ends just before `since`. */
  previous?: Stats & { since: string; until: string };
  /** With compareTo "previous": this window minus the previous one, for the total and for groups that are not dates. */
  change?: { total: Change; groups: Partial<Record<Dimension, Array<Change & { id: string; name: string }>>>; crossed?: Array<Change & GroupKeys> };
}

/** The counts export_conversations returns beside the conversations: each set of conversations once, named by every dimension that gives it. */
export interface ExportStats {
  /** The definitions this session was not told yet (design 15). */
  definitions?: Definitions;
  /**
   * Totals of the conversations the export read: of the whole window only when `complete`. With
   * the dimensions that have one value for every one of them (all chat: `channel: "chat"`).
   */
  totalRead: KeyedGroup;
  groups: KeyedGroup[];
}

/** A negative rate as the text and the view show it. */
export const formatPercent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 100)}%`);
/** A CSAT mean as the text and the view show it. */
export const formatMean = (value: number | null) => (value === null ? '-' : value.toFixed(2));
/** A change of a count, a rate (in percentage points) or a mean, signed: `+3`, `-5 pts`, `+0.25`. */
export function formatChange(value: number | null, kind: 'count' | 'rate' | 'mean'): string {
  if (value === null) return '-';
  const shown = kind === 'rate' ? Math.round(value * 100) : kind === 'mean' ? Number(value.toFixed(2)) : value;
  const text = kind === 'mean' ? Math.abs(shown).toFixed(2) : String(Math.abs(shown));
  return `${shown > 0 ? '+' : shown < 0 ? '-' : '±'}${text}${kind === 'rate' ? ' pts' : ''}`;
}

/**
 * Where the confirmation gate's structured answer (a preview with its token) rides when the tool
 * lists an output schema that the answer does not match: in the result's `_meta`, which clients
 * do not check, so a view that asked with `confirm: true` still gets its token.
 */
export const GATE_ANSWER_META = 'svc-mcp/confirmation';

/** The confirmation gate's answer in a result (a preview, a refusal with a fresh one, a no), wherever it rides; undefined for any other result. */
export function gateAnswerOf(result: { structuredContent?: unknown; _meta?: Record<string, unknown> }): Record<string, unknown> | undefined {
  const answer = result.structuredContent ?? result._meta?.[GATE_ANSWER_META];
  return typeof answer === 'object' && answer !== null && (answer as { sent?: unknown }).sent === false ? (answer as Record<string, unknown>) : undefined;
}
