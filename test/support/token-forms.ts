/**
 * Re-encodings of a confirmation token (design §10.1): forms that a lenient parser could read as
 * the same token, and that a spent-token record keyed on the text would count as a new one. A token
 * is `<expiry, base 36>.<nonce, base64url>.<MAC, base64url>` as the server issued it; these tests
 * know that much of its shape, and nothing of how the server checks it.
 */
import fc from 'fast-check';

export interface TokenForm {
  name: string;
  text: string;
}

const WHITESPACE = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u200b', '\v', '\f'];

/** Other base64url spellings of `part` that decode to the same bytes (the unused low bits of its last character set). */
export function base64Alternates(part: string): string[] {
  const bytes = Buffer.from(part, 'base64url');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return [...alphabet].map((last) => part.slice(0, -1) + last).filter((spelling) => spelling !== part && Buffer.from(spelling, 'base64url').equals(bytes));
}

/** A change to the parts of a token; a form whose dots an earlier change hid keeps its text. */
function byParts(token: string, change: (expiry: string, nonce: string, mac: string) => fc.Arbitrary<TokenForm>): fc.Arbitrary<TokenForm> {
  const parts = token.split('.');
  return parts.length === 3 ? change(parts[0], parts[1], parts[2]) : fc.constant({ name: 'unchanged', text: token });
}

const percent = (char: string, lower: boolean) => {
  const code = `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  return lower ? code : code.toUpperCase();
};

/** One change to a token that keeps what it decodes to, or changes only its letter case. */
type Change = (token: string) => fc.Arbitrary<TokenForm>;

const changes: Change[] = [
  (token) =>
    byParts(token, (expiry, nonce, mac) => fc.integer({ min: 1, max: 4 }).map((zeros) => ({ name: `${zeros} leading zero(s) in the expiry`, text: `${'0'.repeat(zeros)}${expiry}.${nonce}.${mac}` }))),
  (token) => byParts(token, (expiry, nonce, mac) => fc.constant({ name: 'expiry upper case', text: `${expiry.toUpperCase()}.${nonce}.${mac}` })),
  (token) => byParts(token, (expiry, nonce, mac) => fc.constant({ name: 'expiry in decimal', text: `${Number.parseInt(expiry, 36)}.${nonce}.${mac}` })),
  (token) => byParts(token, (expiry, nonce, mac) => fc.constant({ name: 'expiry with a plus sign', text: `+${expiry}.${nonce}.${mac}` })),
  (token) =>
    byParts(token, (expiry, nonce, mac) => {
      const alternates = [
        ...base64Alternates(nonce).map((spelling) => ({ name: 'nonce spelt otherwise, same bytes', text: `${expiry}.${spelling}.${mac}` })),
        ...base64Alternates(mac).map((spelling) => ({ name: 'MAC spelt otherwise, same bytes', text: `${expiry}.${nonce}.${spelling}` })),
      ];
      return alternates.length ? fc.constantFrom(...alternates) : fc.constant({ name: 'MAC with padding', text: `${token}=` });
    }),
  (token) =>
    byParts(token, (expiry, nonce, mac) => {
      const standard = (part: string) => part.replace(/-/g, '+').replace(/_/g, '/');
      const padded = (part: string) => part + '='.repeat((4 - (part.length % 4)) % 4);
      return fc.constantFrom(
        { name: 'standard base64 alphabet', text: `${expiry}.${standard(nonce)}.${standard(mac)}` },
        { name: 'base64 padding', text: `${expiry}.${padded(nonce)}.${padded(mac)}` },
        { name: 'standard base64, padded', text: `${expiry}.${padded(standard(nonce))}.${padded(standard(mac))}` },
      );
    }),
  (token) =>
    fc.integer({ min: 0, max: token.length - 1 }).map((index) => {
      const char = token[index];
      const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
      return { name: `case of character ${index} changed`, text: token.slice(0, index) + flipped + token.slice(index + 1) };
    }),
  (token) => fc.constant({ name: 'upper case', text: token.toUpperCase() }),
  (token) =>
    fc.tuple(fc.constantFrom(...WHITESPACE), fc.constantFrom('before', 'after', 'both')).map(([space, where]) => ({
      name: `${JSON.stringify(space)} ${where}`,
      text: `${where === 'after' ? '' : space}${token}${where === 'before' ? '' : space}`,
    })),
  (token) => fc.constantFrom(...WHITESPACE).map((space) => ({ name: `${JSON.stringify(space)} around the dots`, text: token.split('.').join(`${space}.${space}`) })),
  (token) => fc.boolean().map((lower) => ({ name: 'dots percent-encoded', text: token.replace(/\./g, percent('.', lower)) })),
  (token) => fc.boolean().map((lower) => ({ name: 'percent-encoded throughout', text: [...token].map((char) => percent(char, lower)).join('') })),
  (token) =>
    fc.integer({ min: 0, max: token.length - 1 }).map((index) => ({ name: `character ${index} percent-encoded`, text: token.slice(0, index) + percent(token[index], false) + token.slice(index + 1) })),
  (token) => fc.constant({ name: 'quoted', text: JSON.stringify(token) }),
  (token) => fc.constant({ name: 'fullwidth dots', text: token.replace(/\./g, '\uff0e') }),
  (token) => fc.constant({ name: 'said twice', text: `${token} ${token}` }),
];

/** A token changed once or twice, never left as it was. */
export function tokenFormArbitrary(token: string): fc.Arbitrary<TokenForm> {
  const once = (form: TokenForm) =>
    fc.integer({ min: 0, max: changes.length - 1 }).chain((index) => changes[index](form.text).map((next) => ({ name: form.name ? `${form.name}, then ${next.name}` : next.name, text: next.text })));
  const start = { name: '', text: token };
  return fc
    .integer({ min: 1, max: 2 })
    .chain((count) => (count === 1 ? once(start) : once(start).chain(once)))
    .filter((form) => form.text !== token);
}
