import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer, type HttpServerHandle } from '../../src/transports/http/server.js';
import { useSandbox } from '../support/fixture.js';
import { RUN_ENV } from '../support/run-env.js';
import { initializeRequest } from '../support/harness.js';

const sandbox = useSandbox();
/** A hosted server without a key of its own, as teams run it: every client must bring its key. */
let server: HttpServerHandle;
let base: string;

beforeAll(async () => {
  const config = loadConfig(['--transport', 'http', '--http-port', '0', '--base-url', sandbox.url], RUN_ENV);
  server = await startHttpServer(await createRuntime(config, createLogger('silent')));
  base = server.url.replace(/\/mcp$/, '');
});
afterAll(() => server.shutdown('test over'));

const initialize = initializeRequest('t');

function post(path: string, headers: Record<string, string> = {}, body: unknown = initialize) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('a client without a key', () => {
  it('gets a 401 whose JSON-RPC message says how to send the key and where the README shows it', async () => {
    const response = await post('/mcp');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toContain('"Authorization: Bearer svc_..."');
    expect(error.message).toContain('does not use OAuth');
    expect(error.message).toContain('"Hosted HTTP"');
  });

  it('says the same for a malformed header', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer sk-not-ours']) {
      const { error } = (await (await post('/mcp', { authorization })).json()) as { error: { message: string } };
      expect(error.message).toContain('"Authorization: Bearer svc_..."');
    }
  });

  it('finds no OAuth metadata or registration, and each probe says what to do instead', async () => {
    const probes = [
      fetch(`${base}/.well-known/oauth-protected-resource/mcp`),
      fetch(`${base}/.well-known/oauth-protected-resource`),
      fetch(`${base}/.well-known/oauth-authorization-server`),
      fetch(`${base}/.well-known/openid-configuration`),
      fetch(`${base}/mcp/.well-known/openid-configuration`),
      post('/register', {}, { redirect_uris: ['http://localhost:1/cb'] }),
    ];
    for (const response of await Promise.all(probes)) {
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: string }).error).toContain('does not use OAuth');
    }
  });

  it('is served once it sends the header', async () => {
    const response = await post('/mcp', { authorization: `Bearer ${sandbox.keys.readOnly}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
  });
});
