import pino, { type Logger } from 'pino';

export type { Logger };

const API_KEY_PATTERN = /svc_[A-Za-z0-9_\-]{4,}/g;

/** Defence in depth: any text leaving the process passes here, so a key that slipped into a message is masked. */
export function scrubSecrets(text: string): string {
  return text.replace(API_KEY_PATTERN, 'svc_***');
}

/**
 * Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else. The in-process
 * test harness passes its own destination to read what a process would have written there.
 */
export function createLogger(level: string, destination: pino.DestinationStream = pino.destination({ fd: 2, sync: true })): Logger {
  return pino(
    {
      level,
      base: { service: 'svc-mcp' },
      redact: { paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)) as typeof args);
        },
      },
    },
    destination,
  );
}
