import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import mediaTypes from '../../src/oauth/bundled/media-types.json' with { type: 'json' };
import * as textDecoding from '../../src/oauth/bundled/text-decoding.js';

/**
 * What the bundle's OAuth chunk carries in place of iconv-lite and mime-db (test/release/build.ts aliases
 * them): the same answers as the libraries it stands for, on everything express's body parsers ask of
 * them. The libraries are express's own dependencies, read here only to compare.
 */
const require = createRequire(import.meta.url);
const iconv = require('iconv-lite') as {
  decode(buffer: Buffer, encoding: string): string;
  encode(text: string, encoding: string): Buffer;
  getDecoder(encoding: string): { write(chunk: Buffer): string; end(): string | undefined };
};
const mimeDb = require('mime-db') as Record<string, unknown>;

const ENCODINGS = ['utf-8', 'UTF-8', 'utf8', 'iso-8859-1', 'ISO-8859-1', 'latin1', 'utf-16le', 'UTF-16LE', 'ucs2'];

/** A body cut into pieces at the given places, as a socket delivers it. */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...at, bytes.length].map((end, index) => bytes.subarray(index === 0 ? 0 : at[index - 1], end));
}

function streamed(decoder: { write(chunk: Buffer): string; end(): string | undefined }, chunks: Buffer[]): string {
  return chunks.map((chunk) => decoder.write(chunk)).join('') + (decoder.end() ?? '');
}

describe("the bundle's text decoding (for iconv-lite)", () => {
  it('decodes any text, whole or in any pieces, with or without a byte order mark, as iconv-lite does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENCODINGS), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.boolean(), fc.array(fc.nat(200), { maxLength: 6 }), (encoding, text, bom, cuts) => {
        const bytes = iconv.encode(`${bom ? '\uFEFF' : ''}${text}`, encoding);
        expect(textDecoding.decode(bytes, encoding)).toBe(iconv.decode(bytes, encoding));
        expect(streamed(textDecoding.getDecoder(encoding), pieces(bytes, cuts))).toBe(streamed(iconv.getDecoder(encoding), pieces(bytes, cuts)));
      }),
      { numRuns: 400 },
    );
  });

  it('decodes any bytes, malformed ones included, as iconv-lite does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENCODINGS), fc.uint8Array({ maxLength: 64 }), fc.array(fc.nat(64), { maxLength: 4 }), (encoding, raw, cuts) => {
        const bytes = Buffer.from(raw);
        expect(textDecoding.decode(bytes, encoding)).toBe(iconv.decode(bytes, encoding));
        expect(streamed(textDecoding.getDecoder(encoding), pieces(bytes, cuts))).toBe(streamed(iconv.getDecoder(encoding), pieces(bytes, cuts)));
      }),
      { numRuns: 400 },
    );
  });

  it("refuses any other charset with iconv-lite's message, which the body parsers answer with 415", () => {
    for (const encoding of ['klingon', 'utf-16be', 'utf-16', 'utf-32', '', '__proto__', 'constructor']) {
      expect(textDecoding.encodingExists(encoding)).toBe(false);
      expect(() => textDecoding.getDecoder(encoding)).toThrow(/^Encoding not recognized: /);
    }
    for (const encoding of ENCODINGS) expect(textDecoding.encodingExists(encoding)).toBe(true);
  });
});

describe("the bundle's media types (for mime-db)", () => {
  it("holds mime-db's own entries for the types express handles on the OAuth routes", () => {
    expect(Object.keys(mediaTypes).sort()).toEqual(['application/json', 'application/octet-stream', 'application/x-www-form-urlencoded', 'text/html', 'text/plain']);
    for (const [type, entry] of Object.entries(mediaTypes)) expect(entry, type).toEqual(mimeDb[type]);
  });
});
