import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiRequest } from '../http/client.js';

/** How long a preview's token stays valid: long enough for a user to read it and say yes. */
export const TOKEN_LIFETIME_MS = 10 * 60_000;

/** What a confirmation token is bound to: this tool, this exact request, this API key. */
export interface TokenBinding {
  tool: string;
  request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>;
  apiKey: string;
}

export type TokenCheck = { ok: true; expiresAt: number } | { ok: false; reason: string };

/**
 * `<expiry, base 36>.<nonce>.<HMAC-SHA256, base64url>`. The expiry travels in clear so it can be
 * checked, and is covered by the MAC so it cannot be stretched; the nonce makes every preview's
 * token new, so a fresh preview never repeats a spent token. The key enters only as a hash.
 */
export function issueToken(secret: string, binding: TokenBinding, now: number): { token: string; expiresAt: number } {
  const expiresAt = now + TOKEN_LIFETIME_MS;
  const nonce = randomBytes(8).toString('base64url');
  return { token: `${expiresAt.toString(36)}.${nonce}.${mac(secret, binding, expiresAt, nonce)}`, expiresAt };
}

export function checkToken(secret: string, token: string, binding: TokenBinding, now: number): TokenCheck {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{43})$/.exec(token.trim());
  if (!match) return { ok: false, reason: 'it is not a confirmToken from a preview of this server.' };
  const expiresAt = parseInt(match[1], 36);
  const expected = Buffer.from(mac(secret, binding, expiresAt, match[2]));
  const given = Buffer.from(match[3]);
  if (!timingSafeEqual(expected, given)) {
    return {
      ok: false,
      reason: 'it was issued for a different request (other arguments or another tool) or another API key, or by a server with another SVC_CONFIRM_SECRET.',
    };
  }
  if (expiresAt <= now) return { ok: false, reason: `it expired at ${new Date(expiresAt).toISOString()}.` };
  return { ok: true, expiresAt };
}

function mac(secret: string, binding: TokenBinding, expiresAt: number, nonce: string): string {
  const { method, path, query, body } = binding.request;
  const keyHash = createHash('sha256').update(binding.apiKey).digest('hex');
  const subject = canonicalJson(['svc-confirm-v1', binding.tool, { method, path, query, body }, keyHash, expiresAt, nonce]);
  return createHmac('sha256', secret).update(subject).digest('base64url');
}

/** JSON with object keys sorted and undefined members left out, so equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
