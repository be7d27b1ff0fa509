import type { z } from 'zod';
import type { Api, HttpMethod } from '../http/client.js';
import type { Logger } from '../log.js';
import type { Config } from '../config.js';

export type Scope = 'read' | 'write';

export interface Route {
  method: HttpMethod;
  /** Path with `{param}` placeholders, each filled from the input field of the same name. */
  path: string;
  /** Input fields sent as query parameters. */
  query?: readonly string[];
  /**
   * Input fields sent in the JSON body: a list, or `'rest'` for every input field that is not a
   * path or query parameter nor an engine option (`view`, `confirm`). Pass-through fields
   * (`.passthrough()` schemas) travel with `'rest'`.
   */
  body?: readonly string[] | 'rest';
  /** POST routes that only read are retried like GETs and need no confirmation. */
  read?: boolean;
}

/** Text for errors that only the tool can explain: which thing was missing and which tool lists it. */
export interface ErrorHints {
  400?: string;
  404?: string;
  406?: string;
  500?: string;
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a custom handler may use: the same HTTP core, limiter and cancellation as every tool. */
export interface ToolContext {
  api: Api;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress; a no-op otherwise. */
  progress(update: ProgressUpdate): Promise<void>;
  /** Calls another tool's route with already validated input (composite tools page through lists this way). */
  call(toolName: string, input: Record<string, unknown>): Promise<unknown>;
  /** True when the process runs locally over stdio and may write files. */
  local: boolean;
}

/** Which result fields carry third-party text (customer messages, article bodies): marked as untrusted in text output. */
export type UntrustedFields = readonly string[];

export interface ListShape {
  /** Property of the result holding the items (a top-level array is wrapped by `transform` first). */
  items: string;
  /** Projection used by `view: "compact"` (the default). */
  compact: (item: Record<string, unknown>) => Record<string, unknown>;
  /** How a user gets what was cut when the result is capped. */
  more: string;
}

export interface ToolDefinition<Input extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  title: string;
  group: string;
  scope: Scope;
  /** Deletes data (destructiveHint). */
  destructive?: boolean;
  /** Makes calls to systems outside the workspace (openWorldHint); needs confirmation under SVC_CONFIRM=destructive. */
  openWorld?: boolean;
  /** Repeating the call with the same input has no further effect (idempotentHint); reads always are. */
  idempotent?: boolean;
  description: string;
  input: Input;
  route?: Route;
  /**
   * Composite reads: replaces the single route call (a tool has a route or a handler, never both).
   * Writes always have a route, because the confirmation gate shows the user that request.
   */
  handler?: (input: z.output<Input>, context: ToolContext) => Promise<unknown>;
  /** Zod schema of the structured result, when the spec documents the shape. */
  output?: z.ZodTypeAny;
  list?: ListShape;
  untrusted?: UntrustedFields;
  errors?: ErrorHints;
  /** Route tools only: more work after the request succeeded (for example waiting for the jobs it queued). */
  after?: (response: unknown, input: z.output<Input>, context: ToolContext) => Promise<unknown>;
  /** Turns the upstream response into the tool's result data (for example `null` into an explanation). */
  transform?: (response: unknown, input: z.output<Input>) => unknown;
  /**
   * A readable text rendering (a table, a diff) in place of the generic outline; `quote` wraps
   * third-party text (names, titles, message and diff lines) in the untrusted-data envelope.
   */
  text?: (data: unknown, quote: (value: unknown) => string) => string;
  /** Long jobs that may run as MCP tasks. */
  taskSupport?: 'optional';
}

export function defineTool<Input extends z.ZodTypeAny>(definition: ToolDefinition<Input>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** A read-only resource that is a view over a read tool, so it shares its route, validation and shaping. */
export interface ResourceDefinition {
  name: string;
  title: string;
  description: string;
  /** Fixed URI (`svc://agents`) or a template (`svc://sources/{sourceId}`). */
  uri: string;
  /** The read tool whose result this resource shows; template variables become its input. */
  tool?: string;
  /** Input given to the tool besides template variables. */
  args?: Record<string, unknown>;
  /** Static text instead of a tool (the usage guide). */
  text?: () => string;
  mimeType?: string;
  /** Completion of template variables from a list tool: the tool, its input, and how to pick ids from its items. */
  complete?: Record<string, { tool: string; args?: Record<string, unknown>; pick: (item: Record<string, unknown>) => string | undefined }>;
}

export interface PromptArgument {
  name: string;
  description: string;
  required?: boolean;
}

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** Tools the workflow calls: the prompt is offered only when all of them are exposed (toolsets, read-only). */
  uses: readonly string[];
  render: (args: Record<string, string | undefined>) => string;
}

export interface ToolGroup {
  name: string;
  description: string;
  tools: ToolDefinition[];
  resources?: ResourceDefinition[];
  prompts?: PromptDefinition[];
}
