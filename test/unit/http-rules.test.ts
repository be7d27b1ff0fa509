import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { isLoopbackHost } from '../../src/access.js';
import { hostAllowed, originAllowed } from '../../src/transports/http/credentials.js';
import { startHttpServer } from '../../src/transports/http/server.js';
import type { Runtime } from '../../src/runtime.js';
import { RUN_ENV } from '../support/run-env.js';

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

  it("accepts no Origin, loopback origins of this server's own port only, and configured origins exactly", () => {
    expect(originAllowed(undefined, 3000, [])).toBe(true);
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000', 'https://LOCALHOST:3000']) expect(originAllowed(origin, 3000, [])).toBe(true);
    expect(originAllowed('http://localhost', 80, [])).toBe(true);
    expect(originAllowed('https://localhost', 443, [])).toBe(true);
    // Another local program's page (a dev server, a tool's UI) is another origin.
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:6274', 'http://localhost', 'https://localhost', 'http://localhost:30000']) expect(originAllowed(origin, 3000, [])).toBe(false);
    for (const origin of ['https://evil.example.com', 'null', 'file://', 'http://localhost.evil.com:3000']) expect(originAllowed(origin, 3000, [])).toBe(false);
    expect(originAllowed('http://localhost:6274', 3000, ['http://localhost:6274'])).toBe(true);
    expect(originAllowed('https://app.example.com', 3000, ['https://app.example.com'])).toBe(true);
    expect(originAllowed('https://app.example.com:8443', 3000, ['https://app.example.com'])).toBe(false);
  });

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
  });

  it('refuses to start on a non-loopback address without allowed hosts', async () => {
    const config = loadConfig(['--sandbox', '--transport', 'http', '--http-host', '0.0.0.0'], {});
    await expect(startHttpServer({ config } as Runtime)).rejects.toThrow(/SVC_ALLOWED_HOSTS/);
  });

  it("lets a browser tool on an origin in SVC_ALLOWED_ORIGINS (the MCP Inspector's UI) ask first and read the answers", async () => {
    const inspector = 'http://localhost:6274';
    const config = loadConfig(['--transport', 'http', '--http-port', '0', '--base-url', 'http://127.0.0.1:9'], { ...RUN_ENV, SVC_ALLOWED_ORIGINS: inspector });
    const server = await startHttpServer(await createRuntime(config, createLogger('silent')));
    try {
      const preflight = await fetch(server.url, {
        method: 'OPTIONS',
        headers: { origin: inspector, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(inspector);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Mcp-Protocol-Version/);
      // The answer itself (here a 401: no key was sent) is readable by the page, with the headers it needs.
      const answer = await fetch(server.url, { method: 'POST', headers: { origin: inspector, 'content-type': 'application/json' }, body: '{}' });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('access-control-allow-origin')).toBe(inspector);
      expect(answer.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
      const foreign = await fetch(server.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:6275', 'access-control-request-method': 'POST' } });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.shutdown('test over');
    }
  });
});
