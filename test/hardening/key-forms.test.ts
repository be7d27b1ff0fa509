import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { holdLiveKey } from '../../src/redaction/live-keys.js';
import { createLogger } from '../../src/log.js';
import { shape } from '../../src/engine/render/shape.js';
import { redactResult } from '../../src/engine/render/redact.js';
import { keyRedaction } from '../../src/redaction/redaction.js';
import { OPTIONS } from '../../src/config.js';
import { helpText } from '../../src/help.js';
import { KEY_HELP } from '../../src/transports/http/credentials.js';
import { catalog } from '../../tools/index.js';
import { ROOT } from '../support/paths.js';
import { connect, sandboxEnv, textOf } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';

/**
 * The key never comes back (design 10.2) in any form the server can compute from it. The forms
 * are made here, independently of the server's own list, from the key alone.
 */
function keyForms(key: string): Array<[string, string]> {
  const bare = key.slice(4);
  const percent = (text: string, upper: boolean, every = 1) =>
    [...text]
      .map((char, index) => (index % every === 0 ? `%${char.charCodeAt(0).toString(16).padStart(2, '0')}` : char))
      .join('')
      .replace(/%[0-9a-f]{2}/g, (code) => (upper ? code.toUpperCase() : code));
  const jsonEscaped = (text: string, every = 1) => [...text].map((char, index) => (index % every === 0 ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char)).join('');
  const groups = (text: string, size: number, separator: string) => text.match(new RegExp(`.{1,${size}}`, 'g'))!.join(separator);
  const mixedCase = (text: string) => [...text].map((char, index) => (index % 2 ? char.toUpperCase() : char)).join('');
  const forms: Array<[string, string]> = [
    ['as given', key],
    ['upper case', key.toUpperCase()],
    ['mixed case', mixedCase(key)],
    ['bare', bare],
    ['bare, upper case', bare.toUpperCase()],
    ['URL-encoded', encodeURIComponent(key).replace('_', '%5F')],
    ['percent-encoded, lower hex', percent(key, false)],
    ['percent-encoded, upper hex', percent(key, true)],
    ['partly percent-encoded', percent(key, true, 3)],
    ['bare, percent-encoded', percent(bare, false)],
    ['JSON-escaped', jsonEscaped(key)],
    ['partly JSON-escaped', jsonEscaped(key, 2)],
    ['hex', Buffer.from(key).toString('hex')],
    ['hex, upper case', Buffer.from(key).toString('hex').toUpperCase()],
    ['bare, hex', Buffer.from(bare).toString('hex')],
    ['split by spaces', [...key].join(' ')],
    ['split by dashes', [...key].join('-')],
    ['split by dots', [...key].join('.')],
    ['in dashed groups of 4', groups(key, 4, '-')],
    ['in spaced groups of 3', groups(key, 3, ' ')],
    ['bare, in dotted groups of 5', groups(bare, 5, '.')],
  ];
  for (const [name, text] of [
    ['key', key],
    ['bare key', bare],
  ]) {
    forms.push([`${name}, base64`, Buffer.from(text).toString('base64')], [`${name}, base64url`, Buffer.from(text).toString('base64url')]);
    forms.push([`${name}, base64 unpadded`, Buffer.from(text).toString('base64').replace(/=+$/, '')]);
  }
  // Inside a longer string that was encoded as a whole: each of the three byte alignments.
  for (const before of ['', 'u', 'us', 'user:']) {
    forms.push([`base64 of "${before}<key>!"`, Buffer.from(`${before}${key}!`).toString('base64')]);
    forms.push([`base64url of "${before}<key>?>"`, Buffer.from(`${before}${key}?>`).toString('base64url')]);
  }
  return forms;
}

/** Every string a result shows: its text parts, and the structured result's values and field names. */
function shown(result: CallToolResult): string {
  const strings: string[] = [textOf(result)];
  const walk = (value: unknown) => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object')
      for (const [name, item] of Object.entries(value)) {
        strings.push(name);
        walk(item);
      }
  };
  walk(result.structuredContent);
  return strings.join('\n');
}

function leaks(text: string, key: string): string[] {
  const found = keyForms(key)
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
  // A cut-off key is masked too: no run of 12 characters of its body shows, in any case.
  if (text.toLowerCase().includes(key.slice(4, 16).toLowerCase())) found.push('first 12 characters of the body');
  return found;
}

const sandbox = useSandbox();

const keyBody = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('hex'));

describe('the API key in every form, echoed back by the API', () => {
  it("is masked in text and structuredContent: stored data (a write's 200 and a later read) and a 400 body", async () => {
    const admin = sandbox.keyRecords().find((record) => record.name === 'admin')!;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(keyBody, async (body) => {
        const key = `svc_${body}`;
        // The sandbox accepts this key as another admin key of the same workspace.
        sandbox.state.keys.push({ ...sandbox.state.keys.find((record) => record.key === admin.key)!, name: `property-${run++}`, key, prefix: key.slice(0, 8) });
        const connection = await connect({ env: sandboxEnv(sandbox, key, { SVC_CONFIRM: 'none' }) });
        try {
          const forms = keyForms(key).map(([, form]) => form);
          const name = `echo ${forms.join(' ~ ')}`;
          const created = await connection.call('create_folder', { name });
          expect(created.isError).toBeFalsy();
          // The sandbox did store every form: the echo is real.
          expect(sandbox.requests.at(-1)!.body).toEqual({ name });
          const listed = await connection.call('list_folders', { view: 'full' });
          sandbox.injectFaults([{ path: '/v2/hc-folders/public', status: 400, body: { statusCode: 400, message: forms.map((form) => `bad value ${form}`), error: `Bad Request ${forms.join(' ')}` } }]);
          const refused = await connection.call('list_folders');
          expect(refused.isError).toBe(true);
          for (const [what, result] of [
            ['write', created],
            ['read', listed],
            ['400', refused],
          ] as const) {
            expect(leaks(shown(result), key), what).toEqual([]);
          }
          expect(leaks(connection.stderr(), key), 'logs').toEqual([]);
        } finally {
          await connection.close();
        }
      }),
      { numRuns: 5 },
    );
  });
});

describe('log lines', () => {
  it('are scrubbed of every form of each live session key, and only while a session holds it', () => {
    fc.assert(
      fc.property(keyBody, (body) => {
        const key = `svc_${body}`;
        let written = '';
        const logger = createLogger('info', 'json', { write: (line: string) => (written += line) });
        const release = holdLiveKey(key, keyRedaction(key));
        const forms = keyForms(key)
          .map(([, form]) => form)
          .filter((form) => !form.startsWith('svc_'));
        logger.warn({ upstream: forms.join(' | '), err: new Error(`failed with ${forms[0]}`) }, `echo ${forms.join(' ')}`);
        release();
        const held = leaks(written, key);
        written = '';
        logger.warn(`after ${body}`);
        return held.length === 0 && written.includes(body);
      }),
      { numRuns: 30 },
    );
  });
});

describe("svc-mcp's own words", () => {
  /** What the server itself writes: its help, refusals and first-contact errors, every option's name and help. */
  const ownWords = [
    helpText(),
    KEY_HELP,
    'No API answered at SVC_BASE_URL=http://127.0.0.1:9 (the connection was refused): check SVC_BASE_URL, or run with --sandbox.',
    'SVC_API_KEY is required (or turn on the sandbox to try the tools against a simulated workspace: --sandbox, SVC_SANDBOX=true)',
    ...OPTIONS.flatMap((option) => [option.env, option.flag, option.help]),
  ].join('\n');

  it('are never masked by a key of the shape every transport accepts, unless they hold that key', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^svc_[A-Za-z0-9_-]{8,40}$/), (key) => {
        const body = key.slice(4, 16).toLowerCase();
        fc.pre(!ownWords.toLowerCase().includes(body));
        expect(keyRedaction(key).redact(ownWords)).toBe(ownWords);
      }),
      { numRuns: 150 },
    );
  });

  it("keep a key's characters as themselves in every pattern: not even a key made of dots (refused at start) masks SVC_BASE_URL", () => {
    const words = 'No API answered at SVC_BASE_URL=http://127.0.0.1:9';
    expect(keyRedaction('svc_...').redact(words)).toBe(words);
    expect(keyRedaction('svc_........').redact(words)).toBe(words);
  });
});

/**
 * Issue 32: forms outside design 10.2's list came back, 32 of 32 tried. Any run of 12 characters of
 * the body, with any separators between them, in plain text or hex, and a key kept as an array or
 * an object of its characters, is masked; svc-mcp's own words never are.
 */
describe('runs of the key with any separators (issue 32)', () => {
  const anyKey = fc.oneof(keyBody, fc.stringMatching(/^[A-Za-z0-9_-]{24,60}$/)).map((body) => `svc_${body}`);
  const separator = fc.constantFrom('  ', ', ', '", "', '\n', '\u00a0', '\t', ' - ', '.', '\r\n', ' | ', '\u3000', ': ', '\\n');
  const runOf = (key: string) => fc.integer({ min: 0, max: key.length - 4 - 12 }).chain((start) => fc.integer({ min: start + 12, max: key.length - 4 }).map((end) => key.slice(4 + start, 4 + end)));
  /** Whether a run of 12 characters of the body shows in the text once everything but letters and digits is taken out. */
  const showsRun = (text: string, key: string) => {
    const body = key
      .slice(4)
      .toLowerCase()
      .replace(/[^0-9a-z]/g, '');
    const normalized = text.toLowerCase().replace(/[^0-9a-z]/g, '');
    for (let start = 0; start + 12 <= body.length; start++) if (normalized.includes(body.slice(start, start + 12))) return true;
    return false;
  };
  /** Whether 12 bytes of the body show in hex, once everything but hex digits is taken out. */
  const hexRun = (text: string, key: string) => {
    const hex = Buffer.from(key.slice(4)).toString('hex');
    const normalized = text.replace(/[^0-9a-fA-F]/g, '').toLowerCase();
    for (let start = 0; start + 24 <= hex.length; start += 2) if (normalized.includes(hex.slice(start, start + 24))) return true;
    return false;
  };

  it('masks any run of 12 or more characters of the body split by any separators, in any case', () => {
    fc.assert(
      fc.property(anyKey, separator, fc.integer({ min: 1, max: 5 }), fc.boolean(), (key, joiner, group, upper) => {
        const run = key.slice(5);
        const text = (upper ? run.toUpperCase() : run).match(new RegExp(`.{1,${group}}`, 'g'))!.join(joiner);
        const masked = keyRedaction(key).redact(`before ${text} after`);
        expect(showsRun(masked, key), masked).toBe(false);
        expect(masked.startsWith('before ') && masked.endsWith(' after'), masked).toBe(true);
        // The whole key, its prefix too, as a preview's JSON shows it: separators escaped (`\u00A0`, `\n`).
        const whole = JSON.stringify([...key].join(joiner))
          .slice(1, -1)
          .replace(/\u00a0/g, '\\u00A0');
        const wholeMasked = keyRedaction(key).redact(`"title": "${whole}"`);
        expect(showsRun(wholeMasked, key), wholeMasked).toBe(false);
        // The prefix goes with it, and nothing is left, unless the body holds characters that may also separate (`_`, `-`).
        if (/^svc_[A-Za-z0-9]+$/.test(key)) expect(wholeMasked).toBe('"title": "********"');
      }),
      { numRuns: 120 },
    );
  });

  it('masks any inner run, the key across two fields, and hex split between its bytes', () => {
    fc.assert(
      fc.property(anyKey, separator, (key, joiner) => {
        const redaction = keyRedaction(key);
        fc.assert(
          fc.property(runOf(key), (run) => !showsRun(redaction.redact(`x ${run} y`), key)),
          { numRuns: 20 },
        );
        const middle = 4 + Math.floor((key.length - 4) / 2);
        const twoFields = JSON.stringify({ a: key.slice(0, middle), b: key.slice(middle) });
        if (middle - 4 >= 12 && key.length - middle >= 12) expect(showsRun(redaction.redact(twoFields), key)).toBe(false);
        const hex = Buffer.from(key.slice(4)).toString('hex').match(/../g)!.join(joiner);
        expect(hexRun(redaction.redact(hex), key)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it('masks a key kept as an array or an object of its characters, as JSON, as our text renders it, and in structured content', () => {
    fc.assert(
      fc.property(anyKey, (key) => {
        const redaction = keyRedaction(key);
        for (const value of [[...key], { ...[...key] }]) {
          const { result } = redactResult(shape({ kept: value }, { view: 'full', capChars: 80_000 }), [redaction]);
          expect(showsRun(redaction.redact(JSON.stringify(value)), key)).toBe(false);
          expect(showsRun(textOf(result).replace(/^\s*\d+: /gm, ''), key), textOf(result)).toBe(false);
          const kept = (result.structuredContent as { kept: unknown }).kept;
          expect(showsRun(Object.values(kept as object).join(''), key)).toBe(false);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("never masks svc-mcp's own words: tool descriptions, titles, the guide and the server's messages", () => {
    const ownWords = [
      ...catalog.flatMap((group) => group.tools.flatMap((tool) => [tool.name, tool.title, tool.description])),
      readFileSync(path.join(ROOT, 'README.md'), 'utf8'),
      readFileSync(path.join(ROOT, 'src/CONFIGURATION.md'), 'utf8'),
    ];
    fc.assert(
      fc.property(anyKey, (key) => {
        const redaction = keyRedaction(key);
        for (const text of ownWords) expect(redaction.redact(text)).toBe(text);
      }),
      { numRuns: 30 },
    );
  });
});
