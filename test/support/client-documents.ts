import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT } from './paths.js';

/**
 * Where clients' metadata documents live in tests: an https server on loopback with a certificate of
 * the tests' own CA (test/support/tls/ca.pem, whose key was thrown away once the certificate was signed),
 * trusted by the server under test through NODE_EXTRA_CA_CERTS as any private CA would be. Its
 * certificate names localhost, 127.0.0.1, ::1 and *.cimd.test. Each path answers as a test says: a good
 * document, or one of the ways an attacker's host answers (redirects, huge or slow bodies).
 */
export const TEST_CA = path.join(ROOT, 'test/support/tls/ca.pem');
const CERTIFICATE = { cert: readFileSync(path.join(ROOT, 'test/support/tls/loopback.pem')), key: readFileSync(path.join(ROOT, 'test/support/tls/loopback-key.pem')) };

export type DocumentHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocumentHost {
  /** `https://127.0.0.1:<port>`. */
  origin: string;
  /** The URL of `name` on this host, which a document there names as its client_id. */
  url(name: string): string;
  serve(name: string, handler: DocumentHandler): string;
  /** GET requests each path received. */
  hits(name: string): number;
  /** TLS connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const handlers = new Map<string, DocumentHandler>();
  const hits = new Map<string, number>();
  let connections = 0;
  const server = https.createServer(CERTIFICATE, (req, res) => {
    const name = (req.url ?? '/').slice(1);
    hits.set(name, (hits.get(name) ?? 0) + 1);
    const handler = handlers.get(name);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = (name: string) => `${origin}/${name}`;
  return {
    origin,
    url,
    serve(name, handler) {
      handlers.set(name, handler);
      return url(name);
    },
    hits: (name) => hits.get(name) ?? 0,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A client metadata document naming `clientId`, returning to `redirectUris`. */
export function clientDocument(clientId: string, redirectUris: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Document client',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

/** Answers JSON, with caching headers if given. */
export function json(body: unknown, headers: Record<string, string> = {}): DocumentHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Redirects to `location` (which may hold a perfectly good document). */
export function redirect(location: string, status = 302): DocumentHandler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

/** A body of `bytes` bytes of valid-looking JSON, its length declared or (chunked) not. */
export function huge(clientId: string, bytes: number, declared: boolean): DocumentHandler {
  const text = JSON.stringify({ ...clientDocument(clientId, ['http://127.0.0.1:9/callback']), padding: 'x'.repeat(bytes) });
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(Buffer.byteLength(text)) } : {}) });
    // In pieces, so an undeclared length is only found out by counting.
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= text.length) return void res.end();
      res.write(text.slice(at, (at += 8192)), next);
    };
    next();
  };
}

/** Headers at once, then one byte every `everyMs` (a slow-loris document that never stays idle long enough for an idle timeout). */
export function slow(everyMs: number): DocumentHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const timer = setInterval(() => res.write(' '), everyMs);
    res.once('close', () => clearInterval(timer));
  };
}
