import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiRequest } from '../upstream/client.js';
import { canonicalJson } from '../json.js';

/** How long a preview's token stays valid: long enough for a user to read it and say yes. */
export const TOKEN_LIFETIME_MS = 10 * 60_000;

/** What a confirmation token is bound to: this tool, this exact request, this API key, and the spent store that records it. */
export interface TokenBinding {
  tool: string;
  request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>;
  apiKey: string;
  /** The id of the store its spending is recorded in (`StateStore.id`): a server with another store cannot know whether it was spent. */
  store: string;
}

/** Why a token was refused: the words `structuredContent.refused` carries. */
export type TokenRefusal = 'spent' | 'mismatch' | 'expired' | 'invalid' | 'elsewhere';

/** An accepted token carries its MAC, the one id its spending is recorded under. */
export type TokenCheck = { ok: true; mac: string; expiresAt: number } | { ok: false; refused: Exclude<TokenRefusal, 'spent'>; reason: string };

const TOKEN_SHAPE = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{19})\.([A-Za-z0-9_-]{43})$/;
const NONCE_BYTES = 8;

/**
 * `<expiry, base 36>.<nonce and spent store>.<HMAC-SHA256, base64url>`. The expiry travels in
 * clear so it can be checked, and is covered by the MAC so it cannot be stretched; the nonce makes
 * every preview's token new, so a fresh preview never repeats a spent token; the store (its 6-byte
 * id, after the nonce) names where the token is recorded as spent, so that a server with another
 * store refuses it rather than send it once more. The key enters only as a hash.
 */
export function issueToken(secret: string, binding: TokenBinding, now: number): { token: string; expiresAt: number } {
  const expiresAt = now + TOKEN_LIFETIME_MS;
  const nonce = Buffer.concat([randomBytes(NONCE_BYTES), Buffer.from(binding.store, 'hex')]).toString('base64url');
  return { token: formatToken(expiresAt, nonce, mac(secret, binding, expiresAt, nonce)), expiresAt };
}

function formatToken(expiresAt: number, nonce: string, tokenMac: string): string {
  return `${expiresAt.toString(36)}.${nonce}.${tokenMac}`;
}

/**
 * A token is accepted only in the exact text the server issued: its parts are decoded and encoded
 * again, and anything else (leading zeros, another case, other base64 characters for the same
 * bytes, surrounding space) is refused as not a token, so one token cannot pass as several.
 */
export function checkToken(secret: string, token: string, binding: TokenBinding, now: number): TokenCheck {
  const match = TOKEN_SHAPE.exec(token);
  const expiresAt = match ? parseInt(match[1], 36) : NaN;
  const canonical = match && Number.isSafeInteger(expiresAt) && formatToken(expiresAt, reencoded(match[2]), reencoded(match[3])) === token;
  if (!match || !canonical) return { ok: false, refused: 'invalid', reason: 'it is not a confirmToken as a preview of this server gave it (the exact text, nothing added or changed).' };
  const expected = Buffer.from(mac(secret, binding, expiresAt, match[2]));
  if (!timingSafeEqual(expected, Buffer.from(match[3]))) {
    return {
      ok: false,
      refused: 'mismatch',
      reason: 'it was issued for a different request (other arguments or another tool) or another API key, or by a server with another SVC_CONFIRM_SECRET.',
    };
  }
  const store = Buffer.from(match[2], 'base64url').subarray(NONCE_BYTES).toString('hex');
  if (store !== binding.store) {
    return {
      ok: false,
      refused: 'elsewhere',
      reason: `it was issued by another server, whose spent store (${store}) is not this one's (${binding.store}), so this server cannot know whether it already sent its request. Without SVC_REDIS_URL a token sends only through the server that issued it.`,
    };
  }
  if (expiresAt <= now) return { ok: false, refused: 'expired', reason: `it expired at ${new Date(expiresAt).toISOString()}.` };
  return { ok: true, mac: match[3], expiresAt };
}

/** base64url text decoded and encoded again: equal to the input only if the input is the one encoding of its bytes. */
function reencoded(base64url: string): string {
  return Buffer.from(base64url, 'base64url').toString('base64url');
}

function mac(secret: string, binding: TokenBinding, expiresAt: number, nonce: string): string {
  const { method, path, query, body } = binding.request;
  const keyHash = createHash('sha256').update(binding.apiKey).digest('hex');
  const subject = canonicalJson(['svc-confirm-v1', binding.tool, { method, path, query, body }, keyHash, expiresAt, nonce]);
  return createHmac('sha256', secret).update(subject).digest('base64url');
}
