import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Envelope, stringsArePlain } from '../../src/engine/render/envelope.js';
import { messageJson } from '../../src/engine/render/wire.js';
import { shapeResult, wireResult } from '../support/shape.js';

/** What the envelope must escape, as the Unicode data of this runtime says (design 10.5). */
const UNSAFE = /(?! )[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\p{Zs}]/u;

/** The engine's own fast paths of a call: text cleaning and serialising. Those around the MCP SDK are in sdk-shortcuts.test.ts. */
describe('fast paths of the call path', () => {
  it('one-line text skips the Unicode pattern only for characters that cannot be unsafe: every character below U+10000', () => {
    const envelope = new Envelope();
    const missed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if ((envelope.oneLine(text) !== text) !== UNSAFE.test(text)) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
  });

  it("a value's JSON says its strings need no cleaning only when none does: every character below U+10000, in a value and in a field name", () => {
    const envelope = new Envelope();
    const missed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      for (const value of [text, { [text]: 1 }, [1, { x: text }]]) if (stringsArePlain(JSON.stringify(value)) && envelope.oneLine(text) !== text) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
    // Quotes and backslashes in the data keep the shortcut; a control character after a backslash does not.
    expect(stringsArePlain(JSON.stringify({ id: 'c-1', text: 'say "hi" \\ there \\\\"', n: 3 }))).toBe(true);
    expect(stringsArePlain(JSON.stringify('\\\n'))).toBe(false);
  });

  it("a value's JSON says its strings need no cleaning only when none does, whatever strings are drawn (quotes, backslashes, escapes, the tag prefix)", () => {
    const envelope = new Envelope();
    const piece = fc.constantFrom(
      'a',
      ' ',
      '"',
      '\\',
      '\\n',
      '\n',
      '\u0000',
      '\u007f',
      '\u00ad',
      '\u200b',
      '\u2028',
      '\u202e',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      'é',
      'untrusted-data-',
      'untrusted-data',
      '-data-',
      'u',
    );
    const text = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]) : [];
    let plain = 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringArbitrary: text } as Parameters<typeof fc.jsonValue>[0]), (value) => {
        if (!stringsArePlain(JSON.stringify(value))) return;
        plain++;
        for (const string of strings(value)) expect(envelope.oneLine(string)).toBe(string);
      }),
      { numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(100);
  });

  it('field names and days cached across results render as in a fresh process', () => {
    const day = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    const render = (data: unknown) => JSON.stringify(shapeResult(data, { view: 'full', capChars: 100_000 }).content[0]);
    const first = render({ createdAt: day, 'odd name': 'x', plain: 'y' });
    expect(first).toContain('createdAt: 2026-01-02T03:04:05.006Z');
    expect(render({ createdAt: day + 86_400_000, plain: 'y' })).toContain('createdAt: 2026-01-03T03:04:05.006Z');
    expect(render({ plain: { createdAt: day } })).toContain('"plain:\\n  createdAt: 2026-01-02T03:04:05.006Z"');
  });

  it('a message with a shaped result reads back as JSON.stringify would write it, whatever the data, the view, the cap and the id', () => {
    const list = { items: 'items', compact: (item: Record<string, unknown>) => ({ id: item.id, name: item.name }), more: 'Page on.' };
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.record({ items: fc.array(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), { maxLength: 30 }), more: fc.jsonValue({ maxDepth: 1 }) })),
        fc.constantFrom('compact', 'full'),
        fc.boolean(),
        fc.integer({ min: 200, max: 20_000 }),
        fc.oneof(fc.integer(), fc.string()),
        (data, view, asList, capChars, id) => {
          const result = wireResult(data, { view, capChars, list: asList ? list : undefined, heading: asList ? 'Listed.' : undefined });
          const message = { jsonrpc: '2.0' as const, id, result };
          expect(JSON.parse(messageJson(message))).toEqual(JSON.parse(JSON.stringify(message)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a message without a wire result is written exactly as JSON.stringify writes it; a wire one with the JSON the cap made, its structured content frozen', () => {
    const shaped = wireResult({ a: 1 }, { view: 'full', capChars: 1000 });
    // A wire result cannot change after shaping: the cap's JSON is what goes out, and what it says.
    const changed = wireResult({ a: 1 }, { view: 'full', capChars: 1000 });
    expect(() => {
      (changed.structuredContent as { a: number }).a = 2;
    }).toThrow(TypeError);
    expect(messageJson({ jsonrpc: '2.0', id: 0, result: changed })).toContain('"structuredContent":{"a":1}');
    expect(shapeResult({ a: 1 }, { view: 'full', capChars: 1000 })).not.toBe(shaped);
    for (const message of [
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } } },
      { jsonrpc: '2.0', id: 2, result: { ...shaped } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'no' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
    ] as JSONRPCMessage[]) {
      expect(messageJson(message)).toBe(JSON.stringify(message));
    }
  });
});
