import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

/** What pino's own `redact` writes for these paths: the behaviour the logger keeps, without its cost on every field. */
const PINO_REDACT = { paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' };

function capture(make: (write: (line: string) => void) => pino.Logger): (record: object) => string {
  let last = '';
  const logger = make((line) => (last = line));
  return (record) => {
    logger.info(record, 'm');
    return last.replace(/"time":\d+,/, '');
  };
}

const reference = capture((write) => pino({ level: 'info', base: { service: 'svc-mcp' }, redact: PINO_REDACT }, { write }));
const ours = capture((write) => createLogger('info', 'json', { write }));

const names = fc.constantFrom('apiKey', 'authorization', 'headers', 'err', 'error', 'path', 'key', 'a');
// No lone surrogates: pino writes a short string with one as is, and through a redactor escaped.
const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '…') });
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(names, tie('value'), { maxKeys: 4 })),
}));
const withError = fc.tuple(fc.dictionary(names, json.value, { maxKeys: 3 }), fc.dictionary(names, json.value, { maxKeys: 3 })).map(([props, record]) => {
  const error = Object.assign(new Error('boom'), props);
  error.stack = 'Error: boom';
  return { ...record, err: error, error };
});

describe('log lines censor apiKey and authorization fields', () => {
  it('as pino redact would, at the top level, one level down, and under headers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(names, json.value, { maxKeys: 5 }), withError), (record) => {
        expect(ours(record)).toBe(reference(record));
      }),
      { numRuns: 400 },
    );
  });

  it('copies nothing for a line without such fields', () => {
    const line = ours({ method: 'POST', path: '/mcp', status: 200, ms: 3 });
    expect(line).toBe('{"level":30,"service":"svc-mcp","method":"POST","path":"/mcp","status":200,"ms":3,"msg":"m"}\n');
    expect(ours({ o: { headers: { authorization: 'Bearer x' }, apiKey: undefined } })).toContain('"o":{"headers":{"authorization":"[redacted]"},"apiKey":"[redacted]"}');
  });
});
