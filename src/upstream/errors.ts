/** What an error may say about the request that failed: never headers, never the key. */
export interface RedactedRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
}

/** Base of every failure the HTTP core reports; `status` is absent when no response arrived. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly request: RedactedRequest,
    readonly status?: number,
    /** Upstream `message` text (the spec allows a string or a list), quoted as data only. */
    readonly upstreamMessages: string[] = [],
    /** Whether the request may have reached the server (decides whether a write can be retried). */
    readonly mayHaveReachedServer = true,
  ) {
    super(message);
  }

  /** How many times the request was sent (or tried) before this error stood: a message claims a backoff only when there was one. */
  attempts = 1;
}

/** A kind of ApiError, its `name` written out: logs and messages read it, and a minifier would rename the class. */
function apiErrorNamed(name: string) {
  return class extends ApiError {
    override name = name;
  };
}

export class BadRequestError extends apiErrorNamed('BadRequestError') {}
export class AuthenticationError extends apiErrorNamed('AuthenticationError') {}
export class PermissionError extends apiErrorNamed('PermissionError') {}
export class NotFoundError extends apiErrorNamed('NotFoundError') {
  /** The server has no such route at all, not merely no such item: the base URL is probably wrong. */
  routeNotFound = false;
}
export class NotAcceptableError extends apiErrorNamed('NotAcceptableError') {}
export class RateLimitError extends apiErrorNamed('RateLimitError') {}
export class UpstreamServerError extends apiErrorNamed('UpstreamServerError') {}
/** Any other 4xx the spec does not describe. */
export class ClientRequestError extends apiErrorNamed('ClientRequestError') {}
export class ConnectionError extends apiErrorNamed('ConnectionError') {
  /**
   * No server answered at the base URL at all (connection refused, a name that does not resolve,
   * a failed TLS handshake): nothing was sent, and waiting will not help, so it is retried once at
   * most, quickly. A connection error is built as one that may have reached the server otherwise.
   */
  get noServer(): boolean {
    return !this.mayHaveReachedServer;
  }
  /** The system's or undici's code for the failure, such as ECONNREFUSED. */
  code?: string;
}
/** A success status whose body is not JSON, which every route answers: the server is not the API (a web page, a proxy's). */
export class NotJsonError extends apiErrorNamed('NotJsonError') {}
export class TimeoutError extends apiErrorNamed('TimeoutError') {}
export class CancelledError extends apiErrorNamed('CancelledError') {}

type ErrorClass = new (...args: ConstructorParameters<typeof ApiError>) => ApiError;

const CLASS_BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  406: NotAcceptableError,
  429: RateLimitError,
};

/** Reads the spec's error body `{statusCode, message: string | string[], error}`, tolerating anything else. */
export function upstreamMessagesOf(body: unknown): string[] {
  if (body && typeof body === 'object' && 'message' in body) {
    const message = (body as { message: unknown }).message;
    if (typeof message === 'string') return [message];
    if (Array.isArray(message)) return message.filter((item): item is string => typeof item === 'string');
  }
  if (typeof body === 'string' && body.trim()) return [body.trim().slice(0, 500)];
  return [];
}

/**
 * The spec does not show the body of a 404, so its shape decides nothing: a 404 without the
 * framework's `statusCode` may still be the API saying that an item does not exist. What tells
 * an unknown route apart: a path that names no item has nothing to miss, so its 404 is the route's
 * (the base URL is probably wrong); and on any path, the framework's unknown-route message
 * (`Cannot GET /v2/...`). Anything else on a path that names an item is that item not found.
 */
function isUnknownRoute(namesItem: boolean, messages: string[]): boolean {
  return !namesItem || (messages[0] !== undefined && /^Cannot (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \//.test(messages[0]));
}

export function errorForStatus(status: number, body: unknown, request: RedactedRequest, namesItem = false): ApiError {
  const ErrorType = CLASS_BY_STATUS[status] ?? (status >= 500 ? UpstreamServerError : ClientRequestError);
  const messages = upstreamMessagesOf(body);
  const error = new ErrorType(`${request.method} ${request.path} failed with HTTP ${status}`, request, status, messages);
  if (error instanceof NotFoundError) error.routeNotFound = isUnknownRoute(namesItem, messages);
  return error;
}
