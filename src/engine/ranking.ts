import type { CatalogTool, ToolDefinition, ToolGroup } from './define.js';
import { objectShape } from './inputs.js';

/**
 * BM25F over each tool's fields: a query word found in a tool's name counts more than one found in
 * its group's description. `words` holds the everyday words people use for a tool (remove for
 * delete, status for a job check), so a request need not use the catalog's vocabulary; everyday
 * verbs and the groups' aliases lean a request to the catalog's own words for every tool alike, a
 * mistyped word is read as the catalog word one slip away, and a request that asks for no change
 * ranks read tools above the writes that share its nouns.
 */
const FIELD_WEIGHTS = { name: 3, title: 2, words: 1, description: 1, fields: 0.5, group: 0.5 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];
/** BM25's term-frequency saturation and length normalisation, at their usual values. */
const K1 = 1.2;
const B = 0.75;

const STOPWORDS = new Set(
  'a an and any are as at be by can do does for from get give has have how i in is it its me my need of on one or our out show so some that the their them then there these this to up us want was we what when where which who why will with would you your'.split(
    ' ',
  ),
);

/**
 * Everyday verbs for what tools do, each leaning to the verb tool names use for it (erase to
 * delete), so a request reaches every tool of that kind whatever words its definition lists.
 */
const VERBS = {
  change: {
    create: [],
    delete: ['remove', 'erase', 'wipe', 'purge', 'trash', 'discard', 'destroy', 'nuke', 'drop', 'scrub'],
    update: ['edit', 'change', 'modify', 'amend', 'tweak', 'adjust', 'correct', 'alter', 'rename', 'retitle', 'overwrite', 'rewrite'],
    move: ['relocate', 'transfer', 'reparent', 'shift', 'drag', 'nest', 'refile'],
    publish: ['release', 'ship'],
    assign: ['grant', 'connect', 'link', 'hook'],
    test: ['trial', 'verify', 'debug'],
    start: ['launch', 'begin', 'trigger'],
    generate: ['produce'],
    ingest: ['upload', 'load', 'reimport'],
    crawl: ['spider', 'scrape'],
  },
  read: {
    get: ['fetch', 'read', 'open', 'view', 'inspect', 'retrieve'],
    list: ['browse', 'enumerate'],
    compare: ['diff', 'contrast', 'differ', 'difference'],
    export: ['dump', 'download'],
    wait: ['poll', 'await'],
  },
} satisfies Record<string, Record<string, string[]>>;

/**
 * Verbs that ask for a change. A request with none of them ("which folders does agent 7 use", "CSAT
 * per channel last month") wants to read: read tools rank above writes that share its nouns.
 */
const CHANGE_VERBS = new Set(
  [
    ...Object.entries(VERBS.change).flat(2),
    // Change verbs that lean to no one catalog verb.
    ...'make add build write rid clean fix replace deactivate disable enable turn put push apply give let attach import register record save store queue refresh try run execute kick rate mark approve vote thumb undo send ask simulate reply respond continue log persist commit accept confirm propose suggest organise organize bootstrap initialize copy clone branch fork'.split(
      ' ',
    ),
  ].map(stem),
);
/** How much more a read tool scores for a request that asks for no change. */
const READ_BOOST = 0.5;
/** The weight of the catalog word an everyday word leans to, against the word itself. */
const ALIAS_WEIGHT = 0.4;

/** A question ("did the jobs finish", "which drafts are pending") asks to read, whatever verbs it holds, unless it asks how to do something. */
const QUESTION = /^(?:what|which|who|when|where|why|did|does|do(?= (?:we|i|you|they)\b)|is|are|was|were|has|how(?! (?:do|can|should|would) (?:i|we)\b| to\b))\b/i;

/** A verb in the past ("conversations created since Monday", "the page I imported") describes what is there, and asks for nothing. */
const PAST = /^(?!.*eed$).{3,}ed$/;
const PAST_WEIGHT = 0.75;

/** Words that are verbs only where a request starts with them ("draft an article", but "the draft articles"). */
const IMPERATIVE =
  /^(?:(?:please|pls|now|next|then|also|ok|okay|so|(?:can|could|would) you|i (?:want|need|would like) to|i'd like to|let's|we need to|go and)[ ,:]+)*(?:draft|plan|file|stage|set|tag|label)\b/i;

/** Phrasal verbs whose words apart mean something else ("turn on" is no turn). */
const PHRASES: Array<[RegExp, string]> = [
  [/\b(turn|switch)(s|ed|ing)? on\b/g, 'enable'],
  [/\b(turn|switch)(s|ed|ing)? off\b/g, 'disable'],
  [/\b(kick|fire)(s|ed|ing)? off\b/g, 'start'],
  [/\b(get|got|getting) rid of\b/g, 'remove'],
  [/\b(clean|tidy|tear)(s|ed|ing)? up\b/g, 'remove'],
  [/\b(go|goes|went|going) live\b/g, 'publish'],
  [/\broll(s|ed|ing)? out\b/g, 'publish'],
  [/\b(pull(s|ed|ing)?|bring(s|ing)?|brought|suck(s|ed|ing)?) in\b/g, 'import'],
  [/\b(spin(s|ning)?|spun) up\b/g, 'create'],
  [/\b(hold|hang)(s|ing)? on\b/g, 'wait'],
  [/\bcheck(s|ed|ing)? (on|in on)\b/g, 'status'],
  [/\bdry[ -]run\b/g, 'test'],
  // "what actions are there", "which bots do we have": a listing.
  [/\b(are|is) there\b|\bdo (we|i) (have|got)\b/g, 'list'],
  // "let me see", "let me know": a wish, not a grant; "go ahead" asks for nothing.
  [/\blet me\b/g, ''],
  [/\bgo ahead\b/g, ''],
];

/** A web address or an API path in a request is a URL, whatever its words ("docs", "orders"); with a method before it, an HTTP call. */
const URLS = /(?<![\w/])(?:https?:\/\/\S+|(?:[a-z0-9-]+\.)+(?:com|io|org|net|dev|app|co|ai)\b\S*|\/[\w${}.-]+(?:\/[\w${}.-]*)+)/gi;
const HTTP_CALLS = /\b(?:GET|POST|PUT|PATCH|DELETE)\s+url\b/g;

/** Words of a text, lightly stemmed. */
function wordsOf(text: string): string[] {
  return tokensOf(text).map(stem);
}

/** Words of a text as written: camelCase and snake_case split, lowercased, stopwords dropped. */
function tokensOf(text: string): string[] {
  let lower = text
    .replace(URLS, ' url ')
    .replace(HTTP_CALLS, 'http url')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    // Fetching content again is a refresh (re-fetch, reimport, re-crawl); "re-publish" is a publish again.
    .replace(/\bre-?(fetch|import|ingest|crawl|pull|load|sync|scrape|process|index)(?=(?:es|s|ed|ing)?\b)/gi, 'refresh $1')
    .replace(/\bre-(?=[a-z])/gi, '')
    // v2, v10: a version.
    .replace(/\bv\d+\b/gi, 'version')
    .toLowerCase();
  for (const [phrase, word] of PHRASES) lower = lower.replace(phrase, word);
  return lower.split(/[^a-z0-9]+/).filter((word) => word.length > 1 && !STOPWORDS.has(word));
}

/**
 * Light stemming: plural, -ed/-ing, -ly and -ion endings and a final e, so delete, deleted, deleting
 * and deletion meet, as do weekly and week.
 */
function stem(word: string): string {
  let base = word;
  if (base.length > 4 && base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (base.length > 3 && base.endsWith('s') && !base.endsWith('ss')) base = base.slice(0, -1);
  if (base.length > 5 && base.endsWith('ing')) base = base.slice(0, -3);
  else if (base.length > 4 && base.endsWith('ed')) base = base.slice(0, -2);
  else if (base.length > 5 && base.endsWith('ly')) base = base.slice(0, -2);
  else if (base.length > 5 && /[st]ion$/.test(base)) base = base.slice(0, -3);
  if (base.length > 3 && base.endsWith('e')) base = base.slice(0, -1);
  return base;
}

interface Index {
  /** Per tool, each word's term frequency: summed over the fields, each field's weighted and normalised by its length. */
  documents: Map<ToolDefinition, Map<string, number>>;
  /** Inverse document frequency: a word that few tools carry tells more. */
  idf: Map<string, number>;
  /** The catalog's words as written, by first letter, which a mistyped query word is matched against. */
  spellings: Map<string, string[]>;
  /** Stemmed everyday words, each with the catalog word it also means (erase: delete, confluence: wiki). */
  aliases: Map<string, { meaning: string; weight: number }>;
}

const indexes = new WeakMap<ToolGroup[], Index>();

function indexOf(catalog: ToolGroup[]): Index {
  let index = indexes.get(catalog);
  if (index) return index;
  const tools = catalog.flatMap((group) => group.tools);
  // Another tool named in a description ("ids from list_folders") says nothing about this one.
  const toolNames = new RegExp(`\\b(${tools.map((tool) => tool.name).join('|')})\\b`, 'g');
  const verbs = Object.entries({ ...VERBS.change, ...VERBS.read }).flatMap(([verb, synonyms]) => synonyms.map((synonym) => [synonym, verb]));
  const names = catalog.flatMap((group) => Object.entries(group.aliases ?? {}));
  const fieldsByTool = new Map<ToolDefinition, Record<Field, string[]>>();
  const totalLength = Object.fromEntries(FIELDS.map((field) => [field, 0])) as Record<Field, number>;
  for (const group of catalog) {
    for (const tool of group.tools) {
      const fields: Record<Field, string[]> = {
        name: wordsOf(tool.name),
        title: wordsOf(tool.title),
        words: wordsOf(tool.words ?? ''),
        description: wordsOf(tool.description.replace(toolNames, '')),
        fields: Object.entries(objectShape(tool.input)).flatMap(([field, schema]) => wordsOf(`${field} ${schema.description ?? ''}`)),
        group: wordsOf(`${group.name} ${group.description}`),
      };
      fieldsByTool.set(tool, fields);
      for (const field of FIELDS) totalLength[field] += fields[field].length;
    }
  }
  const documents = new Map<ToolDefinition, Map<string, number>>();
  const documentFrequency = new Map<string, number>();
  for (const [tool, fields] of fieldsByTool) {
    const frequencies = new Map<string, number>();
    for (const field of FIELDS) {
      const averageLength = totalLength[field] / fieldsByTool.size || 1;
      const weight = FIELD_WEIGHTS[field] / (1 - B + (B * fields[field].length) / averageLength);
      for (const word of fields[field]) frequencies.set(word, (frequencies.get(word) ?? 0) + weight);
    }
    documents.set(tool, frequencies);
    for (const word of frequencies.keys()) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  }
  const total = documents.size;
  const idf = new Map([...documentFrequency].map(([word, count]) => [word, Math.log(1 + (total - count + 0.5) / (count + 0.5))]));
  const aliases = new Map([
    // A verb only leans to the catalog's verb: "produced" may describe a thing rather than ask for it.
    ...verbs.map(([word, verb]) => [stem(word), { meaning: stem(verb), weight: ALIAS_WEIGHT }] as const),
    // A name the catalog never uses (a product) stands for what it names; another name only leans to it.
    ...names.map(([word, meaning]) => [stem(word), { meaning: stem(meaning), weight: idf.has(stem(word)) ? ALIAS_WEIGHT : 1 }] as const),
  ]);
  const spellings = new Map<string, string[]>();
  for (const word of new Set([
    ...tools.flatMap((tool) => tokensOf(`${tool.name} ${tool.title} ${tool.words ?? ''} ${tool.description} ${Object.keys(objectShape(tool.input)).join(' ')}`)),
    ...[...verbs, ...names].map(([word]) => word),
  ])) {
    spellings.set(word[0]!, [...(spellings.get(word[0]!) ?? []), word]);
  }
  index = { documents, idf, spellings, aliases };
  indexes.set(catalog, index);
  return index;
}

/**
 * A query word the catalog never uses, one slip away from a word it does, is read as that word:
 * two letters swapped ("artciles"), or in a longer word one letter missing or extra ("delte"), or
 * wrong, in that order of likelihood ("repaly" is replay before reply). The first and last letters
 * must hold: changing them makes other real words (cover, over).
 */
function corrected(word: string, index: Index): string {
  const candidates = index.spellings.get(word[0]!) ?? [];
  if (word.length < 4 || candidates.includes(word) || index.idf.has(stem(word))) return word;
  let best = word;
  let bestSlip = NO_SLIP;
  for (const known of candidates) {
    const slip = slipBetween(word, known);
    if (slip < bestSlip) [best, bestSlip] = [known, slip];
  }
  return best;
}

/** How unlikely a slip from the known word to the typed one is: 1 swapped, 2 missing or extra, 3 wrong, else none. */
const NO_SLIP = Infinity;

function slipBetween(typed: string, known: string): number {
  const length = Math.min(typed.length, known.length);
  if (Math.abs(typed.length - known.length) > 1 || length < 4) return NO_SLIP;
  let at = 0;
  while (at < length && typed[at] === known[at]) at++;
  if (at === 0 || at >= length - 1) return NO_SLIP;
  if (typed.length === known.length && typed[at] === known[at + 1] && typed[at + 1] === known[at] && typed.slice(at + 2) === known.slice(at + 2)) return 1;
  if (typed.length > known.length) return length >= 5 && typed.slice(at + 1) === known.slice(at) ? 2 : NO_SLIP;
  if (typed.length < known.length) return length >= 5 && typed.slice(at) === known.slice(at + 1) ? 2 : NO_SLIP;
  return length >= 6 && typed.slice(at + 1) === known.slice(at + 1) ? 3 : NO_SLIP;
}

/** Tools ranked by BM25F score for the query; tools that share no word with it are left out. */
export function rankTools(catalog: ToolGroup[], query: string, candidates: CatalogTool[]): CatalogTool[] {
  const index = indexOf(catalog);
  const terms = new Map<string, number>();
  const weigh = (word: string, weight: number) => terms.set(word, Math.max(terms.get(word) ?? 0, weight));
  // The words not in the past: only they can ask for a change.
  const present = new Set<string>();
  for (const written of new Set(tokensOf(query))) {
    const token = corrected(written, index);
    const word = stem(token);
    const alias = index.aliases.get(word);
    const past = PAST.test(token);
    weigh(word, past ? PAST_WEIGHT : 1);
    if (alias) weigh(alias.meaning, alias.weight * (past ? PAST_WEIGHT : 1));
    if (!past) for (const meant of alias ? [word, alias.meaning] : [word]) present.add(meant);
  }
  // "does it work? test it": a request after the question mark is what is asked.
  const asks = QUESTION.test(query.trim()) && !/\?.*[a-z]/i.test(query);
  const readIntent = asks || (!IMPERATIVE.test(query.trim()) && ![...present].some((word) => CHANGE_VERBS.has(word)));
  const scored = candidates.map((tool) => {
    const frequencies = index.documents.get(tool);
    let score = 0;
    for (const [word, weight] of frequencies ? terms : []) {
      const frequency = frequencies!.get(word);
      if (frequency) score += (weight * index.idf.get(word)! * frequency) / (frequency + K1);
    }
    return { tool, score: readIntent && tool.scope === 'read' ? score * (1 + READ_BOOST) : score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.tool);
}
