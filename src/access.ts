/**
 * What the HTTP transport and the OAuth server both speak of, so neither imports the other: the shape
 * of a workspace key, a bearer token that stands for one, and a refused request.
 */

/** The cheap shape of a workspace key, checked before the API is asked about it. */
export const KEY_SHAPE = /^svc_[A-Za-z0-9_-]{8,200}$/;

/** What the API said of a key: accepted, refused (401), or nothing usable (unreachable, throttled, failing: the reason says which). */
export type KeyVerdict = { kind: 'accepted' } | { kind: 'refused' } | { kind: 'unchecked'; reason: string };

/** Asks the API about a key before anything is bound to it: a session, or an OAuth grant. */
export interface KeyCheck {
  /** `from`: the client address the check is counted under (ClientAddresses.share), whose checks take turns with other addresses'. */
  verify(key: string, keyHash: string, from: string): Promise<KeyVerdict>;
}

/** Why a request is refused: what the HTTP answer says. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Bearer tokens that are not workspace keys but stand for one: OAuth access tokens (src/oauth) plug
 * in here. With them, a request that brings nothing is asked to sign in rather than served with
 * SVC_API_KEY.
 */
export interface AccessTokens {
  /** The API key and access the token was granted, or why it is refused (unknown, expired, revoked, another resource). */
  resolve(token: string): Promise<{ key: string; readOnly: boolean } | Refusal>;
  /** The `WWW-Authenticate` value of a 401 that starts OAuth: it names the resource metadata. */
  challenge: string;
}

/** A name of this machine: localhost, ::1 or 127.x.x.x (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
