import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SEED } from '../../src/sandbox/index.js';
import { disguisedText, notShownEscaped, rawHidden } from '../support/hidden-text.js';
import { useStarted } from '../support/fixture.js';
import { claimsSent, connectProcess, textOf } from '../support/harness.js';
import { keyLeaks, stringsIn } from '../support/key-forms.js';
import { call, confirmTokenOf, upstreamEnv, useStandaloneSandbox } from './support.js';

/**
 * Design §10.4 and §10.5 against dist/: what a preview shows is what is sent (every value, whatever
 * its field is called, however long, except the configured key), and text cannot disguise itself
 * (bidi controls and zero-width characters are shown escaped, from arguments and from API data).
 */

const sandbox = useStandaloneSandbox();
/** Previews and tokens, with the smallest result cap, so a cut preview would show. */
const confirming = useStarted(
  () => connectProcess({ env: upstreamEnv(sandbox, { SVC_MAX_RESULT_TOKENS: '500' }) }),
  (server) => server.close(),
);
const direct = useStarted(
  () => connectProcess({ env: upstreamEnv(sandbox, { SVC_CONFIRM: 'none' }) }),
  (server) => server.close(),
);
let key: string;
let serial = 0;

beforeAll(() => {
  key = sandbox.keys.admin;
});

/** Field names a masking rule might catch. */
const SECRET_NAMES = [
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'token',
  'accessToken',
  'refresh_token',
  'apiKey',
  'api_key',
  'x-api-key',
  'authorization',
  'Authorization',
  'cookie',
  'Set-Cookie',
  'privateKey',
  'credentials',
  'bearer',
  'session',
];
/** Printable text with nothing a JSON rendering would escape, so "appears in the preview" is a plain substring test. */
const plainText = (minLength: number, maxLength: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9 .,:;/@#&()+=?!~-]{${minLength - 1},${maxLength - 1}}$`));

function payload(): fc.Arbitrary<Record<string, unknown>> {
  const leaf = fc.oneof(plainText(4, 40), fc.integer({ min: 1000, max: 1e9 }), fc.constant(true));
  const secretField = fc.tuple(fc.constantFrom(...SECRET_NAMES), leaf);
  return fc
    .record({
      secrets: fc.uniqueArray(secretField, { minLength: 1, maxLength: 6, selector: ([name]) => name }),
      headers: fc.dictionary(fc.constantFrom('Authorization', 'X-Api-Key', 'Cookie', 'X-Custom'), plainText(8, 40), { minKeys: 1 }),
      hidden: plainText(8, 24),
      body: fc.oneof(plainText(8, 60), plainText(3000, 6000)),
      withKey: fc.boolean(),
    })
    .map(({ secrets, headers, hidden, body, withKey }) => ({
      ...Object.fromEntries(secrets),
      misc: { headers, stored: { hide: true, value: hidden }, masked: { hide: true, value: '********' }, ...(withKey ? { configuredKey: key } : {}) },
      mainKnowledge: body,
    }));
}

/** Every field name and value of what was sent, as text, except the configured key. */
function sentLeaves(value: unknown): string[] {
  if (typeof value === 'string') return value === key ? [] : [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(sentLeaves);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([name, item]) => [name, ...sentLeaves(item)]);
  return [];
}

describe('§10.4 what a preview shows is what is sent', () => {
  it('every field and value the write sends is in its preview, text and structured, whatever the field is called and however long; the configured key is not (30 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(payload(), async (extra) => {
        const args = { title: `Preview check ${process.pid}-${serial++}`, parentFolderId: SEED.folders.shipping, ...extra };
        const preview = await call(confirming.client, 'create_article', args);
        expect(claimsSent(preview)).toBe(false);
        await sandbox.clearRequests();
        const sent = await call(confirming.client, 'create_article', { ...args, confirm: confirmTokenOf(preview) });
        expect(claimsSent(sent), textOf(sent)).toBe(true);
        const write = (await sandbox.requests()).find((request) => request.method === 'POST' && request.path === '/v2/hc-articles/public');
        expect(write, 'the write reached the API').toBeDefined();

        const text = textOf(preview);
        const structured = stringsIn(preview.structuredContent).join('\n');
        const missing = (shown: string) =>
          sentLeaves(write!.body)
            .filter((leaf) => !shown.includes(leaf))
            .map((leaf) => (leaf.length > 60 ? `${leaf.slice(0, 60)}… (${leaf.length} characters)` : leaf));
        expect(missing(text), 'sent but not in the preview text').toEqual([]);
        expect(missing(structured), 'sent but not in the structured preview').toEqual([]);
        expect(keyLeaks(preview, key), 'the configured key in the preview').toEqual([]);
      }),
      { numRuns: 30, endOnFailure: true },
    );
  });
});

describe('§10.5 text cannot disguise itself', () => {
  const expectShownEscaped = (where: string, input: string, result: CallToolResult) => {
    const text = textOf(result);
    expect(rawHidden(text), `${where} shows hidden characters as they are: ${JSON.stringify(text.slice(0, 300))}`).toEqual([]);
    expect(notShownEscaped(input, text), `${where} does not show these as escapes`).toEqual([]);
  };

  it('in arguments: previews, write results and refusals show them escaped (30 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(disguisedText(), async (text) => {
        const title = `${text} ${process.pid}-${serial++}`;
        expectShownEscaped('create_article preview', title, await call(confirming.client, 'create_article', { title, mainKnowledge: text, parentFolderId: SEED.folders.shipping }));
        expectShownEscaped('update_article preview', text, await call(confirming.client, 'update_article', { articleId: SEED.articles.returnsPolicy, title: text }));
        const refused = await call(direct.client, 'list_conversations', { question: text, limit: 0 });
        expect(rawHidden(textOf(refused)), 'a refusal').toEqual([]);
      }),
      { numRuns: 30, endOnFailure: true },
    );
  });

  it('in API data: stored text read back, upstream bodies and upstream error messages show them escaped (30 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(disguisedText(), async (text) => {
        const title = `${text} ${process.pid}-${serial++}`;
        const created = await fetch(`${sandbox.url}/v2/hc-articles/public`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          // Not `text` alone as the body: it may be blanks and hidden characters only, which the API refuses as empty.
          body: JSON.stringify({ title, mainKnowledge: title, parentFolderId: SEED.folders.shipping }),
        });
        expect(created.status, 'the sandbox stored the article').toBe(201);
        const { id } = (await created.json()) as { id: string };
        expectShownEscaped('get_articles', title, await call(direct.client, 'get_articles', { articleIds: [id] }));
        expectShownEscaped('delete_article preview', title, await call(confirming.client, 'delete_article', { articleId: id }));

        await sandbox.clearFaults();
        await sandbox.faults([
          { method: 'GET', path: '/v2/bots/public', status: 200, body: [{ id: 'b0000000-000a-4000-8000-0000000000dd', name: text, description: text, channels: ['chat'], isActive: true }] },
        ]);
        expectShownEscaped('list_agents', text, await call(direct.client, 'list_agents'));
        await sandbox.faults([{ method: 'GET', path: '/v2/bots/public', status: 400, body: { statusCode: 400, message: [text], error: 'Bad Request' } }]);
        expectShownEscaped('list_agents after a 400', text, await call(direct.client, 'list_agents'));
      }),
      { numRuns: 30, endOnFailure: true },
    );
  });
});
