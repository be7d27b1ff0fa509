import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { formatPretty } from '../../src/log.js';

const base = { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'svc_test0123' };
const time = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();

describe('log format', () => {
  it('is json when stderr is not a terminal, as under a test runner or a host, unless asked', () => {
    expect(loadConfig([], base).logFormat).toBe(process.stderr.isTTY ? 'pretty' : 'json');
    expect(loadConfig([], { ...base, SVC_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig(['--log-format=json'], { ...base, SVC_LOG_FORMAT: 'pretty' }).logFormat).toBe('json');
  });

  it('pretty prints one readable line per record, without the fields every record repeats', () => {
    const line = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', service: 'svc-mcp', msg: 'upstream request failed', status: 503, path: '/v2/bots/public', note: 'two words' });
    expect(formatPretty(line)).toBe('03:04:05.067 WARN  upstream request failed status=503 path=/v2/bots/public note="two words"\n');
  });

  it('puts an error stack on the lines after, and colours the level only when asked', () => {
    const line = JSON.stringify({ level: 50, time, msg: 'boom', err: { type: 'Error', message: 'x', stack: 'Error: x\n    at f (a.js:1:1)' } });
    expect(formatPretty(line)).toBe('03:04:05.067 ERROR boom\n    Error: x\n        at f (a.js:1:1)\n');
    expect(formatPretty(line, true)).toContain('\u001b[31mERROR\u001b[0m');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(formatPretty('plain text')).toBe('plain text\n');
  });

  it('shows terminal escape sequences and hidden characters from what clients chose (a client name, a method) escaped, never raw (issue 32)', () => {
    const hostile = fc.string({
      unit: fc.oneof(fc.constantFrom('\u001b', '[', '2J', ']0;', '\u0007', '\u009b', '\u202e', '\ufe0f', '\u3164', '\r', '\n', ' ', '\u00a0'), fc.string({ unit: 'binary', maxLength: 2 })),
    });
    fc.assert(
      fc.property(hostile, hostile, (name, method) => {
        const line = JSON.stringify({ level: 30, time, msg: `oauth client registered ${name}`, name, rpc: method, err: { stack: `Error: ${method}\n at x` } });
        for (const colors of [false, true]) {
          const shown = formatPretty(line, colors).replace('\u001b[32mINFO \u001b[0m', 'INFO ');
          expect(shown).not.toMatch(/(?![\n ])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\p{Zs}]/u);
        }
      }),
      { numRuns: 500 },
    );
    expect(formatPretty(JSON.stringify({ level: 30, time, msg: 'm', name: 'Evil\u001b]0;pwned\u0007' }))).toContain('name=Evil\\u001B]0;pwned\\u0007');
  });
});
