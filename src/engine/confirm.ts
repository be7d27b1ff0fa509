import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmMode } from '../config.js';
import type { ApiRequest } from '../http/client.js';
import { encodeQuery } from '../http/client.js';
import { ApiError, CancelledError } from '../http/errors.js';
import { Envelope, showHidden } from './output.js';
import type { PreviewContext, ToolContext, ToolDefinition } from './define.js';
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
        message: keyRedaction.redact(showHidden(`${run.tool.title}: send this request to the workspace API?\n\n${effectBlock(effect)}Request:\n${description}`)),
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
      content: [{ type: 'text', text: `${message}\n\n${effectBlock(effect)}${run.tool.name} would have sent:\n${description}` }],
      structuredContent: { sent: false, message, effect, request: description },
    };
  }

  const now = options.now ?? Date.now;
  const binding: TokenBinding = { tool: run.tool.name, request, apiKey: options.apiKey, store: options.state.id };
  let refusal: { refused: TokenRefusal; reason: string } | undefined;
  if (typeof confirm === 'string') {
    const check = checkToken(options.config.confirmSecret, confirm, binding, now());
    if (!check.ok) refusal = check;
    // Spent before anything is sent, durably where the state must survive a restart: a crash
    // between here and the send loses the write rather than sending it twice.
    else if (await options.state.claim('spent', check.mac, check.expiresAt)) return undefined;
    else return spentRefusal(run.tool.name, description);
  }
  const envelope = new Envelope();
  const effect = await describeEffect(run.tool, input, context, envelope.quote);
  const { token, expiresAt } = issueToken(options.config.confirmSecret, binding, now());
  const expiry = new Date(expiresAt).toISOString();
  const message = [
    refusal ? `The confirmToken given was refused (${refusal.refused}): ${refusal.reason} Nothing was sent; this is a fresh preview with a new token.` : 'Preview only; nothing was sent.',
    confirm === true && '"confirm": true alone sends nothing: it needs the confirmToken of a preview.',
  ]
    .filter(Boolean)
    .join(' ');
  const next = `To send it, show the user this preview and, once they agree, call ${run.tool.name} again with the same arguments plus "confirm": "${token}". The token sends exactly this request with this API key, once, until ${expiry}.`;
  const text = [envelope.used && envelope.notice, message, '', `${effectBlock(effect)}${run.tool.name} would send:\n${description}`, '', next].filter((line) => line !== false).join('\n');
  return {
    ...(refusal && { isError: true }),
    content: [{ type: 'text', text }],
    structuredContent: { sent: false, ...(refusal && { refused: refusal.refused }), message, effect, request: description, confirmToken: token, expiresAt: expiry },
  };
}

/** A token that already sent its request: refused with no new token, so a retry loop cannot turn into a second write. */
function spentRefusal(toolName: string, description: string): CallToolResult {
  const message = `The confirmToken given was refused (spent): it already sent its request, and a token sends once. Nothing was sent this time, and no new token comes with this answer. If the user wants the same change made again, call ${toolName} without "confirm" for a new preview and show it to them.`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${message}\n\nThe token was for:\n${description}` }],
    structuredContent: { sent: false, refused: 'spent', message, request: description },
  };
}

function effectBlock(effect: string[]): string {
  return effect.length ? `What it does:\n${effect.map((line) => `- ${line}`).join('\n')}\n\n` : '';
}

/**
 * The tool's own account of the effect. A failure to read the target never blocks the write: the
 * preview says what could not be read, and the exact request still follows.
 */
async function describeEffect(tool: ToolDefinition, input: Record<string, unknown>, context: ToolContext, quote: (value: unknown) => string): Promise<string[]> {
  if (!tool.preview) return [];
  const previewContext: PreviewContext = { ...context, quote, read: (toolName, readInput) => readForPreview(context, toolName, readInput) };
  try {
    // A tool's lines name the arguments (an id, a title) as given: hidden characters in them are shown escaped too.
    return (await tool.preview(input, previewContext)).map(showHidden);
  } catch (error) {
    if (context.signal.aborted) throw error;
    return [`The current state could not be read (${failureReason(error)}), so the effect is not described; the request below is exactly what will be sent.`];
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

/** In the elicitation form the user reads names as plain quoted text. */
function quoteForUser(value: unknown): string {
  return JSON.stringify(String(value ?? ''));
}
