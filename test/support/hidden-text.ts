/**
 * Text that can disguise itself (design §10.5): bidirectional controls reorder what a reader sees,
 * zero-width characters and other invisible ones hide inside words. The server must show each escaped, as `\u202E`.
 */
import fc from 'fast-check';

/** Bidirectional controls: marks, embeddings, overrides and isolates (Unicode's Bidi_Control property). */
export const BIDI_CONTROLS = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
/** Zero-width characters: space, non-joiner, joiner, word joiner, and the BOM as a zero-width no-break space. */
export const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff'];
/** What else renders as nothing (issue 32): variation selectors (a 32-byte instruction hides after an emoji), Hangul fillers, the blank Braille pattern, the combining grapheme joiner. */
export const INVISIBLE = ['\ufe00', '\ufe0f', '\u{e0100}', '\u{e01ef}', '\u3164', '\uffa0', '\u115f', '\u1160', '\u2800', '\u034f'];
export const HIDDEN = [...BIDI_CONTROLS, ...ZERO_WIDTH, ...INVISIBLE];

const HIDDEN_PATTERN = new RegExp(`[${HIDDEN.join('')}]`, 'u');

/** How the contract shows a character: `\u202E` (hex digits in either case accepted). */
export const escapeOf = (char: string) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Words with hidden characters in and around them; always at least one hidden character. */
export function disguisedText(): fc.Arbitrary<string> {
  const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{1,8}$/);
  const hidden = fc.constantFrom(...HIDDEN);
  return fc
    .array(fc.oneof(word, hidden, fc.constant(' ')), { minLength: 1, maxLength: 10 })
    .chain((pieces) => hidden.map((one) => [...pieces, one]))
    .chain((pieces) => fc.shuffledSubarray(pieces, { minLength: pieces.length, maxLength: pieces.length }))
    .map((pieces) => pieces.join(''));
}

/** The hidden characters `text` holds as they are (none when it shows them all escaped). */
export function rawHidden(text: string): string[] {
  return [...new Set([...text].filter((char) => HIDDEN_PATTERN.test(char)))].map(escapeOf);
}

/** The hidden characters of `input` that `shown` does not show as an escape. */
export function notShownEscaped(input: string, shown: string): string[] {
  const lower = shown.toLowerCase();
  return [...new Set([...input].filter((char) => HIDDEN_PATTERN.test(char)))].map(escapeOf).filter((shownAs) => !lower.includes(shownAs.toLowerCase()));
}
