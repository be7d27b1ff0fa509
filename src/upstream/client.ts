import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Pool } from 'undici';
import { exchange, type Exchanged } from './exchange.js';
import type { Logger } from '../log.js';
import { ApiError, CancelledError, ConnectionError, errorForStatus, NotJsonError, PermissionError, RateLimitError, TimeoutError, type RedactedRequest } from './errors.js';
import type { LimiterRegistry, Priority } from './limiter.js';
import type { HttpMethod } from './method.js';
import { sleep } from '../sleep.js';
import { WriteRefusals } from './write-refusals.js';
import { traceUpstream } from '../telemetry.js';

export type QueryValue = string | number | boolean | Array<string | number> | null | undefined;

export interface ApiRequest {
  method: HttpMethod;
  /** Path beginning with /v2, parameters already substituted and encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** A read may be retried; a write that may have reached the server never is. */
  read: boolean;
  signal?: AbortSignal;
  /** Told before each retry, so a waiting user can see why the call is slow. */
  onRetry?: (notice: string) => void;
  /** The route may answer JSON `null`; for others a null body is not the API's answer. */
  answersNull?: boolean;
  /** The path names an item (`/v2/replays/{id}/public`), so a 404 may mean that item is missing; a path without one has no item to miss. */
  namesItem?: boolean;
  /** Told the HTTP status of each response as the transport saw it, before the body is read or parsed. */
  onStatus?: (status: number) => void;
  /** `background`: a page a mirror sync reads; people's calls go ahead of it and keep a reserve of the budget (KeyLimiter). */
  priority?: Priority;
  /**
   * `false`: a status that would be retried after a backoff (429, 502-504, a dropped connection) is
   * answered at once, for a caller that a person is waiting on and that can simply be asked again.
   */
  backoff?: boolean;
}

export interface RetryPolicy {
  /** First backoff; later ones double, each jittered to 50-100 %. */
  baseMs: number;
  maxDelayMs: number;
  maxRetries: number;
  /** No retry starts after this much time since the first attempt, so a call ends well inside a client's 60 s timeout. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxDelayMs: 8000, maxRetries: 4, maxElapsedMs: 25_000 };

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/**
 * Why no server answered at the base URL, by error code: nothing was sent. Such a failure is not
 * backed off for seconds: a wrong SVC_BASE_URL should say so at once, not after a dozen seconds.
 */
const NO_SERVER: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused: nothing listens at that address and port',
  ENOTFOUND: 'its host name does not resolve',
  EAI_AGAIN: 'its host name could not be resolved (DNS lookup failed)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};
/** The two of them that can pass in a moment (a server restarting, a DNS hiccup) are tried once more, after QUICK_RETRY_MS. */
const QUICK_RETRY_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
const QUICK_RETRY_MS = 250;
/** Text of a non-JSON body shown (as untrusted data) in the error. */
const BODY_SAMPLE_CHARS = 200;

export interface ApiClientOptions {
  baseUrl: string;
  timeoutMs: number;
  limiters: LimiterRegistry;
  logger: Logger;
  retry?: RetryPolicy;
}

/**
 * Connections to the API at once. Each carries one request at a time, so a call beyond them waits
 * in this process holding its state: with 50 clients at once, 16 connections queued most calls and
 * what they held outlived young-generation collections (about 100 KB promoted per call against 40),
 * a quarter of the server's garbage-collection time. What is sent stays bounded by the rate budget.
 */
const MAX_CONNECTIONS = 128;

/** The one place that talks to the API: auth, JSON, timeouts, cancellation, throttling, retries, typed errors. */
export class ApiClient {
  private pool?: Pool;
  private opening?: Promise<Pool>;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly retry: RetryPolicy;
  /** The base URL as errors name it: origin and path, never credentials or a query. */
  readonly baseUrl: string;
  /** Keys whose last write the API refused with 403 (WriteRefusals). */
  readonly writeRefusals = new WriteRefusals();

  constructor(private readonly options: ApiClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.baseUrl = this.origin + this.pathPrefix;
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /** A handle that sends every request with this key and passes it through this key's budget. */
  forKey(apiKey: string): Api {
    const budgetId = this.options.limiters.budgetId(apiKey);
    return { request: <T>(request: ApiRequest) => this.send<T>(apiKey, budgetId, request) };
  }

  async close(): Promise<void> {
    await (await this.opening)?.close();
  }

  /** undici's pool is loaded with the first request, so a start that only lists tools never compiles it. */
  private open(): Promise<Pool> {
    this.opening ??= import('./pool.js').then(({ Pool }) => {
      this.pool = new Pool(this.origin, { connections: MAX_CONNECTIONS, keepAliveTimeout: 10_000, connect: { lookup: lookupHost } });
      return this.pool;
    });
    return this.opening;
  }

  private async send<T>(apiKey: string, budgetId: string, request: ApiRequest): Promise<T> {
    const redacted: RedactedRequest = { method: request.method, path: request.path, query: compactQuery(request.query) };
    const started = Date.now();
    // Before the limiter: a slot is taken only when the request can leave at once.
    const pool = this.pool ?? (await this.open());
    for (let attempt = 0; ; attempt++) {
      // Looked up per attempt: an idle budget may have been evicted since the last one.
      const limiter = this.options.limiters.forId(budgetId);
      try {
        await limiter.acquire(request.signal, request.priority);
      } catch {
        throw new CancelledError('The call was cancelled before the request was sent', redacted, undefined, [], false);
      }
      let error: ApiError;
      try {
        const answer = await this.attempt<T>(pool, apiKey, request, redacted);
        if (!request.read) this.writeRefusals.accepted(apiKey);
        return answer;
      } catch (caught) {
        if (!(caught instanceof ApiError)) throw caught;
        if (!request.read && caught instanceof PermissionError) this.writeRefusals.refused(apiKey);
        error = caught;
        error.attempts = attempt + 1;
      }
      const noServer = error instanceof ConnectionError && error.noServer;
      const delay = noServer ? QUICK_RETRY_MS : backoff(this.retry, attempt);
      if (error instanceof RateLimitError) limiter.pause(delay);
      const canRetry = noServer
        ? attempt === 0 && QUICK_RETRY_CODES.has((error as ConnectionError).code ?? '')
        : request.backoff !== false && isRetryable(error, request.read) && attempt < this.retry.maxRetries && Date.now() - started + delay <= this.retry.maxElapsedMs;
      this.options.logger.warn(
        { method: request.method, path: request.path, status: error.status, error: error.name, attempt: attempt + 1, retryInMs: canRetry ? delay : undefined },
        canRetry ? 'upstream request failed; retrying' : 'upstream request failed',
      );
      if (!canRetry) throw error;
      request.onRetry?.(
        noServer
          ? `${request.method} ${request.path}: no API answered (${error.message}); trying once more in ${delay} ms`
          : `${request.method} ${request.path} answered ${error.status ?? error.name}; retry ${attempt + 1} of ${this.retry.maxRetries} in ${delay} ms`,
      );
      await sleep(delay, request.signal).catch(() => {
        throw new CancelledError('The call was cancelled while waiting to retry', redacted, undefined, [], false);
      });
    }
  }

  private async attempt<T>(pool: Pool, apiKey: string, request: ApiRequest, redacted: RedactedRequest): Promise<T> {
    // One controller for the caller's cancellation and the timeout: cheaper on every call than
    // AbortSignal.timeout joined with AbortSignal.any.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    const cancel = () => deadline.abort();
    if (request.signal?.aborted) cancel();
    request.signal?.addEventListener('abort', cancel, { once: true });
    const hasBody = request.body !== undefined;
    const startedAt = Date.now();
    const path = this.pathPrefix + request.path;
    let response: Exchanged;
    try {
      response = await traceUpstream(request.method, this.origin, path, async (traceHeaders) => {
        try {
          return await exchange(
            pool,
            {
              method: request.method,
              path: path + encodeQuery(request.query),
              headers: {
                ...traceHeaders,
                authorization: `Bearer ${apiKey}`,
                accept: 'application/json',
                ...(hasBody ? { 'content-type': 'application/json' } : {}),
              },
              body: hasBody ? JSON.stringify(request.body) : undefined,
            },
            deadline.signal,
            request.onStatus,
          );
        } catch (caught) {
          throw this.transportError(caught, request, redacted, deadline.signal);
        }
      });
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', cancel);
    }
    this.options.logger.debug({ method: request.method, path: request.path, status: response.statusCode, ms: Date.now() - startedAt }, 'upstream request');
    const body = parseJson(response.text);
    if (response.statusCode < 200 || response.statusCode >= 300) throw errorForStatus(response.statusCode, body ?? response.text, redacted, request.namesItem === true);
    // Every route answers a JSON object or array (a few may answer null): a bare string or number is not the API's answer.
    if (body === undefined || typeof body !== 'object' || (body === null && !request.answersNull)) throw this.notJson(response, body, redacted);
    return body as T;
  }

  /** Every route answers JSON, so a success with any other body (none at all included) comes from something that is not the API. */
  private notJson(response: { statusCode: number; text: string }, body: unknown, redacted: RedactedRequest): NotJsonError {
    const what = body !== undefined ? `a bare JSON ${body === null ? 'null' : typeof body}` : response.text.trim() === '' ? 'an empty body' : 'a body that is not JSON';
    const sample = response.text.trim().slice(0, BODY_SAMPLE_CHARS);
    return new NotJsonError(
      `${redacted.method} ${redacted.path} answered HTTP ${response.statusCode} with ${what}, not the JSON the API answers`,
      redacted,
      response.statusCode,
      sample ? [sample] : [],
    );
  }

  private transportError(caught: unknown, request: ApiRequest, redacted: RedactedRequest, deadline: AbortSignal): ApiError {
    if (request.signal?.aborted) {
      return new CancelledError('The call was cancelled; the request may already have reached the API', redacted);
    }
    if (deadline.aborted) {
      return new TimeoutError(`No response within ${this.options.timeoutMs} ms`, redacted);
    }
    const code = errorCode(caught);
    const noServer = code === undefined ? undefined : (NO_SERVER[code] ?? tlsFailure(code));
    const error = new ConnectionError(
      noServer ? `No API answered at SVC_BASE_URL=${this.baseUrl}: ${noServer} (${code})` : `The connection to the API at SVC_BASE_URL=${this.baseUrl} failed (${code ?? 'connection error'})`,
      redacted,
      undefined,
      [],
      !noServer,
    );
    error.code = code;
    return error;
  }
}

export interface Api {
  request<T = unknown>(request: ApiRequest): Promise<T>;
}

function isRetryable(error: ApiError, read: boolean): boolean {
  // One that reached no server is retried once, quickly, before this is asked.
  if (error instanceof ConnectionError) return read;
  return read && error.status !== undefined && RETRYABLE_STATUS.has(error.status);
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}

function errorCode(caught: unknown): string | undefined {
  for (let current: unknown = caught; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    if (code === 'UND_ERR_SOCKET') return 'socket closed';
  }
  return undefined;
}

/** The body as JSON, or undefined when it is not JSON (an empty body included). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a TLS handshake failure means for the user, by the code Node gives it; undefined for any other code. */
function tlsFailure(code: string): string | undefined {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
    return 'the TLS handshake failed: the server does not speak TLS there (is it http:// rather than https://?)';
  }
  if (/CERT|^UNABLE_TO_|^ERR_TLS_|^ERR_SSL_|^EPROTO$/.test(code)) {
    return "the TLS handshake failed: the server's certificate or TLS setup was not accepted (a private certificate authority can be added with NODE_EXTRA_CA_CERTS)";
  }
  return undefined;
}

/**
 * RFC 6761 asks resolvers to answer names under `.invalid` negatively at once; a system resolver
 * without network may instead wait for its timeout, so such names fail here first. Every other
 * name goes to the system's resolver.
 */
const lookupHost: LookupFunction = (hostname, options, callback) => {
  if (/(^|\.)invalid\.?$/i.test(hostname)) {
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    process.nextTick(() => callback(error, '', 0));
    return;
  }
  systemLookup(hostname, options, callback);
};

function compactQuery(query: ApiRequest['query']): Record<string, unknown> | undefined {
  if (!query) return undefined;
  const entries = Object.entries(query).filter(([, value]) => value !== undefined && value !== null);
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** Arrays are sent comma-separated, which the API accepts for every array parameter. */
export function encodeQuery(query: ApiRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
