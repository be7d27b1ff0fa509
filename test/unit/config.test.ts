import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, OPTIONS, parseRateLimit, requestedTransport } from '../../src/config.js';
import { helpText } from '../../src/help.js';

const base = { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'svc_test0123' };

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig([], base);
    expect(config).toMatchObject({
      toolsets: 'all',
      readOnly: false,
      confirm: 'writes',
      rateLimit: { limit: 100, windowMs: 60_000 },
      timeoutMs: 30_000,
      logLevel: 'info',
      transport: 'stdio',
      httpHost: '127.0.0.1',
      httpPort: 3000,
    });
  });
  it('reads flags over environment variables', () => {
    const config = loadConfig(['--read-only', '--toolsets', 'agents,conversations', '--confirm=destructive', '--rate-limit', '10/2s'], { ...base, SVC_READ_ONLY: 'false' });
    expect(config).toMatchObject({ readOnly: true, toolsets: ['agents', 'conversations'], confirm: 'destructive', rateLimit: { limit: 10, windowMs: 2000 } });
  });
  it('explains bad values by name', () => {
    expect(() => loadConfig([], { ...base, SVC_CONFIRM: 'always' })).toThrow(/SVC_CONFIRM must be writes, destructive or none/);
    expect(() => parseRateLimit('100 per minute')).toThrow(ConfigError);
    expect(() => loadConfig([], { SVC_BASE_URL: 'http://x' })).toThrow(/SVC_API_KEY is required/);
    expect(() => loadConfig(['--frobnicate'], base)).toThrow(/Unknown option --frobnicate/);
  });
  it('checks the key by the shape HTTP checks a bearer key by, on every transport, and names the placeholder without printing a value', () => {
    for (const key of ['abc', 'svc_', 'svc_short', `svc_${'x'.repeat(201)}`, 'svc_bad key!', 'svc_0123456789\n']) {
      for (const transport of ['stdio', 'http']) {
        const start = () => loadConfig([], { ...base, SVC_API_KEY: key, SVC_TRANSPORT: transport });
        expect(start, key).toThrow('SVC_API_KEY must be a workspace API key: svc_ followed by 8-200 letters, digits, _ or - (the value was not printed)');
      }
    }
    expect(() => loadConfig(['--api-key', 'svc_...'], base)).toThrow(/^--api-key is still the placeholder svc_\.\.\.: put your workspace API key there .*--sandbox$/);
    expect(loadConfig([], { ...base, SVC_API_KEY: 'svc_0123-abc_DEF' }).apiKey).toBe('svc_0123-abc_DEF');
  });
  it('needs no key or URL with --sandbox', () => {
    expect(loadConfig(['--sandbox'], {}).sandbox).toBe(true);
  });
  it('documents every option in --help', () => {
    const help = helpText();
    for (const option of OPTIONS) {
      expect(help).toContain(option.flag);
      expect(help).toContain(option.env);
    }
  });
  it('ends --help with the guides of this installation, each a file that exists, the hosting guide among them', () => {
    const guides = helpText()
      .split('Guides (in this installation):\n')[1]
      .split('\n')
      .map((line) => line.trim());
    expect(guides.some((guide) => guide.endsWith(path.join('src', 'oauth', 'HOSTING.md')))).toBe(true);
    for (const guide of guides) expect(existsSync(guide), guide).toBe(true);
  });
});

describe('the transport a failed start was asked for', () => {
  it('reads the flag over the environment, as loadConfig does, even when the rest is invalid', () => {
    expect(requestedTransport(['--transport', 'stdio'], { SVC_TRANSPORT: 'http' })).toBe('stdio');
    expect(requestedTransport(['--transport=http', '--rate-limit', 'nonsense'], {})).toBe('http');
    expect(requestedTransport([], { SVC_TRANSPORT: 'http' })).toBe('http');
    expect(requestedTransport(['--no-such-flag'], {})).toBe('stdio');
  });
});
