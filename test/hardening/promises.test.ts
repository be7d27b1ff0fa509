import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED } from '../../src/sandbox/index.js';
import { disguisedText, notShownEscaped, rawHidden } from '../support/hidden-text.js';
import { apiRequests, claimsSent, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';
import { keyFormArbitrary, keyForms, keyLeaks, revealsKey, type KeyForm } from '../support/key-forms.js';
import { tokenFormArbitrary } from '../support/token-forms.js';

/**
 * The fast, in-process half of the attacks on design §10 (the other half runs against dist/ in
 * `npm run test:guarantees`): re-encoded confirmation tokens, the API key in every computable
 * form, and text that hides itself, each by property tests through a real client. They test what
 * a client sees and what the API receives, nothing of how the server does it.
 */

const sandbox = useSandbox({ rateLimit: { limit: 1_000_000, windowMs: 60_000 } });
// Trace-level logs: the most a log could give away.
const env = { SVC_RATE_LIMIT: '1000000/60s', SVC_LOG_LEVEL: 'trace' };
/** Confirmation by token (no elicitation), the default SVC_CONFIRM=writes. */
const confirming = useConnection(sandbox, { env });
/** SVC_CONFIRM=none: writes go straight through. */
const direct = useConnection(sandbox, { env: { ...env, SVC_CONFIRM: 'none' } });
let key: string;
let conversation = 0;

beforeAll(() => {
  key = sandbox.keys.admin;
});

describe('§10.1 a confirmed write is sent at most once per token, in the exact form issued', () => {
  const deletesOf = (id: string) => apiRequests(sandbox).filter((request) => request.method === 'DELETE' && request.path === `/v2/hc-interactions/${id}/public`).length;
  async function previewDelete(): Promise<{ id: string; token: string }> {
    const id = `conv-token-attack-${conversation++}`;
    const result = await confirming.call('delete_conversation', { interactionId: id });
    const token = (result.structuredContent as { confirmToken?: string } | undefined)?.confirmToken;
    expect(token, textOf(result)).toMatch(/^[0-9a-z]+\.[\w-]+\.[\w-]+$/);
    return { id, token: token! };
  }

  it('a re-encoded token (padding, zeros, case, base64 alternates, whitespace, percent-encoding) sends nothing, before or after the real one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const { id, token } = await previewDelete();
        const form = g(tokenFormArbitrary, token);
        const before = await confirming.call('delete_conversation', { interactionId: id, confirm: form.text });
        expect(claimsSent(before), `${form.name}: ${JSON.stringify(form.text)}`).toBe(false);
        expect(deletesOf(id), `${form.name} sent the write`).toBe(0);
        expect(claimsSent(await confirming.call('delete_conversation', { interactionId: id, confirm: token }))).toBe(true);
        expect(deletesOf(id)).toBe(1);
        const after = await confirming.call('delete_conversation', { interactionId: id, confirm: form.text });
        expect(claimsSent(after), `${form.name} after the token was used`).toBe(false);
        expect(deletesOf(id), `${form.name} sent the write a second time`).toBe(1);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('the token and its re-encodings sent at once write once, through the exact token', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const { id, token } = await previewDelete();
        const forms = Array.from({ length: 6 }, () => g(tokenFormArbitrary, token).text);
        const results = await Promise.all([token, token, ...forms, token].map((confirm) => confirming.call('delete_conversation', { interactionId: id, confirm })));
        expect(deletesOf(id)).toBe(1);
        const senders = results.flatMap((result, index) => (claimsSent(result) ? [index] : []));
        expect(senders).toHaveLength(1);
        expect([0, 1, results.length - 1]).toContain(senders[0]);
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });
});

describe('§10.2 the key never comes back, in any form the server can compute', () => {
  const anyForm = () => fc.oneof(fc.constantFrom(...keyForms(key)), keyFormArbitrary(key));
  const expectNoLeak = (what: string, value: unknown, form: KeyForm) => expect(keyLeaks(value, key), `${what}, key ${form.name}: ${form.text}`).toEqual([]);

  it('the detector the attacks rely on finds every form, and no form of another key', () => {
    const other = `svc_${'0123456789abcdef'.repeat(2)}`;
    fc.assert(
      fc.property(anyForm(), fc.oneof(fc.constantFrom(...keyForms(other)), keyFormArbitrary(other)), fc.string(), fc.string(), (form, otherForm, before, after) => {
        expect(revealsKey(`${before}${form.text}${after}`, key), form.name).toBeDefined();
        expect(revealsKey(`${before}${otherForm.text}${after}`, key), otherForm.name).toBeUndefined();
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });

  it("written into an article and read back, in the write's result, its preview and every read", async () => {
    await fc.assert(
      fc.asyncProperty(anyForm(), async (form) => {
        const title = `Key note ${conversation++} ${form.text}`;
        const args = { title, mainKnowledge: `Body: ${form.text}`, keywords: [form.text], parentFolderId: SEED.folders.shipping };
        expectNoLeak('preview', await confirming.call('create_article', args), form);
        expectNoLeak('create_article', await direct.call('create_article', args), form);
        const id = await articleIdByTitle(title);
        const readBack = await direct.call('get_articles', { articleIds: [id] });
        expect(readBack.isError, textOf(readBack)).toBeFalsy();
        expectNoLeak('get_articles', readBack, form);
        expectNoLeak('update preview', await confirming.call('update_article', { articleId: id, agentInstruction: form.text }), form);
      }),
      { numRuns: 15, endOnFailure: true },
    );
    expectNoLeak('list_articles', await direct.call('list_articles', {}), { name: 'all of them', text: '' });
  });

  it('in upstream 200 and 400 bodies, in results and errors', async () => {
    await fc.assert(
      fc.asyncProperty(anyForm(), fc.constantFrom(200, 400, 404, 500), async (form, status) => {
        const body =
          status === 200
            ? [{ id: 'b0000000-000a-4000-8000-0000000000ff', name: `Agent ${form.text}`, description: form.text, channels: [form.text], isActive: true }]
            : { statusCode: status, message: [`rejected ${form.text}`, form.text], error: form.text };
        sandbox.clearFaults();
        sandbox.injectFaults([{ method: 'GET', path: '/v2/bots/public', status, body, times: 4 }]);
        expectNoLeak(`list_agents after a ${status}`, await direct.call('list_agents', {}), form);
      }),
      { numRuns: 20, endOnFailure: true },
    );
  });

  it('in no log line', () => {
    for (const connection of [confirming, direct]) expect(keyLeaks(connection.stderr(), key)).toEqual([]);
    expect(keyLeaks([...confirming.logs, ...direct.logs].join('\n'), key)).toEqual([]);
  });
});

describe('§10.5 text cannot disguise itself', () => {
  const expectShownEscaped = (what: string, input: string, shown: string) => {
    expect(rawHidden(shown), `${what} shows hidden characters as they are`).toEqual([]);
    expect(notShownEscaped(input, shown), `${what} does not show these escaped`).toEqual([]);
  };

  it('bidi controls and zero-width characters in arguments are escaped in previews', async () => {
    await fc.assert(
      fc.asyncProperty(disguisedText(), async (text) => {
        const result = await confirming.call('create_article', { title: text, mainKnowledge: text });
        const preview = result.structuredContent as { message: string; effect: string[]; request: string };
        expectShownEscaped('the preview text', text, textOf(result));
        expectShownEscaped('the structured preview', text, [preview.message, ...preview.effect, preview.request].join('\n'));
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('bidi controls and zero-width characters in API data are escaped in results', async () => {
    await fc.assert(
      fc.asyncProperty(disguisedText(), async (text) => {
        sandbox.clearFaults();
        sandbox.injectFaults([
          { method: 'GET', path: '/v2/bots/public', status: 200, body: [{ id: 'b0000000-000a-4000-8000-0000000000fe', name: text, description: text, channels: ['chat'], isActive: true }] },
        ]);
        expectShownEscaped('list_agents', text, textOf(await direct.call('list_agents', {})));
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });
});

/** The id of the article with this title, asked of the API directly (nothing of the server's). */
async function articleIdByTitle(title: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/v2/hc-articles/public`, { headers: { authorization: `Bearer ${key}` } });
  const articles = (await response.json()) as Array<{ id: string; title: string }>;
  const found = articles.find((article) => article.title === title);
  if (!found) throw new Error(`no article titled ${JSON.stringify(title)}`);
  return found.id;
}
