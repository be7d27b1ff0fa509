/** What every sandbox route reads and writes on the wire: the request's method and body, a JSON answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors.js';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function methodOf(req: IncomingMessage): string {
  return (req.method ?? 'GET').toUpperCase();
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The body as text; a body over 5 MiB fails with 413 and ends the request. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'request entity too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A request body read as JSON: undefined when blank; the text itself, with the parser's message, when not JSON. */
export interface JsonBody {
  value: unknown;
  error?: string;
}

export function parseJsonBody(text: string): JsonBody {
  if (text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { value: text, error: (err as Error).message };
  }
}
