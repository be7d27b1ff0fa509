import { describe, expect, it } from 'vitest';
import { canonicalJson, checkToken, issueToken, TOKEN_LIFETIME_MS, type TokenBinding } from '../../src/engine/tokens.js';

const binding: TokenBinding = {
  tool: 'update_article',
  request: { method: 'PUT', path: '/v2/hc-articles/a1/public', body: { title: 'New', questions: ['a', 'b'] } },
  apiKey: 'svc_test_key',
};
const NOW = 1_800_000_000_000;

describe('confirmation tokens', () => {
  it('bind the request whatever the key order of its body', () => {
    const { token, expiresAt } = issueToken('secret', binding, NOW);
    expect(expiresAt).toBe(NOW + TOKEN_LIFETIME_MS);
    const reordered = { ...binding, request: { ...binding.request, body: { questions: ['a', 'b'], title: 'New' } } };
    expect(checkToken('secret', token, reordered, NOW)).toEqual({ ok: true, expiresAt });
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
    expect(checkToken('secret', 'true', binding, NOW)).toMatchObject({ ok: false, reason: expect.stringContaining('not a confirmToken') });
  });

  it('expire after the lifetime, and differ on every issue', () => {
    const first = issueToken('secret', binding, NOW);
    expect(checkToken('secret', first.token, binding, first.expiresAt - 1).ok).toBe(true);
    expect(checkToken('secret', first.token, binding, first.expiresAt)).toMatchObject({ ok: false, reason: expect.stringContaining('expired at') });
    expect(issueToken('secret', binding, NOW).token).not.toBe(first.token);
  });
});
