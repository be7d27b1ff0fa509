import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json.js';
import { checkToken, issueToken, TOKEN_LIFETIME_MS, type TokenBinding } from '../../src/engine/tokens.js';
import { applyVariant, variantRecipe } from '../support/token-variants.js';

const binding: TokenBinding = {
  tool: 'update_article',
  request: { method: 'PUT', path: '/v2/hc-articles/a1/public', body: { title: 'New', questions: ['a', 'b'] } },
  apiKey: 'svc_test_key',
  store: '0123456789ab',
};
const NOW = 1_800_000_000_000;

describe('confirmation tokens', () => {
  it('bind the request whatever the key order of its body', () => {
    const { token, expiresAt } = issueToken('secret', binding, NOW);
    expect(expiresAt).toBe(NOW + TOKEN_LIFETIME_MS);
    const reordered = { ...binding, request: { ...binding.request, body: { questions: ['a', 'b'], title: 'New' } } };
    expect(checkToken('secret', token, reordered, NOW)).toEqual({ ok: true, expiresAt, mac: token.split('.')[2] });
    expect(canonicalJson({ b: 1, a: [undefined, { d: undefined, c: 2 }] })).toBe('{"a":[null,{"c":2}],"b":1}');
  });

  it('refuse another body, tool, key, secret, a stretched expiry and a malformed token', () => {
    const { token } = issueToken('secret', binding, NOW);
    const accepted = (candidate: string, changed: Partial<TokenBinding> = {}, secret = 'secret') => checkToken(secret, candidate, { ...binding, ...changed }, NOW).ok;
    expect(accepted(token, { request: { ...binding.request, body: { title: 'Other', questions: ['a', 'b'] } } })).toBe(false);
    expect(accepted(token, { request: { ...binding.request, body: { title: 'New', questions: ['b', 'a'] } } })).toBe(false);
    expect(accepted(token, { tool: 'create_article_draft' })).toBe(false);
    expect(accepted(token, { apiKey: 'svc_other_key' })).toBe(false);
    expect(accepted(token, {}, 'another secret')).toBe(false);
    const [expiry, ...rest] = token.split('.');
    expect(accepted([(parseInt(expiry, 36) + 3_600_000).toString(36), ...rest].join('.'))).toBe(false);
    expect(checkToken('secret', 'true', binding, NOW)).toMatchObject({ ok: false, refused: 'invalid', reason: expect.stringContaining('not a confirmToken') });
    expect(checkToken('secret', token, { ...binding, tool: 'delete_article' }, NOW)).toMatchObject({ ok: false, refused: 'mismatch' });
  });

  it('accept a token only in the exact text issued: no re-encoding of any part passes (finding: one token, five writes)', () => {
    fc.assert(
      fc.property(fc.integer({ min: NOW - 1000 * TOKEN_LIFETIME_MS, max: NOW }), variantRecipe, (issuedAt, recipe) => {
        const { token } = issueToken('secret', binding, issuedAt);
        const variant = applyVariant(recipe, token);
        return variant !== token && checkToken('secret', token, binding, issuedAt).ok && !checkToken('secret', variant, binding, issuedAt).ok;
      }),
      { numRuns: 200 },
    );
  });

  it('expire after the lifetime, and differ on every issue', () => {
    const first = issueToken('secret', binding, NOW);
    expect(checkToken('secret', first.token, binding, first.expiresAt - 1).ok).toBe(true);
    expect(checkToken('secret', first.token, binding, first.expiresAt)).toMatchObject({ ok: false, refused: 'expired', reason: expect.stringContaining('expired at') });
    expect(issueToken('secret', binding, NOW).token).not.toBe(first.token);
  });

  it('name their spent store: a server with another store refuses a token another server issued, and says why (issue 32)', () => {
    const { token } = issueToken('secret', binding, NOW);
    expect(checkToken('secret', token, binding, NOW).ok).toBe(true);
    const elsewhere = checkToken('secret', token, { ...binding, store: 'ba9876543210' }, NOW);
    expect(elsewhere).toMatchObject({ ok: false, refused: 'elsewhere', reason: expect.stringContaining("spent store (0123456789ab) is not this one's (ba9876543210)") });
    // A token whose store was changed to this server's is not one the secret signed.
    const nonce = Buffer.from(token.split('.')[1], 'base64url');
    Buffer.from('ba9876543210', 'hex').copy(nonce, 8);
    const moved = [token.split('.')[0], nonce.toString('base64url'), token.split('.')[2]].join('.');
    expect(checkToken('secret', moved, { ...binding, store: 'ba9876543210' }, NOW)).toMatchObject({ ok: false, refused: 'mismatch' });
  });
});
