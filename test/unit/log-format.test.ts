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
});
