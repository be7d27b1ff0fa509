/** HTTP errors raised by sandbox handlers and the error body shape of the simulated API. */

export const REASON: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const MSG_UNAUTHORIZED = 'Invalid or revoked API key';
export const MSG_FORBIDDEN_SCOPE = 'API key does not have the required scope for this operation';
export const MSG_RATE_LIMITED = 'ThrottlerException: Too Many Requests';
export const MSG_INTERNAL = 'Internal server error';

export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
}

export function reasonPhrase(status: number): string {
  return REASON[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}

export function errorBody(status: number, message?: string | string[]): ErrorBody {
  return { statusCode: status, message: message ?? defaultMessage(status), error: reasonPhrase(status) };
}

export function defaultMessage(status: number): string {
  switch (status) {
    case 401:
      return MSG_UNAUTHORIZED;
    case 403:
      return MSG_FORBIDDEN_SCOPE;
    case 429:
      return MSG_RATE_LIMITED;
    case 500:
      return MSG_INTERNAL;
    default:
      return reasonPhrase(status);
  }
}

/** The 404 answer to a method and path that no route serves. */
export function noRouteBody(method: string, path: string): ErrorBody {
  return errorBody(404, `Cannot ${method} ${path}`);
}

/** Throw from a handler: `throw new HttpError(400, ['limit must not be greater than 100'])`. */
export class HttpError extends Error {
  readonly status: number;
  readonly messages: string | string[];
  constructor(status: number, message?: string | string[]) {
    const msg = message ?? defaultMessage(status);
    super(Array.isArray(msg) ? msg.join('; ') : msg);
    this.status = status;
    this.messages = msg;
  }
  toBody(): ErrorBody {
    return errorBody(this.status, this.messages);
  }
}

export const badRequest = (message: string | string[]) => new HttpError(400, message);
export const notFound = (message: string) => new HttpError(404, message);
export const notAcceptable = (message: string) => new HttpError(406, message);
export const internalError = () => new HttpError(500, MSG_INTERNAL);
/** The spec gives one fixed 403 message for a missing scope and for another workspace's data alike. */
export const forbiddenWorkspace = () => new HttpError(403, MSG_FORBIDDEN_SCOPE);
