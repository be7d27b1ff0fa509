import { describe, expect, it } from 'vitest';
import { loadConfig, normalizeBaseUrl } from '../../src/config.js';
import { ApiClient } from '../../src/http/client.js';
import { NotFoundError } from '../../src/http/errors.js';
import { LimiterRegistry } from '../../src/http/limiter.js';
import { createLogger } from '../../src/log.js';
import { parseSandboxArgs } from '../../src/sandbox/serve.js';
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
    const unknownReplay = await notFound(apiAt(sandbox.url).request({ method: 'GET', path: '/v2/replays/00000000-0000-4000-8000-000000000000/public', read: true }));
    expect(unknownReplay.routeNotFound).toBe(false);
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
