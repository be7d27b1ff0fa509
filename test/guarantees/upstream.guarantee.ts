import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEED } from '../../src/sandbox/index.js';
import { useStarted } from '../support/fixture.js';
import { connectProcess, textOf } from '../support/harness.js';
import { startHostileUpstream } from './hostile-upstream.js';
import { call, upstreamEnv, useStandaloneSandbox } from './support.js';

/**
 * Design §10.6 against dist/: odd upstream answers are errors, quickly. A 200 whose body is not the
 * JSON the route returns is an error at once (one request, no retry) naming the method and path; a
 * write that got a single 429 is reported as not sent, with the budget, without claiming a backoff.
 */

const sandbox = useStandaloneSandbox();
const upstream = useStarted(
  () => startHostileUpstream(sandbox.url),
  (started) => started.close(),
);
const server = useStarted(
  () => connectProcess({ env: { ...upstreamEnv(sandbox, { SVC_CONFIRM: 'none' }), SVC_BASE_URL: upstream.url } }),
  (started) => started.close(),
);

const NOT_JSON = [
  { name: 'an HTML error page', contentType: 'text/html', body: '<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>' },
  { name: 'plain text', contentType: 'text/plain', body: 'Service temporarily unavailable' },
  { name: 'cut-off JSON', contentType: 'application/json', body: '[{"id": "b0000000-000a-4000-8000-0000000' },
  { name: 'an empty body', contentType: 'application/json', body: '' },
  { name: 'JSON with a trailing comma', contentType: 'application/json', body: '{"success": true,}' },
];

const ROUTES = [
  { tool: 'list_agents', args: {}, method: 'GET', path: '/v2/bots/public' },
  { tool: 'get_articles', args: { articleIds: [SEED.articles.returnsPolicy] }, method: 'POST', path: '/v2/hc-articles/ids/public' },
  { tool: 'delete_conversation', args: { interactionId: 'conv-odd-answer' }, method: 'DELETE', path: '/v2/hc-interactions/conv-odd-answer/public' },
];

async function expectErrorAtOnce(route: (typeof ROUTES)[number], what: string): Promise<void> {
  const before = upstream.seen(route.method, route.path);
  const result = await call(server.client, route.tool, route.args);
  const text = textOf(result);
  expect(result.isError, `${route.tool} after ${what}: ${text}`).toBe(true);
  expect(text, `${route.tool} after ${what} names the method and path`).toContain(`${route.method} ${route.path}`);
  expect(upstream.seen(route.method, route.path) - before, `${route.tool} after ${what}: requests sent`).toBe(1);
}

describe("§10.6 a 200 whose body is not the route's JSON is an error at once, naming method and path", () => {
  for (const route of ROUTES) {
    for (const answer of NOT_JSON) {
      it(`${route.method} ${route.path.replace('conv-odd-answer', '{id}')} answered with ${answer.name}`, async () => {
        upstream.answerOnce({ method: route.method, path: route.path, status: 200, contentType: answer.contentType, body: answer.body });
        await expectErrorAtOnce(route, answer.name);
      });
    }
  }

  it('any text that does not parse as JSON, on a read (25 runs)', async () => {
    const notJson = fc.string({ minLength: 1, maxLength: 200 }).filter((text) => {
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    await fc.assert(
      fc.asyncProperty(notJson, fc.constantFrom('application/json', 'text/html', 'text/plain'), async (body, contentType) => {
        upstream.answerOnce({ ...ROUTES[0], status: 200, contentType, body });
        await expectErrorAtOnce(ROUTES[0], `${contentType} ${JSON.stringify(body)}`);
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('JSON of another shape than the route returns (a string or a number where a list is documented)', async () => {
    for (const body of ['"<html>"', '42', 'null']) {
      upstream.answerOnce({ ...ROUTES[0], status: 200, contentType: 'application/json', body });
      await expectErrorAtOnce(ROUTES[0], `JSON ${body}`);
    }
  });
});

describe('§10.6 a write that got one 429 is reported as not sent, with the budget, without claiming a backoff', () => {
  const budgeted = useStarted(
    () => connectProcess({ env: upstreamEnv(sandbox, { SVC_CONFIRM: 'none', SVC_RATE_LIMIT: '37/60s' }) }),
    (started) => started.close(),
  );

  const WRITES = [
    { tool: 'create_article', args: { title: 'Rate limited', parentFolderId: SEED.folders.shipping }, method: 'POST', path: '/v2/hc-articles/public' },
    { tool: 'delete_conversation', args: { interactionId: 'conv-rate-limited' }, method: 'DELETE', path: '/v2/hc-interactions/conv-rate-limited/public' },
    { tool: 'create_tag', args: { tagGroupId: SEED.tagGroups.topics, tagName: 'rate-limited' }, method: 'POST', path: `/v2/tag-groups/${SEED.tagGroups.topics}/tags/public` },
  ];

  for (const write of WRITES) {
    it(`${write.tool}`, async () => {
      await sandbox.clearRequests();
      await sandbox.faults([{ method: write.method, path: write.path, status: 429 }]);
      const result = await call(budgeted.client, write.tool, write.args);
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toMatch(/\bnot (been )?sent\b|\bwas not sent\b|\bnothing was sent\b/i);
      expect(text, 'the budget').toMatch(/\b37\b/);
      expect(text, "the budget's window").toMatch(/\b60 ?s\b|\b60 seconds\b|\bminute\b/i);
      // Advice to retry later is fine; a claim that it waited or backed off is not.
      expect(text).not.toMatch(/\bback(ed|ing)? off\b|\bafter (waiting|retrying|retries)\b|\bwaited\b/i);
      const sent = (await sandbox.requests()).filter((request) => request.method === write.method && request.path === write.path);
      expect(sent).toHaveLength(1);
    });
  }
});
