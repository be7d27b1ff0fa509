/**
 * The attacker's side of "the key never comes back" (design §10.2): every form of an API key the
 * server could compute, and a detector that finds the key in text by undoing those forms. The
 * detector works on what came out, not on the forms that went in, so a form nobody listed is
 * still found when it decodes to the key.
 */
import fc from 'fast-check';

export interface KeyForm {
  name: string;
  text: string;
}

const SEPARATORS = [' ', '-', '.'];

const percentAll = (text: string, lower = false) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
    .map((code) => (lower ? code : code.toUpperCase()))
    .join('');
const unicodeEscapes = (text: string, upper = false) =>
  [...text]
    .map((char) => char.charCodeAt(0).toString(16).padStart(4, '0'))
    .map((hex) => `\\u${upper ? hex.toUpperCase() : hex}`)
    .join('');
const chunks = (text: string, size: number) => text.match(new RegExp(`.{1,${size}}`, 'g')) ?? [];
const alternateCase = (text: string) => [...text].map((char, index) => (index % 2 ? char.toUpperCase() : char.toLowerCase())).join('');

/** The fixed list: one of each kind the contract names, in its common spellings. */
export function keyForms(key: string): KeyForm[] {
  const bare = key.replace(/^svc_/i, '');
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const forms: KeyForm[] = [
    { name: 'as given', text: key },
    { name: 'bare', text: bare },
    { name: 'upper case', text: key.toUpperCase() },
    { name: 'bare, upper case', text: bare.toUpperCase() },
    { name: 'alternating case', text: alternateCase(key) },
    { name: 'prefix upper case', text: `SVC_${bare}` },
    { name: 'URL-encoded (encodeURIComponent)', text: encodeURIComponent(key) },
    { name: 'percent-encoded, every byte', text: percentAll(key) },
    { name: 'percent-encoded, every byte, lower hex', text: percentAll(key, true) },
    { name: 'percent-encoded underscore', text: `svc%5F${bare}` },
    { name: 'percent-encoded underscore, lower hex', text: `svc%5f${bare}` },
    { name: 'percent-encoded, double', text: percentAll(key).replace(/%/g, '%25') },
    { name: 'JSON \\u escapes, every character', text: unicodeEscapes(key) },
    { name: 'JSON \\u escapes, upper hex', text: unicodeEscapes(key, true) },
    { name: 'JSON \\u escape of the underscore', text: `svc\\u005f${bare}` },
    { name: 'base64', text: base64(key) },
    { name: 'base64 without padding', text: base64(key).replace(/=+$/, '') },
    { name: 'base64url', text: Buffer.from(key, 'utf8').toString('base64url') },
    { name: 'base64 of the bare key', text: base64(bare) },
    { name: 'base64 of the bare key, url', text: Buffer.from(bare, 'utf8').toString('base64url') },
    { name: 'hex', text: Buffer.from(key, 'utf8').toString('hex') },
    { name: 'hex, upper case', text: Buffer.from(key, 'utf8').toString('hex').toUpperCase() },
    { name: 'hex of the bare key', text: Buffer.from(bare, 'utf8').toString('hex') },
  ];
  // Issue 32: forms beyond design 10.2's list (its floor), each a run of the key's body with separators of any kind.
  const hexPairs = (text: string) => Buffer.from(text, 'utf8').toString('hex').match(/../g)!;
  forms.push(
    { name: 'split by two spaces', text: [...key].join('  ') },
    { name: 'split by ", "', text: [...key].join('", "') },
    { name: 'split by newlines', text: [...key].join('\n') },
    { name: 'split by NBSP', text: [...key].join('\u00a0') },
    { name: 'hex with spaces between bytes', text: hexPairs(key).join(' ') },
    { name: 'without its first character', text: key.slice(1) },
    { name: 'bare, without its first character', text: bare.slice(1) },
    { name: 'as a JSON array of its characters', text: JSON.stringify([...key]) },
    { name: 'as a list of its characters', text: [...key].join(', ') },
  );
  for (const separator of SEPARATORS) {
    const name = separator === ' ' ? 'spaces' : separator === '-' ? 'dashes' : 'dots';
    forms.push({ name: `split by ${name}, groups of 4`, text: `svc_${chunks(bare, 4).join(separator)}` });
    forms.push({ name: `split by ${name}, bare, groups of 8`, text: chunks(bare, 8).join(separator) });
    forms.push({ name: `split by ${name}, every character`, text: [...key].join(separator) });
  }
  return forms;
}

/**
 * Random forms beyond the fixed list, each one form of those the contract lists (design §10.2), in
 * random spellings: the key as given or bare, either changed within its form (random case, random
 * groupings by a separator, a random subset of characters percent- or \\u-escaped, which a URL or a
 * JSON body may mix) or encoded whole (percent-encoding, \\u escapes, base64, base64url, hex). Two
 * listed forms stacked (the hex of a case-changed key, say) are not forms the contract names.
 */
export function keyFormArbitrary(key: string): fc.Arbitrary<KeyForm> {
  const bare = key.replace(/^svc_/i, '');
  const start = fc.constantFrom<KeyForm>({ name: 'as given', text: key }, { name: 'bare', text: bare });
  const someCharacters = (text: string) => fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length });
  const inner = (form: KeyForm): fc.Arbitrary<KeyForm> =>
    fc.oneof(
      fc.constant(form),
      someCharacters(form.text).map((which) => ({ name: `${form.name}, random case`, text: [...form.text].map((char, index) => (which[index] ? char.toUpperCase() : char.toLowerCase())).join('') })),
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom(...SEPARATORS)).map(([size, separator]) => ({
        name: `${form.name}, split by ${JSON.stringify(separator)} every ${size}`,
        text: chunks(form.text, size).join(separator),
      })),
      fc.tuple(someCharacters(form.text), fc.boolean()).map(([which, lower]) => ({
        name: `${form.name}, partly percent-encoded`,
        text: [...form.text].map((char, index) => (which[index] ? percentAll(char, lower) : char)).join(''),
      })),
      someCharacters(form.text).map((which) => ({ name: `${form.name}, partly \\u-escaped`, text: [...form.text].map((char, index) => (which[index] ? unicodeEscapes(char) : char)).join('') })),
    );
  const outer = (form: KeyForm): fc.Arbitrary<KeyForm> =>
    fc.constantFrom<KeyForm>(
      form,
      { name: `percent-encoded(${form.name})`, text: percentAll(form.text) },
      { name: `\\u-escaped(${form.name})`, text: unicodeEscapes(form.text) },
      { name: `base64(${form.name})`, text: Buffer.from(form.text).toString('base64') },
      { name: `base64url(${form.name})`, text: Buffer.from(form.text).toString('base64url') },
      { name: `hex(${form.name})`, text: Buffer.from(form.text).toString('hex') },
    );
  return start.chain((form) => fc.oneof(inner(form), outer(form)));
}

/** Characters that may separate the pieces of a split key. */
const NOT_KEY = /[^0-9a-z]/g;
/** How much of the key's secret part counts as the key: half of it, so a cut-off key is still a leak. */
const FRAGMENT = 16;

/**
 * Whether `text` gives the key back in any form: as written, percent-decoded (twice), with \u
 * escapes undone, from any base64, base64url or hex run, with case and separators ignored. A
 * fragment of half the secret part is enough. Returns the decoding that revealed it.
 */
export function revealsKey(text: string, key: string): string | undefined {
  const secret = key.replace(/^svc_/i, '').toLowerCase();
  const fragments = new Set<string>();
  for (let index = 0; index + FRAGMENT <= secret.length; index++) fragments.add(secret.slice(index, index + FRAGMENT));
  const found = (candidate: string) => {
    const normalized = candidate.toLowerCase().replace(NOT_KEY, '');
    for (const fragment of fragments) if (normalized.includes(fragment)) return true;
    return false;
  };
  for (const [how, candidate] of decodings(text)) if (found(candidate)) return how;
  return undefined;
}

/** The text and what each decoder makes of it, and of that again (two layers: an encoding of an encoding). */
function decodings(text: string): Array<[string, string]> {
  let layer: Array<[string, string]> = [['as written', text]];
  const out = [...layer];
  for (let depth = 0; depth < 2; depth++) {
    layer = layer.flatMap(([how, candidate]) => decodeOnce(candidate).map(([decoder, decoded]): [string, string] => [`${decoder} of ${how}`, decoded]));
    out.push(...layer);
  }
  return out;
}

function decodeOnce(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (/%[0-9a-fA-F]{2}/.test(text)) out.push(['percent-decoding', percentDecode(text)]);
  if (/\\u[0-9a-fA-F]{4}/.test(text)) out.push(['\\u unescaping', text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))]);
  const base64 = (text.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []).flatMap((run) =>
    [0, 1, 2, 3].map((offset) => Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1')),
  );
  if (base64.length) out.push(['base64', base64.join('\n')]);
  const hex = (text.match(/[0-9a-fA-F]{16,}/g) ?? []).flatMap((run) => [0, 1].map((offset) => Buffer.from(run.slice(offset, offset + ((run.length - offset) & ~1)), 'hex').toString('latin1')));
  if (hex.length) out.push(['hex', hex.join('\n')]);
  // Hex split between its bytes (`73 76 63 5f`): the pairs read together.
  const spaced = (text.match(/(?:[0-9a-fA-F]{2}[^0-9a-zA-Z]{1,4}){8,}[0-9a-fA-F]{2}/g) ?? []).map((run) => Buffer.from(run.replace(/[^0-9a-fA-F]/g, ''), 'hex').toString('latin1'));
  if (spaced.length) out.push(['hex split between bytes', spaced.join('\n')]);
  return out;
}

function percentDecode(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Every string in a value (object keys included), for checking each one alone as well as the whole. */
export function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) {
      out.push(name);
      stringsIn(item, out);
    }
  }
  return out;
}

/** Where in `value` (a tool result, a log) the key comes back, as `path: decoding`; empty when nowhere. */
export function keyLeaks(value: unknown, key: string): string[] {
  const texts = typeof value === 'string' ? [value] : [...stringsIn(value), JSON.stringify(value)];
  return texts.flatMap((text) => {
    const how = revealsKey(text, key);
    return how ? [`${how}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`] : [];
  });
}
