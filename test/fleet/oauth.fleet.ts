import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { apiRequests, initializeRequest } from '../support/harness.js';
import { freePort } from '../support/network.js';
import { postForm, signIn } from '../support/oauth.js';
import { useSandbox } from '../support/fixture.js';
import { startFleet, type Fleet } from './fleet.js';

/**
 * `npm run test:fleet` (CI): SVC_AUTH=oauth on three stateless nodes sharing one Redis behind HAProxy
 * (round-robin). Each step of a sign-in lands on another node, and a token issued by one node is
 * honoured, rotated and revoked on every other: registrations, grants and tokens live in Redis.
 */

const sandbox = useSandbox();
let fleet: Fleet;
let publicUrl: string;

beforeAll(async () => {
  const proxyPort = await freePort();
  publicUrl = `http://127.0.0.1:${proxyPort}`;
  fleet = await startFleet(sandbox, {
    nodes: 3,
    proxyPort,
    env: { SVC_AUTH: 'oauth', SVC_PUBLIC_URL: publicUrl, SVC_AUTH_SECRET: 'fleet-oauth-secret-shared-by-every-node!' },
  });
});

afterAll(async () => {
  await fleet?.stop();
});

/** What a node answers an initialize with this bearer, asked directly rather than through the proxy. */
async function initializeOn(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify(initializeRequest('t')),
  });
  await response.body?.cancel();
  return response.status;
}

describe('OAuth across a fleet', () => {
  it('signs in through the proxy (each step on another node) and every node honours the token', async () => {
    const signed = await signIn(fleet.proxy.url, sandbox.keys.readOnly);
    sandbox.clearRequests();
    for (let call = 0; call < 3; call++) {
      const result = await signed.call('list_agents');
      expect(result.isError).toBeFalsy();
    }
    expect(apiRequests(sandbox).map((request) => request.keyName)).toEqual(['readOnly', 'readOnly', 'readOnly']);
    for (const node of fleet.nodes) expect(await initializeOn(node.url, signed.oauth.saved!.access_token)).toBe(200);
    await signed.close();
  });

  it('rotates a refresh token on one node and refuses its replay on another, ending the grant on all', async () => {
    const signed = await signIn(fleet.proxy.url, sandbox.keys.admin);
    await signed.close();
    const clientId = signed.oauth.information!.client_id;
    const first = signed.oauth.saved!;
    const [one, two] = fleet.nodes;
    const rotated = await postForm(one.url.replace(/\/mcp$/, '/token'), { grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(rotated.status).toBe(200);
    const replayed = await postForm(two.url.replace(/\/mcp$/, '/token'), { grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(replayed).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    for (const node of fleet.nodes) expect(await initializeOn(node.url, rotated.json.access_token as string)).toBe(401);
  });

  it('keeps no key and no token in Redis, only their hashes and the sealed key', async () => {
    const signed = await signIn(fleet.proxy.url, sandbox.keys.admin);
    await signed.close();
    const redis = new Redis(fleet.redis.url);
    try {
      const keys = await redis.keys('svc-mcp:oauth-*');
      expect(keys.some((key) => key.startsWith('svc-mcp:oauth-grant:'))).toBe(true);
      const values = await Promise.all(keys.map((key) => redis.get(key)));
      const everything = [...keys, ...values].join('\n');
      for (const secret of [sandbox.keys.admin, signed.oauth.saved!.access_token, signed.oauth.saved!.refresh_token!]) {
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(Buffer.from(secret).toString('base64'));
      }
    } finally {
      redis.disconnect();
    }
  });
});
