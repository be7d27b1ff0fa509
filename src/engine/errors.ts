import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  CancelledError,
  ConnectionError,
  NotAcceptableError,
  NotFoundError,
  NotJsonError,
  PermissionError,
  RateLimitError,
  TimeoutError,
  UpstreamServerError,
} from '../upstream/errors.js';
import type { RateLimit } from '../config.js';
import { redactLiveKeys } from '../redaction/live-keys.js';
import type { ToolDefinition } from './define.js';
import { quoteUntrusted, showHidden } from './render/envelope.js';

/** Thrown by handlers for a failure they can explain better than a status code. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

/** A tool error with this text alone: a refusal, or a task that could not finish (what `tasks/result` returns for it). */
export function textError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The API refused the key itself (401): revoked, or never valid. */
export function isKeyRefused(error: unknown): boolean {
  return error instanceof AuthenticationError;
}

/** A write with a key whose last write the API refused with 403 (http/write-refusals.ts): not previewed, since the person's yes would meet the same 403. */
export function writeRefusedMessage(tool: ToolDefinition, refusedAt: number): string {
  return `${tool.name} was not previewed and nothing was sent: the workspace API refused this key's last write with 403 at ${new Date(refusedAt).toISOString()} (its answer to a key without the write scope, or to a request about another workspace's data) and has accepted none since. Changes need a key with the write scope; this server asks again ten minutes after that refusal.`;
}

/** Whether a handler's failed call found no such item (404), so it can report that item instead of failing; a 404 for the route itself is a failure. */
export function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError && !error.routeNotFound;
}

/** What the error text needs to know about the session. */
export interface ErrorSetting {
  /** The configured upstream budget, stated by the 429 text. */
  rateLimit: RateLimit;
  /** Where the session's key came from: the server's environment, or the HTTP client's own header. */
  keyFrom: 'environment' | 'client';
}

/**
 * The one place that turns failures into what the user reads. The fixed, trusted sentence comes
 * first; upstream text follows only as quoted data.
 */
export function errorResult(tool: ToolDefinition, error: unknown, setting: ErrorSetting): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: redactLiveKeys(explain(tool, error, setting)) }] };
}

/**
 * A failure after the API answered the request with success: the outcome is what the transport
 * saw, so the result says the request was sent and must not be sent again, whatever went wrong
 * afterwards (an unreadable body, shaping, follow-up work such as waiting for jobs).
 */
export function sentResult(tool: ToolDefinition, status: number, error: unknown, setting: ErrorSetting): CallToolResult {
  const write = tool.scope === 'write';
  const after = error instanceof ApiError ? explain(tool, error, setting, false) : `svc-mcp could not show the response (${error instanceof Error ? error.message : String(error)})`;
  const lines = [
    `Sent; the API answered HTTP ${status}${write ? ', so the request was applied' : ''}.`,
    `What failed afterwards: ${after}`,
    ...(write ? ['Do not send it again; check the result with a list or get tool.'] : []),
  ];
  return { isError: true, content: [{ type: 'text', text: redactLiveKeys(lines.join('\n')) }] };
}

export function validationResult(tool: Pick<ToolDefinition, 'name'>, details: string): CallToolResult {
  return {
    isError: true,
    // The details quote what the caller sent: escaped here too, as refusals are also made before a call reaches runTool.
    content: [{ type: 'text', text: `Invalid input for ${tool.name}; nothing was sent.\n${showHidden(details)}` }],
  };
}

function explain(tool: ToolDefinition, error: unknown, setting: ErrorSetting, judgeWrite = true): string {
  if (error instanceof ToolFailure) return error.message;
  if (!(error instanceof ApiError)) {
    return `${tool.name} failed inside svc-mcp: ${error instanceof Error ? error.message : String(error)}. Nothing suggests the API received a request; please report this.`;
  }
  const quoted = quoteUntrusted(error.upstreamMessages);
  const lines = [headline(tool, error, setting)];
  if (quoted) lines.push(quoted);
  // A cancelled write says its outcome in its headline, and so does a refused one (429).
  if (judgeWrite && tool.scope === 'write' && error.mayHaveReachedServer && !(error instanceof CancelledError) && !(error instanceof RateLimitError)) {
    lines.push(writeOutcome(error));
  }
  return lines.join('\n');
}

function headline(tool: ToolDefinition, error: ApiError, setting: ErrorSetting): string {
  const hints = tool.errors ?? {};
  if (error instanceof BadRequestError) {
    return `The API rejected the input as invalid (400)${hints[400] ? `: ${hints[400]}` : ''}. Fix the field it names and call again.`;
  }
  if (error instanceof AuthenticationError) {
    const where =
      setting.keyFrom === 'client'
        ? 'Fix the key your MCP client sends as "Authorization: Bearer svc_..." in its server settings'
        : 'Check SVC_API_KEY where svc-mcp is configured (a workspace key starting with svc_)';
    return `The API key was refused (401): it is invalid or revoked. ${where}; a revoked key cannot be restored, so create a new one in the dashboard.`;
  }
  if (error instanceof PermissionError) {
    return `The API key is not allowed to do this (403): it lacks the "${tool.scope}" scope this tool needs, or the data belongs to another workspace than the key's. Use a key with the ${tool.scope} scope from the workspace that owns the data.`;
  }
  if (error instanceof NotFoundError && error.routeNotFound) {
    return `The server at SVC_BASE_URL has no such route (404): ${error.request.method} ${error.request.path} was answered without the API's error body, so SVC_BASE_URL is probably wrong (the server there is not the workspace API, or the URL carries a path prefix it does not serve). Set SVC_BASE_URL to the API's origin, such as https://api.example.com.`;
  }
  if (error instanceof NotJsonError) {
    return `${error.message}, so SVC_BASE_URL probably points at something other than the workspace API (a web page, a proxy or sign-in page). Set SVC_BASE_URL to the API's origin, such as https://api.example.com.`;
  }
  if (error instanceof NotFoundError) {
    return `Not found (404): ${hints[404] ?? 'the API has no such item in this workspace'}.`;
  }
  if (error instanceof NotAcceptableError) {
    return `The API refused the request (406): ${hints[406] ?? 'the item is not accessible in this state'}.`;
  }
  if (error instanceof RateLimitError) {
    const window = durationText(setting.rateLimit.windowMs);
    const budget = `The configured budget is ${setting.rateLimit.limit} requests per ${window} (SVC_RATE_LIMIT), and the API counts every client of this key against it; wait about ${window}, then call again.`;
    if (tool.scope === 'write') return `Not sent: the API refused the write as rate limited (429), so nothing changed; a write is never resent automatically. ${budget}`;
    return `Rate limited by the API (429)${retried(error)}. ${budget}`;
  }
  if (error instanceof UpstreamServerError) {
    return error.status === 500
      ? `The API failed internally (500)${hints[500] ? `; for this route that usually means ${hints[500]}` : ''}.`
      : `The API is unavailable (${error.status})${retried(error)}; try again shortly.`;
  }
  if (error instanceof TimeoutError) {
    return `The API did not answer in time (${error.message}). Raise SVC_TIMEOUT_MS or narrow the request.`;
  }
  if (error instanceof CancelledError) return `Cancelled: ${error.message}.`;
  if (error instanceof ConnectionError) {
    return error.noServer
      ? `${error.message}. Set SVC_BASE_URL to the API's origin, such as https://api.example.com, and check the network.`
      : `${error.message}${retried(error)}. Check the network and SVC_BASE_URL.`;
  }
  if (error.status !== undefined && error.status >= 300 && error.status < 400) {
    return `${error.request.method} ${error.request.path} was answered with a redirect (HTTP ${error.status}), which svc-mcp does not follow: set SVC_BASE_URL to the address the API is served at (often https:// where http:// was given).`;
  }
  return `The API answered with HTTP ${error.status ?? 'error'}.`;
}

function writeOutcome(error: ApiError): string {
  if (error.status !== undefined && error.status < 500 && error.status !== 408) {
    return 'The request was refused, so nothing changed; it was not retried.';
  }
  return 'The request may or may not have been applied and was sent only once: check the current state (with a list or get tool) before trying again.';
}

/** Said only of a request that was in fact sent again. */
function retried(error: ApiError): string {
  return error.attempts > 1 ? ` after ${error.attempts} attempts with backoff` : '';
}

function durationText(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
