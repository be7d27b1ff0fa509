import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, normalizeBaseUrl } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer } from '../../src/transports/http/server.js';
import { RUN_ENV } from '../support/run-env.js';
import { ApiClient } from '../../src/upstream/client.js';
import { NotFoundError } from '../../src/upstream/errors.js';
import { LimiterRegistry } from '../../src/upstream/limiter.js';
import { createLogger } from '../../src/log.js';
import { parseSandboxArgs, runSandboxCli } from '../../src/sandbox/serve.js';
import { connect, sandboxEnv } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';

const logger = createLogger('silent');
const key = { SVC_API_KEY: 'svc_test0123' };
const sandbox = useSandbox();

function apiAt(baseUrl: string) {
  const limiters = new LimiterRegistry({ budget: { limit: 1000, windowMs: 1000 } });
  return new ApiClient({ baseUrl, timeoutMs: 2000, limiters, logger }).forKey(sandbox.keys.admin);
}

async function notFound(promise: Promise<unknown>): Promise<NotFoundError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NotFoundError);
  return error as NotFoundError;
}

describe('base URL', () => {
  it('drops a trailing slash or /v2, since every route begins with /v2', () => {
    for (const text of ['https://api.example.com', 'https://api.example.com/', 'https://api.example.com/v2', 'https://api.example.com/v2/', 'https://api.example.com//V2//']) {
      expect(normalizeBaseUrl('SVC_BASE_URL', text)).toBe('https://api.example.com');
    }
    expect(normalizeBaseUrl('SVC_BASE_URL', 'http://gw.internal:8080/workspace/v2/')).toBe('http://gw.internal:8080/workspace');
    expect(normalizeBaseUrl('SVC_BASE_URL', 'http://gw.internal/v2beta')).toBe('http://gw.internal/v2beta');
  });

  it('refuses what is not an http(s) URL, by the name the user typed', () => {
    expect(() => loadConfig(['--base-url', 'api.example.com'], key)).toThrow(/^--base-url must be an http\(s\) URL/);
    expect(() => loadConfig([], { ...key, SVC_BASE_URL: 'ftp://api.example.com' })).toThrow(/^SVC_BASE_URL must be an http\(s\) URL/);
    expect(() => loadConfig([], { ...key, SVC_BASE_URL: 'https://u:p@api.example.com' })).toThrow(/no query, fragment or credentials/);
  });

  it('serves the tools when the URL was given with /v2', async () => {
    const config = loadConfig([], { SVC_BASE_URL: `${sandbox.url}/v2/`, SVC_API_KEY: sandbox.keys.admin });
    const agents = await apiAt(config.baseUrl!).request<unknown[]>({ method: 'GET', path: '/v2/bots/public', read: true });
    expect(agents.length).toBeGreaterThan(0);
  });
});

describe('flag values', () => {
  it('name the flag when the value came from one, the variable otherwise', () => {
    const base = { SVC_BASE_URL: 'http://127.0.0.1:1', ...key };
    expect(() => loadConfig(['--http-port', 'abc'], base)).toThrow(/^--http-port must be a whole number from 0 to 65535 \(got "abc"\)$/);
    expect(() => loadConfig(['--timeout-ms=1e3'], base)).toThrow(/^--timeout-ms must be a whole number/);
    expect(() => loadConfig([], { ...base, SVC_MAX_RESULT_TOKENS: '12.5' })).toThrow(/^SVC_MAX_RESULT_TOKENS must be a whole number/);
    expect(() => loadConfig(['--read-only=maybe'], base)).toThrow(/^--read-only must be true or false/);
    expect(() => loadConfig(['--rate-limit', 'lots'], base)).toThrow(/^--rate-limit must look like N\/Ts/);
    expect(() => loadConfig(['--log-format', 'xml'], base)).toThrow(/^--log-format must be pretty or json/);
    expect(loadConfig(['--log-format', 'json'], base).logFormat).toBe('json');
  });

  it('svc-mcp sandbox takes --port and --host and names a bad one', () => {
    expect(parseSandboxArgs(['--port', '8080', '--host=0.0.0.0'])).toEqual({ port: 8080, host: '0.0.0.0' });
    expect(() => parseSandboxArgs(['--port', 'abc'])).toThrow(/^--port must be a whole number from 0 to 65535 \(got "abc"\)$/);
    expect(() => parseSandboxArgs(['--port'])).toThrow(/^--port needs a value$/);
    expect(() => parseSandboxArgs(['--prot', '1'])).toThrow(/^Unknown option --prot/);
  });
});

describe('a 404 from an unknown route', () => {
  it('is told apart from a 404 for an unknown id', async () => {
    const wrongPrefix = await notFound(apiAt(`${sandbox.url}/api`).request({ method: 'GET', path: '/v2/bots/public', read: true }));
    expect(wrongPrefix.routeNotFound).toBe(true);
    const unknownReplay = await notFound(apiAt(sandbox.url).request({ method: 'GET', path: '/v2/replays/00000000-0000-4000-8000-000000000000/public', read: true, namesItem: true }));
    expect(unknownReplay.routeNotFound).toBe(false);
    // The framework's unknown-route message marks a route missing even on a path that names an item.
    const unknownRoute = await notFound(apiAt(`${sandbox.url}/api`).request({ method: 'GET', path: '/v2/replays/00000000-0000-4000-8000-000000000000/public', read: true, namesItem: true }));
    expect(unknownRoute.routeNotFound).toBe(true);
  });
  it('tells the user to fix SVC_BASE_URL, where an unknown id gets "not found"', async () => {
    const server = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, { SVC_BASE_URL: `${sandbox.url}/api` }) });
    try {
      const result = await server.call('list_agents');
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0].text).toMatch(/no such route \(404\).*Set SVC_BASE_URL to the API's origin/);
    } finally {
      await server.close();
    }
  });
});

describe('first contact (issue 34): each mistake names the setting to change', () => {
  it('a sandbox setting without the sandbox says to add --sandbox, from a flag or the environment', () => {
    expect(() => loadConfig(['--sandbox-conversations', '1000'], {})).toThrow(
      /^--sandbox-conversations shapes the embedded sandbox, which is off: add --sandbox .*"svc-mcp sandbox --sandbox-conversations \.\.\."/,
    );
    expect(() => loadConfig([], { SVC_SANDBOX_RATE_LIMIT: 'off', SVC_BASE_URL: 'http://127.0.0.1:1', ...key })).toThrow(
      /^SVC_SANDBOX_RATE_LIMIT shapes the embedded sandbox, which is off: add --sandbox/,
    );
    expect(loadConfig(['--sandbox', '--sandbox-conversations', '1000'], {}).sandboxConversations).toBe(1000);
  });

  it('a port in use stops the start with the flag to change, over HTTP and for svc-mcp sandbox', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const runtime = await createRuntime(loadConfig(['--transport', 'http', '--http-port', String(port), '--base-url', sandbox.url], RUN_ENV), logger);
      try {
        await expect(startHttpServer(runtime)).rejects.toThrow(
          new ConfigError(`port ${port} on 127.0.0.1 is already in use (another svc-mcp, or another program): choose a free one with --http-port (SVC_HTTP_PORT), or stop what holds it`),
        );
      } finally {
        await runtime.close();
      }
      await expect(runSandboxCli({ port })).rejects.toThrow(/^port \d+ on 127\.0\.0\.1 is already in use .*choose a free one with --port,/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a throwaway --sandbox run writes nothing to the state folder, even with SVC_CONFIRM_SECRET or --auth oauth; a real one does', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-xdg-'));
    const userState = path.join(home, 'svc-mcp');
    const secrets = { XDG_STATE_HOME: home, SVC_CONFIRM_SECRET: 'c'.repeat(32), SVC_AUTH_SECRET: 'a'.repeat(32) };
    try {
      for (const argv of [['--sandbox'], ['--sandbox', '--transport', 'http', '--auth', 'oauth']]) {
        const runtime = await createRuntime(loadConfig(argv, { ...RUN_ENV, ...secrets }), logger);
        await runtime.state.claim('tokens', 'a-mac', Date.now() + 60_000);
        await runtime.close();
        expect(existsSync(userState), argv.join(' ')).toBe(false);
      }
      // Not a sandbox: the same secret keeps spent tokens where a restart finds them.
      const hosted = await createRuntime(loadConfig([], { ...RUN_ENV, ...secrets, ...sandboxEnv(sandbox) }), logger);
      await hosted.close();
      expect(existsSync(userState)).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
