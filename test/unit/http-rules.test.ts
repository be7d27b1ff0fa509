import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { hostAllowed, isLoopbackHost, originAllowed, startHttpServer } from '../../src/transports/http.js';
import type { Runtime } from '../../src/runtime.js';

describe('HTTP Host and Origin rules (DNS-rebinding protection)', () => {
  it('accepts loopback names only with the server port, plus configured hosts', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'LOCALHOST:3000']) expect(hostAllowed(host, 3000, [])).toBe(true);
    for (const host of [undefined, '', 'evil.example.com', 'evil.example.com:3000', 'localhost:3001', 'localhost', '127.0.0.2:3000', 'localhost.evil.com:3000']) {
      expect(hostAllowed(host, 3000, [])).toBe(false);
    }
    expect(hostAllowed('localhost', 80, [])).toBe(true);
    expect(hostAllowed('mcp.example.com', 3000, ['mcp.example.com'])).toBe(true);
    expect(hostAllowed('mcp.example.com:8443', 3000, ['mcp.example.com'])).toBe(true);
    expect(hostAllowed('mcp.example.com:8443', 3000, ['mcp.example.com:443'])).toBe(false);
    expect(hostAllowed('mcp.example.com:443', 3000, ['mcp.example.com:443'])).toBe(true);
    expect(hostAllowed('other.example.com', 3000, ['mcp.example.com'])).toBe(false);
  });

  it('accepts no Origin, loopback origins and configured origins exactly', () => {
    expect(originAllowed(undefined, [])).toBe(true);
    expect(originAllowed('http://localhost:5173', [])).toBe(true);
    expect(originAllowed('http://127.0.0.1:3000', [])).toBe(true);
    for (const origin of ['https://evil.example.com', 'null', 'file://', 'http://localhost.evil.com']) expect(originAllowed(origin, [])).toBe(false);
    expect(originAllowed('https://app.example.com', ['https://app.example.com'])).toBe(true);
    expect(originAllowed('https://app.example.com:8443', ['https://app.example.com'])).toBe(false);
  });

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('refuses to start on a non-loopback address without allowed hosts', async () => {
    const config = loadConfig(['--sandbox', '--transport', 'http', '--http-host', '0.0.0.0'], {});
    await expect(startHttpServer({ config } as Runtime)).rejects.toThrow(/SVC_ALLOWED_HOSTS/);
  });
});
