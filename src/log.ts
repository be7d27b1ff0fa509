import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** `svc_` keys in any case, also with the `_` percent-encoded (as in a logged URL). */
const API_KEY_PATTERN = /svc(?:_|%5f)[A-Za-z0-9_\-%]{4,}/gi;

/** Defence in depth: any text leaving the process passes here, so a key that slipped into a message is masked. */
export function scrubSecrets(text: string): string {
  return text.replace(API_KEY_PATTERN, 'svc_***');
}

/**
 * Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else. Every finished
 * line is scrubbed, so a key inside an error object, a nested field or a message is masked alike.
 */
export function createLogger(level: string): Logger {
  const stderr = pino.destination({ fd: 2, sync: true });
  const scrubbed: DestinationStream = { write: (line: string) => stderr.write(scrubSecrets(line)) };
  return pino(
    {
      level,
      base: { service: 'svc-mcp' },
      redact: { paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' },
    },
    scrubbed,
  );
}
