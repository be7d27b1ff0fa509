import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { checkClientMetadata } from './checks.js';
import { isPublicAddress } from './public-address.js';

/**
 * Client ID Metadata Documents (design §17; draft-ietf-oauth-client-id-metadata-document): a client
 * whose client_id is an https URL is who the document at that URL says, provided the document names
 * that very URL as its client_id. Anyone can put any URL in an authorization link, so the fetch is
 * an attacker's tool unless held: no redirect is followed; the host's addresses are resolved once and
 * the connection goes to the addresses checked (no second lookup a rebinding DNS server could answer
 * differently), public ones only unless this server itself is on loopback; 5 s and 64 KB at most, the
 * body's time included (a document sent a byte at a time is cut off); a few fetches at once, one per URL.
 * A document is kept as long as its HTTP caching headers allow (a day at most), under its exact URL.
 */

/** `cachedBytes` bounds what documents kept in memory may weigh together (a thousand 64 KB documents with a day's max-age would be 64 MB). */
export const DOCUMENT_LIMITS = { timeoutMs: 5_000, bytes: 64 * 1024, maxAgeMs: 24 * 60 * 60_000, cached: 1_000, cachedBytes: 4 * 1024 * 1024, fetchesAtOnce: 16 };

/** A client the document vouches for, or why there is none (a sentence for the person and the log). */
export type DocumentOutcome = { client: OAuthClientInformationFull } | { refusal: string };

export interface DocumentOptions {
  /** Private and loopback addresses too: only when SVC_PUBLIC_URL is itself a loopback URL (a server and clients on one machine). */
  allowPrivate: boolean;
  /** Host name resolution (the system's); tests answer as a rebinding DNS server would. */
  lookup?: typeof systemLookup;
}

/** Whether a client_id is meant as a document's URL: every https client_id is, and is refused if it breaks the rules. */
export function isDocumentUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * Why `clientId` cannot name a document, or undefined. Beyond the draft's rules (https, a path, no
 * fragment, no user or password, no dot segment), the URL must be written as the URL standard writes
 * it: the document's client_id must equal it character for character, and one URL has one cache entry.
 */
export function documentUrlRefusal(clientId: string): string | undefined {
  if (!URL.canParse(clientId)) return 'it is not a URL';
  const url = new URL(clientId);
  if (url.protocol !== 'https:') return 'it must use https';
  if (url.username || url.password) return 'it must not carry a user name or password';
  if (url.hash || clientId.includes('#')) return 'it must not have a fragment';
  if (url.pathname === '/') return 'it must have a path (the document of one client)';
  // The standard form has no "." or ".." segment (the draft forbids them), no default port, a lower-case host.
  if (url.href !== clientId) return `it must be written in its standard form, ${url.href}`;
  return undefined;
}

/** How long a response may be kept by its Cache-Control, Expires and Age headers (RFC 9111), in ms: 0 when it may not. */
export function freshFor(headers: Record<string, string | string[] | undefined>, now = Date.now()): number {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const directives = new Map<string, string>();
  for (const part of (header('cache-control') ?? '').split(',')) {
    const [name, value = ''] = part.trim().toLowerCase().split('=');
    if (name) directives.set(name, value.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const age = Math.max(0, Number(header('age')) || 0) * 1000;
  const maxAge = directives.get('s-maxage') ?? directives.get('max-age');
  let lifetime: number;
  if (maxAge !== undefined) lifetime = /^\d+$/.test(maxAge) ? Number(maxAge) * 1000 : 0;
  else {
    const expires = Date.parse(header('expires') ?? '');
    const date = Date.parse(header('date') ?? '');
    lifetime = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? now : date);
  }
  return Math.min(Math.max(0, lifetime - age), DOCUMENT_LIMITS.maxAgeMs);
}

/** Thrown from the connection's own lookup: the host resolved to an address the fetch may not reach. */
class AddressRefused extends Error {}

export class ClientDocuments {
  private readonly cache = new Map<string, { client: OAuthClientInformationFull; until: number; bytes: number }>();
  private cachedBytes = 0;
  private readonly pending = new Map<string, Promise<DocumentOutcome>>();
  /** The latest refusal of each URL, for the page that explains to the person why their application is unknown. */
  private readonly refusals = new Map<string, string>();
  private agent?: Promise<Agent>;

  constructor(private readonly options: DocumentOptions) {}

  /** The client the document at `url` describes, from the cache while it is fresh, else fetched (once, however many ask at the same time). */
  async resolve(url: string): Promise<DocumentOutcome> {
    const cached = this.cache.get(url);
    if (cached && cached.until > Date.now()) return { client: cached.client };
    this.forget(url);
    let outcome = this.pending.get(url);
    if (!outcome) {
      if (this.pending.size >= DOCUMENT_LIMITS.fetchesAtOnce) return this.refuse(url, 'this server is fetching too many client metadata documents at once; try again in a moment');
      outcome = this.fetchDocument(url).finally(() => this.pending.delete(url));
      this.pending.set(url, outcome);
    }
    return outcome;
  }

  /** Why the document at `url` was last refused, if it was. */
  refusalOf(url: string): string | undefined {
    return this.refusals.get(url);
  }

  async close(): Promise<void> {
    await (await this.agent)?.close();
  }

  private async fetchDocument(url: string): Promise<DocumentOutcome> {
    const badUrl = documentUrlRefusal(url);
    if (badUrl) return this.refuse(url, `the client_id ${clip(url)} cannot name a client metadata document: ${clip(badUrl)}`);
    // The link's own words, as the page shows them and the log keeps them.
    const named = clip(url);
    // A host written as an address is connected to without a lookup, so it is checked here.
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.options.allowPrivate && !isPublicAddress(host)) return this.refuse(url, privateAddress(named, host));
    try {
      const { request } = (await import('undici')).default;
      const response = await request(url, {
        dispatcher: await this.dispatcher(),
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(DOCUMENT_LIMITS.timeoutMs),
      });
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400) {
        discard(body);
        return this.refuse(url, `the client metadata document at ${named} redirects (HTTP ${statusCode}); redirects are not followed`);
      }
      if (statusCode !== 200) {
        discard(body);
        return this.refuse(url, `the client metadata document at ${named} answered HTTP ${statusCode}, not 200`);
      }
      const type = String(headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      if (type !== 'application/json' && !type.endsWith('+json')) {
        discard(body);
        return this.refuse(url, `the client metadata document at ${named} is served as ${clip(type) || 'no content type'}, not application/json`);
      }
      const text = await readLimited(body, Number(headers['content-length']));
      if (text === undefined) return this.refuse(url, `the client metadata document at ${named} is larger than ${DOCUMENT_LIMITS.bytes / 1024} KB`);
      const client = documentClient(url, text);
      if (typeof client === 'string') return this.refuse(url, `the client metadata document at ${named} ${client}`);
      this.keep(url, client, freshFor(headers), Buffer.byteLength(text));
      this.refusals.delete(url);
      return { client };
    } catch (error) {
      return this.refuse(url, fetchFailure(named, error));
    }
  }

  /** Keeps a document for its lifetime, the oldest ones making room when the count or the weight would pass its bound. */
  private keep(url: string, client: OAuthClientInformationFull, lifetime: number, bytes: number): void {
    if (lifetime <= 0) return;
    this.forget(url);
    while (this.cache.size > 0 && (this.cache.size >= DOCUMENT_LIMITS.cached || this.cachedBytes + bytes > DOCUMENT_LIMITS.cachedBytes)) this.forget(this.cache.keys().next().value!);
    this.cache.set(url, { client, until: Date.now() + lifetime, bytes });
    this.cachedBytes += bytes;
  }

  private forget(url: string): void {
    this.cachedBytes -= this.cache.get(url)?.bytes ?? 0;
    this.cache.delete(url);
  }

  private refuse(url: string, refusal: string): DocumentOutcome {
    this.refusals.delete(url);
    if (this.refusals.size >= DOCUMENT_LIMITS.cached) this.refusals.delete(this.refusals.keys().next().value!);
    this.refusals.set(url, refusal);
    return { refusal };
  }

  /** One connection pool for every document, whose every connection goes only to addresses its own lookup checked. */
  private dispatcher(): Promise<Agent> {
    this.agent ??= import('undici').then(({ default: { Agent } }) => {
      const seconds = DOCUMENT_LIMITS.timeoutMs;
      return new Agent({ connect: { lookup: this.checkedLookup(), timeout: seconds }, headersTimeout: seconds, bodyTimeout: seconds, connections: 4, keepAliveTimeout: 4_000 });
    });
    return this.agent;
  }

  /**
   * The lookup a connection makes: every address the name has is checked, and the connection goes to
   * those addresses; a name with one private address among public ones is refused (a rebinding DNS
   * server answers both, hoping the connection picks the private one).
   */
  private checkedLookup(): LookupFunction {
    const resolve = this.options.lookup ?? systemLookup;
    return (hostname, options, callback) => {
      resolve(hostname, { all: true, family: options.family, hints: options.hints }, (error, found) => {
        const addresses = found as unknown as LookupAddress[];
        if (error) return callback(error, '', 0);
        const refused = this.options.allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
        if (refused || addresses.length === 0) return callback(new AddressRefused(refused?.address ?? 'no address'), '', 0);
        if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }
}

function privateAddress(url: string, address: string): string {
  return `the host of ${url} is at ${address}, which is not a public address; this server fetches client metadata documents from public addresses only`;
}

/** Closes a body unread: undici then aborts its request, which is reported on the body and is no failure here. */
function discard(body: { destroy(): unknown; on(event: 'error', listener: () => void): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** The body as text, or undefined past the size limit (declared or counted: it stops reading at once). */
async function readLimited(body: AsyncIterable<Buffer> & Parameters<typeof discard>[0], declared: number): Promise<string | undefined> {
  if (declared > DOCUMENT_LIMITS.bytes) {
    discard(body);
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > DOCUMENT_LIMITS.bytes) {
      discard(body);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The client a document describes, or what is wrong with it (completing "the client metadata document at <url> ..."). */
function documentClient(url: string, text: string): OAuthClientInformationFull | string {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'is not a JSON object';
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== url) return `names the client_id ${clip(JSON.stringify(fields.client_id) ?? 'undefined')}, not its own URL (they must be equal, character for character)`;
  if ('client_secret' in fields || 'client_secret_expires_at' in fields) return 'holds a client_secret, which a public document must not';
  const method = fields.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') return `asks for token_endpoint_auth_method ${String(method)}; a client known by its document authenticates with none (and PKCE)`;
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) return `is not valid client metadata: ${clip(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'document'}: ${issue.message}`).join('; '))}`;
  try {
    checkClientMetadata({ ...parsed.data, application_type: fields.application_type });
  } catch (error) {
    return `is refused: ${clip((error as Error).message)}`;
  }
  return { ...parsed.data, client_id: url, token_endpoint_auth_method: 'none' };
}

/** A document's own words in a refusal, which the page shows and the log keeps: a few hundred characters at most. */
function clip(text: string, length = 200): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** What a fetch that threw says to the person: the refused address, the time limit, or the network's own words. */
function fetchFailure(url: string, error: unknown): string {
  const cause = error as Error & { code?: string; cause?: Error };
  if (cause instanceof AddressRefused || cause.cause instanceof AddressRefused) return privateAddress(url, (cause instanceof AddressRefused ? cause : cause.cause!).message);
  if (cause.name === 'TimeoutError' || cause.name === 'AbortError' || /timeout/i.test(cause.code ?? '')) {
    return `the client metadata document at ${url} did not arrive within ${DOCUMENT_LIMITS.timeoutMs / 1000} s`;
  }
  return `the client metadata document at ${url} could not be fetched (${cause.code ?? cause.message})`;
}
