import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SEED } from '../../src/sandbox/index.js';
import { useStarted } from '../support/fixture.js';
import { connectProcess, textOf } from '../support/harness.js';
import { connectHttp, startHttpServerProcess } from '../support/http-harness.js';
import { keyFormArbitrary, keyForms, keyLeaks, type KeyForm } from '../support/key-forms.js';
import { call, upstreamEnv, useStandaloneSandbox } from './support.js';

/**
 * Design §10.2 against dist/: the key never comes back, in any form the server can compute from it,
 * wherever it comes from: stored data written and read back, upstream 200 and error bodies,
 * arguments echoed in previews and refusals; in text, structuredContent, errors and logs (stdio
 * JSON and pretty logs at trace level, and the HTTP transport's). Every form of the fixed list is
 * tried, then random ones.
 */

const RANDOM_FORMS = 40;
const sandbox = useStandaloneSandbox();
const logs = { SVC_LOG_LEVEL: 'trace' };
/** SVC_CONFIRM=none, JSON logs at trace level. */
const direct = useStarted(
  () => connectProcess({ env: upstreamEnv(sandbox, { ...logs, SVC_CONFIRM: 'none', SVC_LOG_FORMAT: 'json' }) }),
  (server) => server.close(),
);
/** Previews and tokens, pretty logs at trace level. */
const confirming = useStarted(
  () => connectProcess({ env: upstreamEnv(sandbox, { ...logs, SVC_LOG_FORMAT: 'pretty' }) }),
  (server) => server.close(),
);
// Over HTTP the client brings the key; the server has none of its own.
const httpServer = useStarted(
  () => startHttpServerProcess({ env: { ...upstreamEnv(sandbox, logs), SVC_API_KEY: '' } }),
  (server) => server.stop(),
);
const http = useStarted(
  () => connectHttp(httpServer.url, { key: sandbox.keys.admin }),
  (client) => client.close().catch(() => undefined),
);
let key: string;
let article = 0;

beforeAll(() => {
  key = sandbox.keys.admin;
});

function expectNoLeak(where: string, value: unknown, form: KeyForm): void {
  expect(keyLeaks(value, key), `${where}; the key went in ${form.name}: ${form.text}`).toEqual([]);
}

async function articleIdByTitle(title: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/v2/hc-articles/public`, { headers: { authorization: `Bearer ${key}` } });
  const found = ((await response.json()) as Array<{ id: string; title: string }>).find((item) => item.title === title);
  if (!found) throw new Error(`the API holds no article titled ${JSON.stringify(title)}`);
  return found.id;
}

const upstreamBodies = (form: KeyForm) => ({
  ok: [{ id: 'b0000000-000a-4000-8000-0000000000ee', name: `Agent ${form.text}`, description: form.text, channels: [form.text], isActive: true, [form.text]: form.text }],
  error: { statusCode: 400, message: [`key ${form.text} is not valid`, form.text], error: form.text },
});

async function attack(form: KeyForm): Promise<void> {
  await sandbox.clearFaults();
  const { ok, error } = upstreamBodies(form);
  const results: Array<[string, CallToolResult]> = [];

  await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', status: 200, body: ok }]);
  results.push(['list_agents, key in a 200 body', await call(direct.client, 'list_agents')]);
  await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', status: 400, body: error }]);
  results.push(['list_agents, key in a 400 body', await call(direct.client, 'list_agents')]);
  await sandbox.faults([{ method: 'POST', path: '/v2/hc-articles/ids/public', status: 200, body: [{ id: form.text, title: form.text, mainKnowledge: `Call with ${form.text}`, version: 1 }] }]);
  results.push(['get_articles, key in a 200 body of a POST read', await call(direct.client, 'get_articles', { articleIds: [SEED.articles.returnsPolicy] })]);
  await sandbox.faults([{ method: 'POST', path: '/v2/hc-articles/public', status: 400, body: error }]);
  results.push(['create_article, key in a 400 body of a write', await call(direct.client, 'create_article', { title: 'Refused', parentFolderId: SEED.folders.shipping })]);

  const title = `Key note ${process.pid}-${article++} ${form.text}`;
  const written = { title, mainKnowledge: `Use ${form.text} to sign in.`, keywords: [form.text], parentFolderId: SEED.folders.shipping, misc: { [form.text]: form.text } };
  results.push(['create_article preview, key in the arguments', await call(confirming.client, 'create_article', written)]);
  results.push(['create_article, key in the stored article', await call(direct.client, 'create_article', written)]);
  const id = await articleIdByTitle(title);
  const readBack = await call(direct.client, 'get_articles', { articleIds: [id] });
  expect(readBack.isError, `the stored article reads back: ${textOf(readBack)}`).toBeFalsy();
  results.push(['get_articles, key read back', readBack]);
  results.push(['update_article preview, key read back and in the arguments', await call(confirming.client, 'update_article', { articleId: id, agentInstruction: form.text })]);
  results.push(['list_conversations refusal, key in a refused argument', await call(confirming.client, 'list_conversations', { question: `${form.text}%`, limit: 1000 })]);

  await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', status: 200, body: ok }]);
  results.push(['list_agents over HTTP, key in a 200 body', await call(http.client, 'list_agents')]);
  await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', status: 400, body: error }]);
  results.push(['list_agents over HTTP, key in a 400 body', await call(http.client, 'list_agents')]);
  results.push(['create_article preview over HTTP', await call(http.client, 'create_article', written)]);

  for (const [where, result] of results) expectNoLeak(`${where}: ${textOf(result).slice(0, 120)}`, result, form);
}

describe('§10.2 the key never comes back, in any form the server can compute', () => {
  const fixed = () => keyForms(key);

  it(`not from stored data, upstream bodies, previews or refusals: every listed form, then ${RANDOM_FORMS} random ones`, async () => {
    await fc.assert(
      fc.asyncProperty(keyFormArbitrary(key), (form) => attack(form)),
      { numRuns: fixed().length + RANDOM_FORMS, examples: fixed().map((form) => [form]), endOnFailure: true },
    );
  }, 180_000);

  it('not in the whole list of articles written above', async () => {
    const listed = await call(direct.client, 'list_articles', { view: 'full' });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expectNoLeak('list_articles', listed, { name: 'every form above', text: '' });
  });

  it('in no log line of any process (stdio JSON and pretty at trace level, HTTP), nor in an MCP log message', () => {
    const none = { name: 'every form above', text: '' };
    expectNoLeak('stderr of the stdio server with SVC_CONFIRM=none (JSON logs)', direct.stderr(), none);
    expectNoLeak('stderr of the stdio server with previews (pretty logs)', confirming.stderr(), none);
    expectNoLeak('stderr of the HTTP server', httpServer.stderr(), none);
    expectNoLeak('MCP log messages', [...direct.logs, ...confirming.logs].join('\n'), none);
  });
});
