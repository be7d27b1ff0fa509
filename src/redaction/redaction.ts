/**
 * Redaction: finding a secret in text, in every form it may take, and masking it. A session's API
 * key (`keyRedaction`) and the secrets a caller passed (`secretRedaction`) each have one; the
 * engine redacts tool results with them (engine/render/redact.ts), and every log line and error text is
 * redacted of every live key (live-keys.ts).
 */

/** What a redacted secret shows instead. */
export const MASK = '********';

/**
 * One quick test of the "nothing to mask" check: `pattern` may be there. With `whenContains`, only
 * texts holding one of those literals (a mark every form it finds carries) are searched.
 */
interface Check {
  pattern: RegExp;
  whenContains?: readonly string[];
}

/**
 * Finds and masks secrets in text. `appears` is the fast "nothing to mask" test every result
 * passes, so its checks are written for V8's regex engine: plain literals and fixed-length
 * patterns it finds by skipping ahead, and patterns with optional parts (which it must try at every
 * position) only for forms that need them, or behind a literal every such form contains. One
 * alternation of all the forms was over ten times slower on a page of conversations. Each check
 * matches at least the part of a form that `mask` masks; `mask` runs only after a hit.
 */
export class Redaction {
  constructor(
    private readonly checks: readonly Check[],
    private readonly masks: readonly Mask[],
  ) {}

  appears(text: string): boolean {
    return this.checks.some((check) => (!check.whenContains || check.whenContains.some((mark) => text.includes(mark))) && check.pattern.test(text));
  }

  redact(text: string): string {
    return this.appears(text) ? this.masks.reduce((masked, mask) => mask.mask(masked), text) : text;
  }
}

/** Masks every occurrence of one secret's form in a text. */
interface Mask {
  mask(text: string): string;
}

/**
 * What may stand between two characters of a split key: up to 16 of anything but letters, digits
 * and backslashes (spaces, NBSP, line breaks, `", "`, dots, dashes), JSON escapes of such
 * (`\n`, `\u00a0`, and those escaped again in serialised JSON), and the index a string's characters get in an object of them (`"1":`, `1: `).
 * Lazy, so that a character of the key that may also separate (`_`, `-`) is taken as the key's first.
 */
const GAP = String.raw`(?:[^A-Za-z0-9\\]|\\{1,2}(?:[nrtbf"/]|u[0-9A-Fa-f]{4})|\\\\|\d{1,4}"?:){0,16}?`;

/** Any run of this many characters of the key's body, in any listed form, is the key: a key cut short, or without its first characters, too. */
const RUN = 12;
/** How many units the quick check of a split form looks for: every run of RUN units holds one of these anchors whole. */
const ANCHOR = 4;

/**
 * One form of the key as units (a regex source per character, per byte for hex, per character of
 * base64) and what may join them. A run of `least` consecutive units (starting at a multiple of
 * `step`) is masked, with the units around it as far as the key goes on either side and the head
 * before its first unit. `anchor` units are what the quick check looks for.
 */
interface Form {
  head: string[];
  units: string[];
  joiner: string;
  least: number;
  step: number;
  anchor: number;
}

/** A form's sticky patterns, and `find` for any of its anchors (see CompiledForm). */
interface Patterns {
  find: RegExp;
  /** Each anchor alone, sticky: the same text may be several anchors of a key that repeats itself. */
  anchors: RegExp[];
  /** Sticky: each unit alone, the joiner before it (`next`), or it and the joiner after it, looking behind (`previous`). */
  units: RegExp[];
  next: RegExp[];
  previous: RegExp[];
  head?: RegExp;
}

/**
 * A form compiled. The quick check and `find` look for anchors (small patterns V8 scans fast; one
 * alternation of every whole window took milliseconds a text); each anchor found is grown unit by
 * unit, forward with `next[k]` (the joiner, then unit k) and backward with `previous[k]` (unit k,
 * then the joiner, as a look-behind), and masked when it reaches `least` units.
 */
class CompiledForm implements Mask {
  readonly check: string;
  private readonly anchorStarts: number[];
  private readonly least: number;
  private readonly anchorSources: string[];
  /**
   * Built by the first mask, which runs only after a hit: the hundreds of patterns of a key's
   * forms took about 2 ms of every start (and of every HTTP session's new key), and most
   * processes never mask anything.
   */
  private built?: Patterns;

  constructor(private readonly form: Form) {
    this.least = Math.min(form.least, form.units.length);
    const anchorLength = Math.min(form.anchor, this.least);
    this.anchorStarts = anchorStarts(this.least, anchorLength, form.units.length, form.step);
    this.anchorSources = this.anchorStarts.map((start) => form.units.slice(start, start + anchorLength).join(form.joiner));
    this.check = this.anchorSources.join('|');
  }

  private get patterns(): Patterns {
    const { head, units, joiner } = this.form;
    this.built ??= {
      find: new RegExp(this.check, 'g'),
      anchors: this.anchorSources.map((source) => new RegExp(source, 'y')),
      units: units.map((unit) => new RegExp(unit, 'y')),
      next: units.map((unit) => new RegExp(`(${joiner})${unit}`, 'y')),
      previous: units.map((unit) => new RegExp(`(?<=(${unit}(${joiner})))`, 'y')),
      head: head.length ? new RegExp(`(?<=(${head.join(joiner)}${joiner}))`, 'y') : undefined,
    };
    return this.built;
  }

  /** The text with every run of the key found masked, from the head (when there) to its last unit. */
  mask(text: string): string {
    const patterns = this.patterns;
    const { find } = patterns;
    let out = '';
    let last = 0;
    find.lastIndex = 0;
    for (let match = find.exec(text); match; match = find.exec(text)) {
      const run = this.longestRunAt(patterns, text, match.index);
      if (!run) {
        find.lastIndex = match.index + 1;
        continue;
      }
      out += text.slice(last, Math.max(run.start, last)) + MASK;
      last = run.end;
      find.lastIndex = run.end;
    }
    return last === 0 ? text : out + text.slice(last);
  }

  /**
   * The longest run of at least `least` units grown from an anchor at `at`, or undefined. A unit at
   * either end that is apart from the run but glued to other letters or digits is given back: it
   * ends a word of its own ("before" ending in the key's next character), not the key.
   */
  private longestRunAt({ anchors, units, next, previous, head: headPattern }: Patterns, text: string, at: number): { start: number; end: number } | undefined {
    let best: { start: number; end: number; units: number } | undefined;
    this.anchorStarts.forEach((anchorStart, index) => {
      if (!execAt(anchors[index], text, at) || !execAt(units[anchorStart], text, at)) return;
      let first = anchorStart;
      const run = [{ start: at, end: units[anchorStart].lastIndex }];
      for (let unit = anchorStart + 1; unit < next.length; unit++) {
        const step = execAt(next[unit], text, run.at(-1)!.end);
        if (!step) break;
        run.push({ start: run.at(-1)!.end + step[1].length, end: next[unit].lastIndex });
      }
      for (; first > 0; first--) {
        const step = execAt(previous[first - 1], text, run[0].start);
        if (!step) break;
        run.unshift({ start: run[0].start - step[1].length, end: run[0].start - step[2].length });
      }
      while (run.length > 1 && run[1].start > run[0].end && gluedBefore(text, run[0].start)) {
        run.shift();
        first++;
      }
      while (run.length > 1 && run.at(-1)!.start > run.at(-2)!.end && isWordCharacter(text, run.at(-1)!.end)) run.pop();
      const head = first === 0 && headPattern ? execAt(headPattern, text, run[0].start) : null;
      const start = run[0].start - (head ? head[1].length : 0);
      if (run.length >= this.least && (!best || run.length > best.units)) best = { start, end: run.at(-1)!.end, units: run.length };
    });
    return best;
  }
}

/** A sticky pattern's match at `index`. */
function execAt(pattern: RegExp, text: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(text);
}

function isWordCharacter(text: string, index: number): boolean {
  return WORD_CHARACTER.test(text.charAt(index));
}

/** Whether the character before `index` is a letter or digit of a word, not the end of a JSON escape (`\u00a0`, `\n`) that separates. */
function gluedBefore(text: string, index: number): boolean {
  return isWordCharacter(text, index - 1) && !ESCAPE_BEFORE.test(text.slice(Math.max(0, index - 6), index));
}

const ESCAPE_BEFORE = /\\{1,2}(?:u[0-9A-Fa-f]{4}|[nrtbf])$/;

const WORD_CHARACTER = /[A-Za-z0-9]/;

/** A secret's forms as one pattern: every match masked. */
class PatternMask implements Mask {
  private readonly pattern: RegExp;

  constructor(sources: readonly string[]) {
    this.pattern = new RegExp(sources.join('|'), 'g');
  }

  mask(text: string): string {
    return text.replace(this.pattern, MASK);
  }
}

/**
 * Where anchors of `length` units start so that every window of `window` units (starting at a
 * multiple of `step`) holds one whole: at every window start when an anchor is the whole window,
 * else spaced so that no window falls between two.
 */
function anchorStarts(window: number, length: number, total: number, step: number): number[] {
  const spacing = length === window ? step : window - length + 1;
  const starts: number[] = [];
  for (let start = 0; start + length <= total; start += spacing) starts.push(start);
  const lastWindow = Math.floor((total - window) / step) * step;
  if (length < window && starts.at(-1)! < lastWindow) starts.push(total - length);
  return starts;
}

/**
 * Every form the server can compute from its API key, found in any case; design 10.2's list is the
 * floor. Any run of 12 characters of the key's body (a key cut short, or without its first
 * characters, or in two fields, is still a leak), in any of these forms:
 * - as given, bare (without `svc_`) or case-changed, with any separators between its characters
 *   (spaces, NBSP, line breaks, `", "`, dots, dashes: see GAP), which also finds an array or an
 *   object of its characters as JSON or our own text renders it;
 * - percent-encoded once or twice (any characters, upper or lower hex) and JSON-escaped (`\u0073`,
 *   also as serialised JSON shows it, `\\u0073`), mixed freely;
 * - hex, lower or upper case, with any separators between its bytes;
 * - base64 and base64url (standard or URL alphabet, with or without padding), also inside a longer
 *   encoded string: at each of the three byte alignments, the text the key's bytes decide.
 * The mask takes the prefix too when it is there, and the rest of the key as far as it goes on.
 * Computed once per key.
 */
export function keyRedaction(apiKey: string): Redaction {
  let redaction = recentKeys.get(apiKey);
  if (redaction) recentKeys.delete(apiKey);
  else redaction = buildKeyRedaction(apiKey);
  recentKeys.set(apiKey, redaction);
  if (recentKeys.size > RECENT_KEYS) recentKeys.delete(recentKeys.keys().next().value!);
  return redaction;
}

/**
 * The redactions of the keys seen last, so that a stateless HTTP request (a session each) does not
 * build its key's patterns again: building takes a few hundred microseconds, and V8 compiles the
 * mask (milliseconds) once per pattern object, on its first hit.
 */
const recentKeys = new Map<string, Redaction>();
const RECENT_KEYS = 64;

function buildKeyRedaction(apiKey: string): Redaction {
  const prefix = /^svc_/i.exec(apiKey)?.[0] ?? '';
  const bare = apiKey.slice(prefix.length);
  // Without its prefix, a very short remainder could match ordinary text: the whole key is the unit then.
  const [head, body] = bare.length >= 8 ? [prefix, bare] : ['', apiKey];
  const plain: Form = { head: chars(head).map(literalAnyCase), units: chars(body).map(literalAnyCase), joiner: GAP, least: RUN, step: 1, anchor: ANCHOR };
  // The same, where the key's digits are told apart from an object's indexes (`15: 1`): found by the plain form's check.
  const indexed = new CompiledForm({ ...plain, units: chars(body).map(unindexedCharacter) });
  const escapes: Form = { head: chars(head).map(escapedChar), units: chars(body).map(escapedChar), joiner: '', least: RUN, step: 1, anchor: ANCHOR };
  const hex: Form = { head: hexBytes(head), units: hexBytes(body), joiner: GAP, least: Buffer.from(body.slice(0, RUN)).length, step: 1, anchor: ANCHOR };
  // 16 characters of base64 are 12 bytes, at each of the three alignments. The whole key's encoding
  // is found by its body's; it is masked as a whole too, so that the prefix goes with it.
  const base64 = (text: string) => [0, 1, 2].map((skip) => new CompiledForm({ head: [], units: base64Units(text, skip), joiner: '', least: 16, step: 4, anchor: 16 }));
  const split = [plain, hex].map((form) => new CompiledForm(form));
  const escaped = new CompiledForm(escapes);
  const encoded = base64(body);
  return new Redaction(
    [
      { pattern: new RegExp(split.map((form) => form.check).join('|')) },
      // An escaped form holds at least one `%XY` or `\u`: only then is the slower pattern tried.
      { pattern: new RegExp(escaped.check), whenContains: ['\\u', '%25', ...new Set(chars(body).flatMap(percentMarks))] },
      { pattern: new RegExp(encoded.map((form) => form.check).join('|')) },
    ],
    [escaped, indexed, ...split, ...(head ? base64(head + body) : []), ...encoded],
  );
}

/** The first three characters of a character's percent-encoding, in both hex cases: `%3` for "0", `%6` for "a", `%C`/`%c` for "é". */
function percentMarks(char: string): string[] {
  const mark = `%${Buffer.from(char)[0].toString(16).padStart(2, '0')[0]}`;
  return [mark, mark.toUpperCase()];
}

/** Each byte of the text's UTF-8 as two hex digits, in any case. */
function hexBytes(text: string): string[] {
  return [...Buffer.from(text)].map((byte) => anyCase(byte.toString(16).padStart(2, '0')));
}

/** base64 of `text`'s bytes from `skip` on, as it shows inside any longer encoding starting on a group boundary there; standard and URL alphabets alike, padding optional. */
function base64Units(text: string, skip: number): string[] {
  const encoded = Buffer.from(text).subarray(skip).toString('base64').replace(/=+$/, '');
  return [...chars(encoded).map((char) => (char === '+' ? '[+-]' : char === '/' ? '[/_]' : char)), '={0,2}'];
}

/**
 * The secrets a caller passed: as given in any case, percent-encoded and JSON-escaped. Not split
 * or re-encoded: such a secret may be short, and those forms of it would match ordinary text.
 */
export function secretRedaction(secrets: readonly string[]): Redaction | undefined {
  if (secrets.length === 0) return undefined;
  const sources = [...new Set(secrets)].sort((a, b) => b.length - a.length).map((secret) => chars(secret).map(escapedChar).join(''));
  return new Redaction([{ pattern: new RegExp(sources.join('|')) }], [new PatternMask(sources)]);
}

function chars(text: string): string[] {
  return Array.from(text);
}

/** One character as itself in any case, percent-encoded (UTF-8, either hex case) or JSON-escaped (`\uXXXX`, its backslash maybe escaped again). */
function escapedChar(char: string): string {
  // Percent-encoded once, or twice (`%2573`: an encoded URL encoded again as a parameter).
  const forms = new Set([anyCase(escapeRegExp(char)), anyCase(percentEncoded(char)), anyCase(percentEncoded(char).replaceAll('%', '%25'))]);
  const units = Array.from({ length: char.length }, (_, index) => char.charCodeAt(index).toString(16).padStart(4, '0'));
  forms.add(units.map((unit) => `\\\\{1,2}u${anyCase(unit)}`).join(''));
  const json = JSON.stringify(char).slice(1, -1);
  if (json !== char) forms.add(`\\\\?${escapeRegExp(json)}`);
  return `(?:${[...forms].join('|')})`;
}

function percentEncoded(char: string): string {
  return [...Buffer.from(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** A character of a split key where a digit is not one of an object's index (`15: `, `"15":`), which GAP takes instead. */
function unindexedCharacter(char: string): string {
  return /\d/.test(char) ? `${char}(?!\\d*(?:: |":))` : literalAnyCase(char);
}

function literalAnyCase(char: string): string {
  return anyCase(escapeRegExp(char));
}

function anyCase(text: string): string {
  return text.replace(/[a-z]/gi, (char) => `[${char.toLowerCase()}${char.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
