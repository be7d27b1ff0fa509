import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answering, apiRequests, textOf } from '../support/harness.js';
import { useConnection, useSandbox } from '../support/fixture.js';

/**
 * What a preview shows is what is sent (design 10.4): every value of the request, whatever its
 * field name, `{hide: true}` values included; only the session's API key is masked; no cap cuts it.
 * (A prompt-injected model put customer data under `secretNote` and the user approved stars.)
 */
const sandbox = useSandbox();
// The smallest result budget: a preview must not be cut by it.
const env = { SVC_MAX_RESULT_TOKENS: '500' };
const byToken = useConnection(sandbox, { env });
const questions: string[] = [];
const asking = useConnection(sandbox, { env, elicit: answering(questions, { action: 'decline' }) });
/** Lists create_tag's output schema, so its preview comes as an error with the structure in `_meta`. */
const unconfirmed = useConnection(sandbox, { env: { ...env, SVC_CONFIRM: 'none' } });

const SECRET_NAMES = ['Authorization', 'X-Api-Key', 'token', 'password', 'secretNote', 'Cookie', 'clientSecret', 'apiKey', 'refresh_token'];
const secretName = fc.tuple(fc.constantFrom(...SECRET_NAMES), fc.stringMatching(/^[A-Za-z]{0,4}$/)).map(([name, suffix]) => name + suffix);
const text = fc.string({ minLength: 6, maxLength: 40 });
const headerValue = fc.oneof(
  text,
  text.map((value) => ({ hide: true, value })),
  fc.constant({ hide: true, value: '********' }),
);
const bodyValue = fc.oneof(
  text,
  text.map((value) => ({ hide: true, value })),
  fc.dictionary(secretName, text, { maxKeys: 2 }),
);

/** Every string a payload holds, as the preview's JSON shows it. */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [JSON.stringify(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}

describe('previews of a write', () => {
  it('show every value sent under secret-looking names, hidden ones included, by token and by elicitation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(secretName, headerValue, { minKeys: 1, maxKeys: 4 }), fc.dictionary(secretName, bodyValue, { minKeys: 1, maxKeys: 4 }), async (headers, body) => {
        const args = { toolId: 'tool-preview', url: 'https://api.example.com/orders', method: 'POST', headers, body };
        const preview = await byToken.call('add_data_step', args);
        const request = (preview.structuredContent as { request: string }).request;
        questions.length = 0;
        await asking.call('add_data_step', args);
        for (const value of leaves({ headers, body })) {
          expect(textOf(preview)).toContain(value);
          expect(request).toContain(value);
          expect(questions[0]).toContain(value);
        }
        expect(apiRequests(sandbox).filter((sent) => sent.method !== 'GET')).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('is not cut by the result cap, however long', async () => {
    const long = `customer record ${'x'.repeat(8_000)} end`;
    const preview = await byToken.call('add_data_step', { toolId: 't', url: 'https://api.example.com/x', body: { secretNote: long } });
    expect(textOf(preview)).toContain(long);
    expect((preview.structuredContent as { request: string }).request).toContain(long);
  });

  it("masks the configured key in a preview, and the caller's secrets only in what a sent call returns", async () => {
    const args = { toolId: 't', url: 'https://api.example.com/x', headers: { Authorization: `Bearer ${sandbox.keys.admin}`, 'X-Token': { hide: true, value: 'caller-secret-1' } } };
    const preview = await byToken.call('add_data_step', args);
    expect(JSON.stringify(preview)).not.toContain(sandbox.keys.admin.slice(4));
    expect(textOf(preview)).toContain('"Authorization": "Bearer ********"');
    expect(textOf(preview)).toContain('caller-secret-1');
  });

  it('masks the configured key in a preview carried in _meta, as in its text', async () => {
    await unconfirmed.client.listTools();
    const preview = await unconfirmed.call('create_tag', { tagGroupId: 'g', tagName: `tag ${sandbox.keys.admin}`, confirm: true });
    expect(preview.isError).toBe(true);
    expect(JSON.stringify(preview._meta)).toContain('tag ********');
    expect(JSON.stringify(preview)).not.toContain(sandbox.keys.admin.slice(4));
  });
});
