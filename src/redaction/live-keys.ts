import type { Redaction } from './redaction.js';

/**
 * A workspace key in any form it may travel in: `svc_` or URL-encoded `svc%5F`, in any case. An
 * upper-cased one is told apart from this program's own setting names (SVC_API_KEY) by a digit.
 */
const API_KEY_PATTERN = /svc(?:_|%5[fF])[A-Za-z0-9_\-%]{4,}|(?<![A-Za-z0-9])SVC(?:_|%5F)(?=[A-Z_\-%]*\d)[A-Z0-9_\-%]{4,}/g;

/**
 * The API keys of the sessions open in this process (the configured one over stdio, each HTTP
 * session's own), with how many sessions hold each. A log line or error text cannot tell which
 * session it is about, so it is redacted of every live key in all its forms, not only of what looks
 * like one. Each key costs about 1 µs a line: at the default level a call writes no line unless it
 * fails.
 */
const liveKeys = new Map<string, { redaction: Redaction; sessions: number }>();

/** Registers a session's key; the returned function, called once when the session ends, forgets it with its last session. */
export function holdLiveKey(apiKey: string, redaction: Redaction): () => void {
  const held = liveKeys.get(apiKey) ?? { redaction, sessions: 0 };
  held.sessions++;
  liveKeys.set(apiKey, held);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--held.sessions === 0) liveKeys.delete(apiKey);
  };
}

/** Defence in depth: any text leaving the process passes here, so a key that slipped into a message is masked. */
export function redactLiveKeys(text: string): string {
  // The live keys first, in every form: the shape pattern would mask only a key's head, and leave a split key's rest for no pattern to find.
  let redacted = text;
  for (const { redaction } of liveKeys.values()) redacted = redaction.redact(redacted);
  return redacted.replace(API_KEY_PATTERN, 'svc_***');
}
