import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmMode } from '../config.js';
import type { ApiRequest } from '../upstream/client.js';
import { encodeQuery } from '../upstream/client.js';
import { ApiError, CancelledError } from '../upstream/errors.js';
import { Envelope, showHidden } from './render/envelope.js';
import type { PreviewContext, Quote, ToolContext, ToolDefinition } from './define.js';
import { checkToken, issueToken, type TokenBinding, type TokenRefusal } from './tokens.js';
import type { Session, ToolRun } from './types.js';

export function needsConfirmation(tool: ToolDefinition, mode: ConfirmMode): boolean {
  if (tool.scope === 'read' || mode === 'none') return false;
  if (mode === 'writes') return true;
  return Boolean(tool.destructive || tool.openWorld);
}

/**
 * Exactly what will be sent, as the user reads it: method, path with query, and the JSON body,
 * every value as it is sent (the session's API key is masked later, with the whole result).
 */
export function describeRequest(request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>): string {
  const line = `${request.method} ${request.path}${decodeURIComponent(encodeQuery(request.query))}`;
  return showHidden(request.body === undefined ? line : `${line}\n${JSON.stringify(request.body, null, 2)}`);
}

export interface Confirmation {
  run: ToolRun;
  request: ApiRequest;
  input: Record<string, unknown>;
  context: ToolContext;
  /** The call's `confirm` option: a token from a preview sends; `true` alone only previews. */
  confirm: boolean | string | undefined;
}

/** A session confirms through elicitation when its client declares it and the transport can hold the round trip open. */
export function sessionElicits(session: Pick<Session, 'server' | 'options'>): boolean {
  return session.options.elicitationAllowed !== false && Boolean(session.server.getClientCapabilities()?.elicitation);
}

/**
 * The confirmation gate. Returns a result when nothing may be sent (preview, refusal, decline),
 * or undefined when the request may go. With elicitation the user answers a form; without it a
 * preview returns a token bound to this exact request and key, which sends once. What the gate
 * returns shows every value the request sends: only the session's API key is masked in it.
 */
export async function confirmGate({ run, request, input, context, confirm }: Confirmation): Promise<CallToolResult | undefined> {
  const { server, options, keyRedaction } = run.session;
  const description = describeRequest(request);
  if (sessionElicits(run.session)) {
    const effect = await describeEffect(run.tool, input, context, quoteForUser);
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: keyRedaction.redact(showHidden(`${run.tool.title}: send this request to the workspace API?\n${warningLines(effect)}\n${effectBlock(effect)}Request:\n${description}`)),
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Send it', description: 'Yes sends the request exactly as shown.' } },
          required: ['confirm'],
        },
      },
      { signal: run.signal },
    );
    if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
    const how = answer.action === 'accept' ? 'answered no' : answer.action === 'decline' ? 'declined' : 'cancelled';
    const message = `The user ${how}; nothing was sent.`;
    return {
      content: [{ type: 'text', text: `${message}\n${warningLines(effect)}\n${effectBlock(effect)}${run.tool.name} would have sent:\n${description}` }],
      structuredContent: { sent: false, message, ...effectFields(effect), request: description },
    };
  }

  const now = options.now ?? Date.now;
  const binding: TokenBinding = { tool: run.tool.name, request, apiKey: options.apiKey, store: options.state.id };
  if (typeof confirm === 'string') {
    const check = checkToken(options.config.confirmSecret, confirm, binding, now());
    if (!check.ok) return refusal(run.tool.name, check.refused, check.reason, description);
    // Spent before anything is sent, durably where the state must survive a restart: a crash
    // between here and the send loses the write rather than sending it twice.
    if (await options.state.claim('spent', check.mac, check.expiresAt)) return undefined;
    return refusal(run.tool.name, 'spent', SPENT_REASON, description);
  }
  const envelope = new Envelope();
  const effect = await describeEffect(run.tool, input, context, envelope.quote);
  const { token, expiresAt } = issueToken(options.config.confirmSecret, binding, now());
  const expiry = new Date(expiresAt).toISOString();
  const message = confirm === true ? 'Preview only; nothing was sent. "confirm": true alone sends nothing: it needs the confirmToken of a preview.' : 'Preview only; nothing was sent.';
  const next = `To send it, show the user this preview and, once they agree, call ${run.tool.name} again with the same arguments plus "confirm": "${token}". The token sends exactly this request with this API key, once, until ${expiry}.`;
  const text = [envelope.used && envelope.notice, `${message}\n${warningLines(effect)}`, `${effectBlock(effect)}${run.tool.name} would send:\n${description}`, '', next]
    .filter((line) => line !== false)
    .join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: { sent: false, message, ...effectFields(effect), request: description, confirmToken: token, expiresAt: expiry },
  };
}

const SPENT_REASON = 'it already sent its request, and a token sends once.';

/**
 * A refused token gets no new token, whatever the reason: a loop that sent a wrong or stale token
 * must not find, in the refusal, a token it could send on its next turn with no person asked.
 * The caller asks for a new preview, which a person then judges.
 */
function refusal(toolName: string, refused: TokenRefusal, reason: string, description: string): CallToolResult {
  const again = refused === 'spent' ? 'If the user wants the same change made again, call' : 'To go on, call';
  const message = `The confirmToken given was refused (${refused}): ${reason} Nothing was sent, and no new token comes with this answer. ${again} ${toolName} without "confirm" for a new preview and show it to the user.`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${message}\n\nThis call would have sent:\n${description}` }],
    structuredContent: { sent: false, refused, message, request: description },
  };
}

/** A preview's account of a write: what it does, and the warnings that come first (what it cannot do, what is risky). */
interface Effect {
  lines: string[];
  warnings: string[];
}

function effectBlock(effect: Effect): string {
  return effect.lines.length ? `What it does:\n${effect.lines.map((line) => `- ${line}`).join('\n')}\n\n` : '';
}

/** The warnings, a line each, right under the first line of a preview or question. */
function warningLines(effect: Effect): string {
  return effect.warnings.map((warning) => `WARNING: ${warning}\n`).join('');
}

function effectFields(effect: Effect): { warnings?: string[]; effect: string[] } {
  return { ...(effect.warnings.length && { warnings: effect.warnings }), effect: effect.lines };
}

/**
 * The tool's own account of the effect. A failure to read the target never blocks the write: the
 * preview says what could not be read, and the exact request still follows.
 */
async function describeEffect(tool: ToolDefinition, input: Record<string, unknown>, context: ToolContext, quote: Quote): Promise<Effect> {
  const warnings: string[] = [];
  if (!tool.preview) return { lines: [], warnings };
  const previewContext: PreviewContext = {
    ...context,
    quote,
    warn: (text) => warnings.push(showHidden(text)),
    read: (toolName, readInput) => readForPreview(context, toolName, readInput),
  };
  try {
    // A tool's lines name the arguments (an id, a title) as given: hidden characters in them are shown escaped too.
    return { lines: (await tool.preview(input, previewContext)).map(showHidden), warnings };
  } catch (error) {
    if (context.signal.aborted) throw error;
    return { lines: [`The current state could not be read (${failureReason(error)}), so the effect is not described; the request below is exactly what will be sent.`], warnings };
  }
}

async function readForPreview(context: ToolContext, toolName: string, input: Record<string, unknown>): Promise<{ value: unknown } | { failed: string }> {
  try {
    return { value: await context.call(toolName, input) };
  } catch (error) {
    if (error instanceof CancelledError || context.signal.aborted) throw error;
    return { failed: failureReason(error) };
  }
}

/** A short, trusted reason: the status or the kind of failure, never upstream text. */
function failureReason(error: unknown): string {
  if (!(error instanceof ApiError)) return 'an internal error';
  if (error.status === 404) return 'not found, 404';
  if (error.status === 403) return 'not permitted, 403';
  if (error.status !== undefined) return `HTTP ${error.status}`;
  return 'no response from the API';
}

/** Escapes text onto one line, for the form a person reads: no envelope there. */
const userText = new Envelope();

/** In the elicitation form the user reads names as plain quoted text, and a block's lines as they are, each kept on its line. */
const quoteForUser: Quote = Object.assign((value: unknown) => JSON.stringify(String(value ?? '')), {
  block: (render: (text: (value: unknown) => string) => string[]) => render((value) => userText.oneLine(String(value ?? ''))),
});
