/**
 * Characters that make text look other than it is, and the one way every text a person or a model
 * reads shows them: as an escape (`\u202E`). Results, previews, elicitation messages, the OAuth
 * consent page and pretty log lines all come here, so a character hidden from one is hidden from none.
 *
 * Escaped: controls (Cc: C0, DEL, C1); format characters (Cf: bidi controls, zero-width characters,
 * the soft hyphen, tag characters); the line and paragraph separators (Zl, Zp); every default
 * ignorable code point, which renders as nothing (variation selectors U+FE00-FE0F and
 * U+E0100-E01EF, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, U+034F, the Khmer and
 * Mongolian invisibles); and U+2800, the blank Braille pattern that passes for a space. A 32-byte
 * instruction written as variation selectors after an emoji shows as 32 escapes, not as nothing.
 * Other spaces (Zs: no-break, en, em, thin, ideographic...) read as what they look like, a space.
 */
const HIDDEN = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800`;
const SPACES = String.raw`\p{Zs}`;

/** A hidden character or a space other than U+0020, as a pattern source to compose: what one-line text shows differently. */
export const SHOWN_DIFFERENTLY = `(?! )[${HIDDEN}${SPACES}]`;
const ONE_LINE = new RegExp(SHOWN_DIFFERENTLY, 'gu');
/** The same, but the line feeds that lay a text out in lines. */
const IN_LINES = new RegExp(`(?![ \\n])[${HIDDEN}${SPACES}]`, 'gu');
const IN_LINES_TEST = new RegExp(IN_LINES.source, 'u');
const A_SPACE = new RegExp(`^${SPACES}$`, 'u');
const INVISIBLE_RUN = new RegExp(`[${HIDDEN}${SPACES}]+`, 'gu');

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A character as its escape; one beyond U+FFFF (a tag character) as its two UTF-16 units, the form JSON also reads. */
function escaped(char: string): string {
  const known = ESCAPES[char];
  if (known) return known;
  let shown = '';
  for (let index = 0; index < char.length; index++) shown += `\\u${char.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
  return shown;
}

const readAsSpace = (char: string) => (A_SPACE.test(char) ? ' ' : escaped(char));

/** Text on one line, as a person reads it: every hidden character escaped, line breaks included, every other space a plain one. */
export function showHiddenOnOneLine(text: string): string {
  return text.replace(ONE_LINE, readAsSpace);
}

/**
 * Text laid out in lines whose exact characters matter (a preview's request, an elicitation's
 * question): line feeds kept, every hidden character and every space but U+0020 escaped, so that a
 * preview's JSON still reads back as exactly what is sent.
 */
export function showHiddenInLines(text: string): string {
  return text.replace(IN_LINES, escaped);
}

/** Anything outside printable ASCII and line feeds: the one quick search before the exact pattern. */
const NOT_PLAIN_LINES = /[^\n\x20-\x7e]/;

/** Whether `showHiddenInLines` would change the text. */
export function hasHiddenInLines(text: string): boolean {
  return NOT_PLAIN_LINES.test(text) && IN_LINES_TEST.test(text);
}

/**
 * A name someone gave themselves (an OAuth client's), as a page shows it: on one line, hidden
 * characters escaped, runs of spaces as one. Undefined when nothing visible is left, so that the
 * page says the application has no name rather than show an empty or invisible one.
 */
export function visibleName(name: string | undefined): string | undefined {
  if (name === undefined || name.replace(INVISIBLE_RUN, '') === '') return undefined;
  return showHiddenOnOneLine(name.trim()).replace(/ {2,}/g, ' ');
}
