import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Config } from '../config.js';
import { confirmGate, needsConfirmation } from './confirm.js';
import type { ToolContext, ToolDefinition } from './define.js';
import { errorResult, validationResult } from './errors.js';
import { acceptsUnknownKeys, coerceToSchema, formatIssues, objectShape, withClock } from './inputs.js';
import { shapeResult, type View } from './output.js';
import { buildRequest } from './request.js';
import { redactSecrets, secretsIn } from './secrets.js';
import { SERVER_NAME, type ToolRun } from './types.js';

const ENGINE_FIELDS = ['view', 'confirm'];

const engineOptionsSchema = z.object({
  view: z.enum(['compact', 'full']).optional(),
  confirm: z.boolean().optional(),
});

/**
 * Runs one call: validation, confirmation, the request or handler, shaping. Secrets the caller
 * passed in (data-step headers, tokens) are masked wherever they would come back: in data the API
 * echoes, in a preview, and in quoted upstream error text.
 */
export async function runTool(run: ToolRun): Promise<CallToolResult> {
  const started = Date.now();
  // Coerced once: the secrets scan and validation see the same arguments.
  const args = coerceToSchema(run.tool.input, omit(run.rawArgs, ENGINE_FIELDS)) as Record<string, unknown>;
  const secrets = secretsIn(args);
  let result = await callTool(run, args);
  if (secrets.length) result = redactSecrets(result, secrets) as CallToolResult;
  run.session.options.logger.info({ tool: run.tool.name, ms: Date.now() - started, isError: Boolean(result.isError) }, 'tool call');
  return result;
}

async function callTool(run: ToolRun, args: Record<string, unknown>): Promise<CallToolResult> {
  const { tool, signal } = run;
  const { config } = run.session.options;
  try {
    const engineArgs = engineOptionsSchema.safeParse(coerceToSchema(engineOptionsSchema, pick(run.rawArgs, ENGINE_FIELDS)));
    if (!engineArgs.success) return validationResult(tool, formatIssues(engineArgs.error.issues));
    const parsed = validateCoerced(tool, args, config);
    if (!parsed.ok) return validationResult(tool, parsed.message);
    const input = parsed.value;
    const view: View = engineArgs.data.view ?? 'compact';
    const context = toolContext(run);

    let data: unknown;
    if (tool.route) {
      const request = { ...buildRequest(tool, input), signal, onRetry: retryNotice(run) };
      if (needsConfirmation(tool, config.confirm)) {
        const decision = await confirmGate(run, request, engineArgs.data.confirm === true);
        if (decision) return decision;
      }
      data = await run.session.api.request(request);
      if (tool.after) data = await tool.after(data, input, context);
    } else if (tool.handler) {
      data = await tool.handler(input, context);
    }
    if (tool.transform) data = tool.transform(data, input);
    return shapeResult(data, {
      view,
      list: tool.list,
      untrusted: tool.untrusted,
      text: tool.text,
      capChars: config.maxResultTokens * 4,
      structured: true,
    });
  } catch (error) {
    return errorResult(tool, error);
  }
}

type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Checks the arguments against the tool's schema after coercion. Relative times and defaulted
 * windows of one call resolve against one instant, so `since: "90d"` is exactly 90 days.
 */
export function validateInput(tool: ToolDefinition, rawArgs: Record<string, unknown>, config: Pick<Config, 'defaultBotId'>, now = Date.now()): Validation {
  return validateCoerced(tool, coerceToSchema(tool.input, rawArgs) as Record<string, unknown>, config, now);
}

function validateCoerced(tool: ToolDefinition, args: Record<string, unknown>, config: Pick<Config, 'defaultBotId'>, now = Date.now()): Validation {
  const shape = objectShape(tool.input);
  if (!acceptsUnknownKeys(tool.input)) {
    const unknown = Object.keys(args).filter((key) => !(key in shape));
    if (unknown.length) {
      return { ok: false, message: `- ${unknown.join(', ')}: unknown field(s); this tool accepts ${[...Object.keys(shape), ...(tool.list ? ['view'] : [])].join(', ') || 'no arguments'}` };
    }
  }
  return withClock(now, () => {
    let result = tool.input.safeParse(args);
    // The default agent fills botId only where the call needs one, so optional botId filters are not narrowed by it.
    if (!result.success && config.defaultBotId && 'botId' in shape && (args.botId === undefined || args.botId === '')) {
      result = tool.input.safeParse({ ...args, botId: config.defaultBotId });
    }
    if (!result.success) return { ok: false, message: formatIssues(result.error.issues) } as const;
    return { ok: true, value: result.data as Record<string, unknown> } as const;
  });
}

function toolContext(run: ToolRun): ToolContext {
  const progressToken = run.origin._meta?.progressToken;
  const { options, api, catalogByName } = run.session;
  return {
    api,
    config: options.config,
    logger: options.logger,
    signal: run.signal,
    local: options.config.transport === 'stdio',
    async progress(update) {
      if (progressToken === undefined) return;
      await run.origin
        .sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } })
        .catch(() => undefined);
    },
    async call(toolName, input) {
      const target = catalogByName.get(toolName);
      if (!target?.route) throw new Error(`internal: ${toolName} is not a route tool`);
      return api.request({ ...buildRequest(target, input), signal: run.signal, onRetry: retryNotice(run) });
    },
  };
}

/** Retries are reported to the client as MCP log messages (shown per the client's logging level). */
function retryNotice(run: ToolRun): (notice: string) => void {
  return (notice) => {
    run.session.server.sendLoggingMessage({ level: 'warning', logger: SERVER_NAME, data: `${run.tool.name}: ${notice}` }).catch(() => undefined);
  };
}

function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}

function omit(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key)));
}
