/**
 * Redaction: finding a secret in text, in every form it may take, and masking it. A session's API
 * key (`keyRedaction`) and the secrets a caller passed (`secretRedaction`) each have one; the
 * engine redacts tool results with them (engine/secrets.ts), and every log line and error text is
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
  private readonly mask: RegExp;

  constructor(
    private readonly checks: readonly Check[],
    maskSources: readonly string[],
  ) {
    this.mask = new RegExp(maskSources.join('|'), 'g');
  }

  appears(text: string): boolean {
    return this.checks.some((check) => (!check.whenContains || check.whenContains.some((mark) => text.includes(mark))) && check.pattern.test(text));
  }

  redact(text: string): string {
    return this.appears(text) ? text.replace(this.mask, MASK) : text;
  }
}

/** Separators a key may be split by, one between any two characters. */
const SPLIT = '[ .\\-]?';

/**
 * How many characters of the key's body a leading part must show to be masked: a string cut short
 * (the result cap, the compact view) may end inside a key, and what it shows is masked too.
 */
const LEADING_CHARS = 12;

/**
 * Every form the server can compute from its API key, found in any case:
 * - as given, bare (without `svc_`), percent-encoded once or twice (any characters, upper or lower hex) and
 *   JSON-escaped (`\u0073`, also as serialised JSON shows it, `\\u0073`), mixed freely;
 * - split by spaces, dashes or dots between characters;
 * - base64 and base64url (standard or URL alphabet, with or without padding), also inside a
 *   longer encoded string: at each of the three byte alignments, the text the key's bytes decide;
 * - hex, lower or upper case;
 * and any leading part of these that shows at least 12 characters of the key's body. The checks
 * look for the body's forms, so a prefix changed or cut off still matches; the mask takes the
 * prefix too when it is there. Computed once per session.
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
  const window = body.slice(0, LEADING_CHARS);
  const windowBytes = Buffer.from(window).length;
  const escapes = leading(chars(head).map(escapedChar), chars(body).map(escapedChar), '', window.length);
  const split = leading(chars(head).map(literalAnyCase), chars(body).map(literalAnyCase), SPLIT, window.length);
  const hex = leading(hexUnits(head), hexUnits(body), '', 2 * windowBytes);
  const base64 = [0, 1, 2].map((skip) => leading([], base64Units(body, skip), '', 4 * Math.ceil(windowBytes / 3)));
  // Base64 of the whole key: its alignments differ from the body's, and it masks the prefix too.
  const wholeBase64 = head ? [0, 1, 2].map((skip) => leading([], base64Units(head + body, skip), '', 4 * Math.ceil(Buffer.from(head + window).length / 3))) : [];
  const hexText = Buffer.from(window).toString('hex');
  const literals = [
    hexText,
    hexText.toUpperCase(),
    ...[0, 1, 2].flatMap((skip) => {
      const encoded = Buffer.from(body)
        .subarray(skip)
        .toString('base64')
        .slice(0, 4 * Math.ceil(windowBytes / 3));
      return [encoded, encoded.replace(/\+/g, '-').replace(/\//g, '_')];
    }),
  ];
  return new Redaction(
    [
      { pattern: new RegExp(split.check) },
      // An escaped form holds at least one `%XY` or `\u`: only then is the slower pattern tried.
      { pattern: new RegExp(escapes.check), whenContains: ['\\u', '%25', ...new Set(chars(window).flatMap(percentMarks))] },
      ...[...new Set(literals)].map((literal) => ({ pattern: new RegExp(escapeRegExp(literal)) })),
    ],
    [escapes.mask, split.mask, hex.mask, ...wholeBase64.map((form) => form.mask), ...base64.map((form) => form.mask)],
  );
}

/** The first three characters of a character's percent-encoding, in both hex cases: `%3` for "0", `%6` for "a", `%C`/`%c` for "é". */
function percentMarks(char: string): string[] {
  const mark = `%${Buffer.from(char)[0].toString(16).padStart(2, '0')[0]}`;
  return [mark, mark.toUpperCase()];
}

/**
 * A form as units (one pattern per character): `check` is its first `least` body units, which
 * any leading part worth masking contains; `mask` is the optional head, those units, and as many
 * more as follow in order.
 */
function leading(head: string[], body: string[], joiner: string, least: number): { check: string; mask: string } {
  const count = Math.min(least, body.length);
  const check = body.slice(0, count).join(joiner);
  const rest = body.slice(count).reduceRight((tail, unit) => `(?:${joiner}${unit}${tail})?`, '');
  const optionalHead = head.length ? `(?:${head.join(joiner)}${joiner})?` : '';
  return { check, mask: `${optionalHead}${check}${rest}` };
}

function hexUnits(text: string): string[] {
  return chars(Buffer.from(text).toString('hex')).map(anyCase);
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
  return new Redaction([{ pattern: new RegExp(sources.join('|')) }], sources);
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

function anyCase(text: string): string {
  return text.replace(/[a-z]/gi, (char) => `[${char.toLowerCase()}${char.toUpperCase()}]`);
}

/** A character of the key as itself in any case: a `.` in it is a dot, never any character (it masked `SVC_BAS` of `SVC_BASE_URL` for the key `svc_...`). */
function literalAnyCase(char: string): string {
  return anyCase(escapeRegExp(char));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
