import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.js';
import { confirmGate, needsConfirmation, sessionElicits } from './confirm.js';
import { ENGINE_FIELDS, ENGINE_OPTIONS } from './engine-options.js';
import type { ConfigFallback, MirrorAccess, ToolContext, ToolDefinition } from './define.js';
import type { MirrorRegistry } from '../mirror/registry.js';
import { errorResult, sentResult, textError, validationResult, writeRefusedMessage, type ErrorSetting } from './errors.js';
import { argumentProblems, coerceToSchema, formatIssues, objectShape, unknownFields, withClock } from './inputs.js';
import { toolListEntry } from './listing.js';
import { hasHidden, showHidden } from './render/envelope.js';
import { shape, unshaped, type Shaped } from './render/shape.js';
import type { View } from './render/shape-options.js';
import { toWire } from './render/wire.js';
import { buildRequest, pathProblems } from './request.js';
import type { Logger } from '../log.js';
import { secretRedaction, type Redaction } from '../redaction/redaction.js';
import type { ToolCallScreen } from '../sdk/incoming.js';
import { redactResult, secretsIn } from './render/redact.js';
import { SERVER_NAME } from '../meta.js';
import { GATE_ANSWER_META } from '../views/results.js';
import type { ToolRun } from './types.js';

/**
 * Runs one call: validation, confirmation, the request or handler, shaping. The session's API key
 * is masked, in every form it can take, wherever it would come back: in data the API echoes, in a
 * preview, in quoted upstream error text, in the text and the structured result alike. The secrets
 * the caller passed (data-step headers, tokens) are masked in what the call returns, but not in a
 * preview: the user must see every value a write sends before saying yes.
 */
export async function runTool(run: ToolRun): Promise<CallToolResult> {
  const started = Date.now();
  const checked = checkedArguments(run.tool, run.rawArgs, run.screened);
  const { shaped, preview } = checked.ok ? await callTool(run, checked.args) : { shaped: unshaped(validationResult(run.tool, checked.message)), preview: false };
  const callerSecrets = checked.ok && !preview ? secretRedaction(secretsIn(checked.args)) : undefined;
  const answer = withHiddenShown(redactResult(shaped, callerSecrets ? [run.session.keyRedaction, callerSecrets] : [run.session.keyRedaction], { hiddenValues: !preview }));
  // A line for every call is for debugging: at info it cost some 6 % of a call's CPU (pino, the
  // redaction of the line, a write to stderr). A failed call is worth a line at the default level.
  const line = { tool: run.tool.name, ms: Date.now() - started, isError: Boolean(answer.result.isError) };
  if (line.isError) run.session.options.logger.info(line, 'tool call');
  else run.session.options.logger.debug(line, 'tool call');
  return toWire(answer);
}

/**
 * Every text part with bidi controls and zero-width characters shown escaped. The renderer escapes
 * API data as it writes it; this pass is for what a tool's own text or an error echoes of the
 * caller's arguments (a filter in a stats summary, an id in a refusal), wherever it is written.
 */
function withHiddenShown(shaped: Shaped): Shaped {
  const { result } = shaped;
  if (shaped.escapedThroughout || !result.content.some((part) => part.type === 'text' && hasHidden(part.text))) return shaped;
  // The text alone changes: the structured content and its JSON still agree.
  return { ...shaped, result: { ...result, content: result.content.map((part) => (part.type === 'text' ? { ...part, text: showHidden(part.text) } : part)) } };
}

type CheckedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/**
 * The arguments checked for their shape (prototype names, depth, size) before anything walks them,
 * once: a direct call's were checked as they arrived (`screened`, the incoming way's screen), any
 * other's are checked here. Coercion then parses objects sent as JSON text, and what it parses may
 * be as deep or as hostile as any other argument (a 10,000-deep object in a JSON string overflowed
 * the stack of the secrets scan), so arguments coercion parsed anything in are checked again whole.
 * Coercion follows the schema, not the value, so it is safe on any input.
 */
function checkedArguments(tool: ToolDefinition, rawArgs: Record<string, unknown>, screened = false): CheckedArguments {
  const problems = screened ? [] : argumentProblems(rawArgs);
  if (problems.length) return { ok: false, message: problems.join('\n') };
  const parsedJson: unknown[] = [];
  const args = coerceToSchema(tool.input, omit(rawArgs, ENGINE_FIELDS), parsedJson) as Record<string, unknown>;
  const parsed = parsedJson.length ? argumentProblems(args) : [];
  return parsed.length ? { ok: false, message: parsed.join('\n') } : { ok: true, args };
}

/** A result, and whether it is the confirmation gate's (a preview, a refusal or a decline), which shows what the caller passed. */
async function callTool(run: ToolRun, args: Record<string, unknown>): Promise<{ shaped: Shaped; preview: boolean }> {
  const { tool, signal } = run;
  const { config } = run.session.options;
  /**
   * Set as soon as the transport sees the API answer the route's request with success: from then
   * on no failure (an unreadable body, shaping, follow-up work) may be reported as "not sent".
   */
  let answered: number | undefined;
  try {
    const engineArgs = engineOptions(run.rawArgs);
    if (!engineArgs.success) return { shaped: unshaped(validationResult(tool, formatIssues(engineArgs.error.issues))), preview: false };
    const parsed = validateCoerced(tool, args, config);
    if (!parsed.ok) return { shaped: unshaped(validationResult(tool, parsed.message)), preview: false };
    const input = parsed.value;
    const view: View = engineArgs.data.view ?? 'compact';
    const context = toolContext(run);

    let data: unknown;
    if (tool.route) {
      const onStatus = (status: number) => {
        if (status >= 200 && status < 300) answered = status;
      };
      const request = { ...buildRequest(tool, input, config.providerNames), signal, onRetry: retryNotice(run), onStatus };
      const refusedAt = tool.scope === 'write' ? run.session.options.client.writeRefusals.lastRefused(run.session.options.apiKey) : undefined;
      if (refusedAt !== undefined) return { shaped: unshaped(textError(writeRefusedMessage(tool, refusedAt))), preview: false };
      // `confirm: true` asks for the preview whatever SVC_CONFIRM says: a view's write button shows what will happen before anything is sent.
      if (needsConfirmation(tool, config.confirm) || (tool.scope === 'write' && engineArgs.data.confirm === true)) {
        const decision = await confirmGate({ run, request, input, context, confirm: engineArgs.data.confirm });
        if (decision) return { shaped: unshaped(listsOutputSchema(run) ? asUncheckedError(decision) : decision), preview: true };
      }
      data = await run.session.api.request(request);
      if (tool.keepMirror) await keepMirrorTrue(run, tool, data, input, context);
    } else if (tool.handler) {
      data = await tool.handler(input, context);
    }
    if (tool.transform) data = await tool.transform(data, input, context);
    // A list result that is a bare array is held under its items' name: structured content is an object.
    const shaped = shape(tool.list && Array.isArray(data) ? { [tool.list.items]: data } : data, {
      view,
      list: tool.list,
      text: tool.text,
      heading: doneLine(tool, data, input),
      stoppedEarly: tool.stoppedEarly?.(data, input),
      capChars: config.maxResultTokens * 4,
    });
    return { shaped, preview: false };
  } catch (error) {
    const setting: ErrorSetting = { rateLimit: config.rateLimit, keyFrom: config.transport === 'http' && run.session.options.apiKey !== config.apiKey ? 'client' : 'environment' };
    return { shaped: unshaped(answered === undefined ? errorResult(tool, error, setting) : sentResult(tool, answered, error, setting)), preview: false };
  }
}

/**
 * A call that succeeded changes what the key's mirror holds (a write, to one held or kept on disk)
 * or shows what it cannot list (a read, to one held): the tool says how, and the change is applied
 * at once. The call stands whatever happens here; a change that cannot be applied is logged, and
 * the next sync reads the truth.
 */
async function keepMirrorTrue(run: ToolRun, tool: ToolDefinition, data: unknown, input: Record<string, unknown>, context: ToolContext): Promise<void> {
  try {
    const mirror = tool.scope === 'write' ? await context.mirror?.existing() : await context.mirror?.held();
    if (mirror) await mirror.apply(await tool.keepMirror!(data, input, mirror));
  } catch (error) {
    run.session.options.logger.warn({ tool: tool.name, error: (error as Error).message }, 'the workspace mirror could not record a write; the next sync reads it');
  }
}

/**
 * Whether the session listed this tool with its output schema. A client checks structured content
 * against that schema (the SDK's client even on an error), and the gate's answer (a decline, or
 * the preview that `confirm: true` asks for) is not the write's result. Where confirmation goes
 * by token, no schema is listed and a structured preview is the expected first step.
 */
const listsOutputSchema = ({ tool, session }: ToolRun) => toolListEntry(tool, session.options.config, sessionElicits(session)).outputSchema !== undefined;

/** The gate's answer as an error whose text says nothing was sent, its structure in `_meta` for a view. */
const asUncheckedError = (answer: CallToolResult): CallToolResult => ({ isError: true, content: answer.content, _meta: { [GATE_ANSWER_META]: answer.structuredContent } });

/** A heading that cannot fail: the write already happened, so a surprising response shape must not turn it into an error. */
function doneLine(tool: ToolDefinition, data: unknown, input: Record<string, unknown>): string | undefined {
  try {
    return tool.done?.(data, input);
  } catch {
    return undefined;
  }
}

type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Checks the arguments against the tool's schema. Their shape is checked first (prototype names,
 * depth, size), so the validator only ever sees bounded input. Relative times
 * and defaulted windows of one call resolve against one instant, so `since: "90d"` is exactly 90 days.
 */
export function validateInput(tool: ToolDefinition, rawArgs: Record<string, unknown>, config: Pick<Config, ConfigFallback>, now = Date.now()): Validation {
  const checked = checkedArguments(tool, rawArgs);
  return checked.ok ? validateCoerced(tool, checked.args, config, now) : checked;
}

function validateCoerced(tool: ToolDefinition, args: Record<string, unknown>, config: Pick<Config, ConfigFallback>, now = Date.now()): Validation {
  const unknown = unknownFields(tool.input, args);
  if (unknown.length) {
    // The accepted names are read only for a refusal, not on every call's way.
    const accepted = [...Object.keys(objectShape(tool.input)), ...(tool.list ? ['view'] : [])].join(', ') || 'no arguments';
    return { ok: false, message: `- ${unknown.join(', ')}: unknown field(s); this tool accepts ${accepted}` };
  }
  return withClock(now, () => {
    let result = tool.input.safeParse(args);
    // Configured defaults fill only a call that fails without them, so optional filters are never narrowed unasked.
    const filled = result.success ? undefined : withFallbacks(tool, args, config);
    if (filled) result = tool.input.safeParse(filled);
    if (!result.success) return { ok: false, message: formatIssues(result.error.issues) } as const;
    const value = result.data as Record<string, unknown>;
    const problems = pathProblems(tool, value);
    if (problems.length) return { ok: false, message: problems.join('\n') } as const;
    return { ok: true, value } as const;
  });
}

/** The arguments with the tool's configured fallbacks filled in where left out, or undefined when none applies. */
function withFallbacks(tool: ToolDefinition, args: Record<string, unknown>, config: Pick<Config, ConfigFallback>): Record<string, unknown> | undefined {
  const fills = Object.entries(tool.fallbacks ?? {}).filter(([field, key]) => (args[field] === undefined || args[field] === '') && config[key] !== undefined);
  if (!fills.length) return undefined;
  return { ...args, ...Object.fromEntries(fills.map(([field, key]) => [field, config[key]])) };
}

function toolContext(run: ToolRun): ToolContext {
  const progressToken = run.origin._meta?.progressToken;
  const { options, api, catalogByName } = run.session;
  return {
    config: options.config,
    signal: run.signal,
    local: options.config.transport === 'stdio',
    mirror: options.mirrors && mirrorAccess(options.mirrors, options.apiKey),
    unstated(topics) {
      const fresh = topics.filter((topic) => !run.session.stated.has(topic));
      for (const topic of fresh) run.session.stated.add(topic);
      return fresh;
    },
    async progress(update) {
      if (progressToken === undefined) return;
      await run.origin.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }).catch(() => undefined);
    },
    async call(toolName, input, callOptions) {
      const target = catalogByName.get(toolName);
      if (!target?.route) throw new Error(`internal: ${toolName} is not a route tool`);
      const priority = callOptions?.background ? 'background' : 'user';
      return api.request({ ...buildRequest(target, input, options.config.providerNames), signal: run.signal, onRetry: retryNotice(run), priority });
    },
  };
}

/** The session key's mirror, as a tool may reach it. */
function mirrorAccess(mirrors: MirrorRegistry, apiKey: string): MirrorAccess {
  let forgotten = false;
  return {
    mode: mirrors.mode === 'disk' ? 'disk' : 'memory',
    open: () => mirrors.get(apiKey),
    held: () => mirrors.held(apiKey),
    existing: () => mirrors.existing(apiKey),
    dropped: () => mirrors.droppedFor(apiKey),
    async settle(mirror) {
      await mirror.settle();
      await mirrors.fitMemory(mirror);
    },
    async forget(reason) {
      forgotten = true;
      await mirrors.discard(apiKey, reason);
    },
    forgotten: () => forgotten,
  };
}

/** Retries are reported to the client as MCP log messages (shown per the client's logging level). */
function retryNotice(run: ToolRun): (notice: string) => void {
  return (notice) => {
    run.session.server.sendLoggingMessage({ level: 'warning', logger: SERVER_NAME, data: `${run.tool.name}: ${notice}` }).catch(() => undefined);
  };
}

const NO_ENGINE_OPTIONS = ENGINE_OPTIONS.safeParse({});

/** `view` and `confirm`, checked: most calls carry neither, and need no parse. */
function engineOptions(rawArgs: Record<string, unknown>) {
  const given = ENGINE_FIELDS.filter((key) => key in rawArgs);
  if (given.length === 0) return NO_ENGINE_OPTIONS;
  return ENGINE_OPTIONS.safeParse(coerceToSchema(ENGINE_OPTIONS, Object.fromEntries(given.map((key) => [key, rawArgs[key]]))));
}

function omit(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key)));
}

/**
 * Arguments are checked as they arrived, before the SDK's own tools/call schema (zod 4 records)
 * parses them: that parse copies each field into a new object, so a `"__proto__"` field (an own
 * key after JSON.parse) becomes the copy's prototype, invisible to every later check and read
 * through by the tool's schema; a top-level `constructor` field is refused with a raw schema dump
 * or throws (`"constructor": null`). A call whose raw arguments break a shape rule (prototype
 * names at any depth, nesting, size) is answered as the pipeline answers every refusal: a tool
 * error naming the field, nothing sent.
 */
export function rawArgumentsScreen(redaction: Redaction, logger: Logger): ToolCallScreen {
  return (name, args) => {
    const problems = argumentProblems(args);
    if (!problems.length) return undefined;
    const tool = String(name);
    logger.info({ tool, ms: 0, isError: true }, 'tool call');
    return redactResult(unshaped(validationResult({ name: tool }, problems.join('\n'))), [redaction]).result;
  };
}
