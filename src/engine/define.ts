import type { z } from 'zod';
import type { HttpMethod } from '../upstream/method.js';
import type { Config } from '../config.js';
import type { ViewName } from '../views/catalog.js';
import type { WorkspaceMirror } from '../mirror/mirror.js';
import type { Dropped } from '../mirror/registry.js';
import type { Change } from '../mirror/schema.js';

export type Scope = 'read' | 'write';

/** Configuration values a tool may take as the default of an input field. */
export type ConfigFallback = keyof Pick<Config, 'defaultBotId'>;

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
  /** The route may answer JSON `null` (the spec says so of the refine session's); for any other, null is not its answer. */
  answersNull?: boolean;
  /** Input fields holding a provider kind, sent under its wire name (SVC_PROVIDER_NAMES): the spec hides the real names. */
  providerFields?: readonly string[];
  /**
   * The spec does not show this route's payload, and names only these fields of it: the tool
   * requires nothing else but path parameters, and passes unknown fields through (contract-tested).
   */
  payloadNotShown?: readonly string[];
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

/** What a tool's hooks (handler, transform, preview) may use: the same HTTP core, limiter and cancellation as every tool. */
export interface ToolContext {
  config: Config;
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress; a no-op otherwise. */
  progress(update: ProgressUpdate): Promise<void>;
  /**
   * Calls another tool's route with already validated input (composite tools page through lists
   * this way). `background`: a mirror sync's page, which people's calls go ahead of.
   */
  call(toolName: string, input: Record<string, unknown>, options?: { background?: boolean }): Promise<unknown>;
  /** True when the process runs locally over stdio and may write files. */
  local: boolean;
  /**
   * Of `topics` (what a result would state once per session, such as each rate's definition),
   * those this session's results have not stated yet, recorded as stated from now on: design 15
   * wants a definition in the first stats or explain result of a session only.
   */
  unstated(topics: readonly string[]): string[];
  /** The workspace mirror of the session's key; absent with SVC_MIRROR=off. */
  mirror?: MirrorAccess;
}

/** A session's way to its key's workspace mirror (src/mirror): opened on first need, and only then is the engine loaded. */
export interface MirrorAccess {
  mode: 'memory' | 'disk';
  /** The mirror, opened (and on disk, replayed) if it is not held. */
  open(): Promise<WorkspaceMirror>;
  /** The mirror if it is held now; nothing is opened. */
  held(): Promise<WorkspaceMirror | undefined>;
  /** The mirror if it is held or kept on disk (then opened): what a write keeps true. */
  existing(): Promise<WorkspaceMirror | undefined>;
  /** Why the mirror was dropped, if it was and is not held again. */
  dropped(): Dropped | undefined;
  /** After a sync: storage compacted, the journal rewritten when due, all mirrors kept within SVC_MIRROR_MAX_MB. */
  settle(mirror: WorkspaceMirror): Promise<void>;
  /** The API refused the key: its mirror is deleted, in memory and on disk. */
  forget(reason: string): Promise<void>;
  /** Whether `forget` ran during this call. */
  forgotten(): boolean;
}

/**
 * Marks third-party text (written by customers, agents or document authors) as data. Called on a
 * value: that text on one line, in the untrusted-data envelope. `block` lays out one record of
 * such text over several lines (an article's changed sentences) in ONE envelope: `render` writes
 * the lines, passing each third-party value through the `text` it is given, which keeps it on its
 * line; the lines come back between the envelope's opening and closing tags.
 */
export type Quote = ((value: unknown) => string) & { block(render: (text: (value: unknown) => string) => string[]): string[] };

/** What an effect preview may use: the tool context, plus marking of third-party text (titles, article lines) and warnings. */
export interface PreviewContext extends ToolContext {
  /** Wraps text written by customers or document authors so the reader treats it as data. */
  quote: Quote;
  /**
   * What the write cannot do, or a risk the user must weigh before saying yes (it writes into a
   * customer's conversation, it overwrites later changes): shown in the first lines of the
   * preview and of the question the user answers, before what the write does.
   */
  warn(text: string): void;
  /** Like `call`, but a failed read comes back as a short trusted reason (`not found, 404`) instead of throwing. */
  read(toolName: string, input: Record<string, unknown>): Promise<{ value: unknown } | { failed: string }>;
}

export interface ListShape {
  /** Property of the result holding the items; a result that is a bare array (a route answering one) is put under this name. */
  items: string;
  /** Projection used by `view: "compact"` (the default). */
  compact: (item: Record<string, unknown>) => Record<string, unknown>;
  /** How a user gets what was cut when the result is capped. */
  more: string;
}

/**
 * One tool as its group module writes it: data from which the engine derives the listing, the
 * HTTP call, confirmation and the result. First what describes the tool (tools/list, toolsets,
 * find_tools), then the hooks of a call in the order a call runs them. The group is not written
 * here: it is the group that lists the tool (`defineGroup`).
 */
export interface ToolDefinition<Input extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  /**
   * Names the tool had before a rename: still answered, never listed. Names are contract (design
   * §17): users' allowlists, skills and scripts hold them.
   */
  formerNames?: readonly string[];
  title: string;
  scope: Scope;
  /** Deletes data (destructiveHint). */
  destructive?: boolean;
  /** Makes calls to systems outside the workspace (openWorldHint); needs confirmation under SVC_CONFIRM=destructive. */
  openWorld?: boolean;
  /** Repeating the call with the same input has no further effect (idempotentHint); reads always are. */
  idempotent?: boolean;
  description: string;
  /**
   * Everyday words people use for what the tool does ("remove erase" for a delete), which its name
   * and description do not say: find_tools ranks by them. Never listed, so they cost no context.
   */
  words?: string;
  /**
   * Input fields, of any tool, whose ids this tool's result gives (list_folders gives `folderId`):
   * find_tools names the tools a match needs first. Never listed.
   */
  gives?: readonly string[];
  /** Listed on the core surface (`SVC_TOOLSETS=core`): the tools a support engineer uses most. */
  core?: boolean;
  /** Zod schema of the structured result, when the spec documents the shape. */
  output?: z.ZodTypeAny;
  /** Long jobs that may run as MCP tasks. */
  taskSupport?: 'optional';
  /** Works on the workspace mirror alone: neither listed nor callable with SVC_MIRROR=off. */
  needsMirror?: boolean;
  /**
   * The MCP Apps view (src/views/<name>) a client with the UI extension shows beside the result. It
   * renders from `structuredContent` and adds to the text result, which stays complete.
   */
  ui?: ViewName;

  // A call runs the hooks below in this order; `errors` only when it fails.

  /** 1. The arguments are coerced to this schema (objects sent as JSON text are parsed), then validated; unknown fields are refused by name. */
  input: Input;
  /**
   * 2. Input fields that configuration fills when a call needs one and leaves it out (a default agent
   * for `botId`): tried only when validation fails without them, so optional filters are never narrowed unasked.
   */
  fallbacks?: Readonly<Record<string, ConfigFallback>>;
  /** 3. The request, built from the validated input (empty path parameters are refused). */
  route?: Route;
  /**
   * 4. Writes that need confirmation: what the request will do, one line each, read from the target
   * through `context.read` (same limiter) before the user is asked. Shown above the exact request.
   * A read that fails is reported as a line, never thrown: the preview must not block the write.
   */
  preview?: (input: z.output<Input>, context: PreviewContext) => Promise<string[]>;
  /**
   * 5. Composite reads: replaces the route's request (a tool has a route or a handler, never both).
   * Writes always have a route, because the confirmation gate shows the user that request.
   */
  handler?: (input: z.output<Input>, context: ToolContext) => Promise<unknown>;
  /**
   * 6. Turns the response (or the handler's value) into the tool's result data: `null` into an
   * explanation, or, async through the context, more work once the request succeeded (waiting for
   * the jobs a write queued, reading the drafts a session names).
   */
  transform?: (response: unknown, input: z.output<Input>, context: ToolContext) => unknown;
  /**
   * 7. What a successful call changed of what the workspace mirror holds (a write), or showed of
   * what it cannot list (an id of a kind no route lists), as changes to apply to the key's mirror at
   * once: a write's to a mirror held or kept on disk, a read's to one held only.
   */
  keepMirror?: (data: unknown, input: z.output<Input>, mirror: WorkspaceMirror) => Promise<Change[]> | Change[];
  /** 8. Writes: the line that opens a successful result, with the affected or new id and the natural next step. */
  done?: (data: unknown, input: z.output<Input>) => string;
  /** 9. List results: the compact projection of each item, and what a capped result tells the user. */
  list?: ListShape;
  /**
   * 9b. Results that may stop before the end of what was asked (a limit on what is read): the
   * sentence saying so, with how many were read of how many and how to get the rest, or undefined
   * for a whole result. The engine makes it the result's first line, above any note of its own cap.
   */
  stoppedEarly?: (data: unknown, input: z.output<Input>) => string | undefined;
  /**
   * 10. A readable text rendering (a table, a diff) in place of the generic outline; `quote` wraps
   * third-party text (names, titles, message and diff lines) in the untrusted-data envelope.
   */
  text?: (data: unknown, quote: Quote) => string;
  /** When the call fails: text for the errors only the tool can explain. */
  errors?: ErrorHints;
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
  /** Describes the workspace mirror: not listed with SVC_MIRROR=off. */
  needsMirror?: boolean;
  /** Or read through the session's context (the mirror's status), rendered by `render` like a tool's result. */
  handler?: (context: ToolContext) => Promise<unknown>;
  render?: (data: unknown, quote: (value: unknown) => string) => string;
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

/** A tool as the catalog holds it: its definition, and the name of the group that lists it. */
export interface CatalogTool extends ToolDefinition {
  group: string;
}

export interface ToolGroup {
  name: string;
  description: string;
  tools: CatalogTool[];
  /**
   * Everyday names for words of this group's tools, each read as that word when find_tools ranks
   * (a product name for the provider kind it is: confluence for wiki). Never listed.
   */
  aliases?: Readonly<Record<string, string>>;
  resources?: ResourceDefinition[];
  prompts?: PromptDefinition[];
}

/** A group as its module writes it: the definitions of its tools, which carry no group of their own. */
export interface GroupDefinition extends Omit<ToolGroup, 'tools'> {
  tools: ToolDefinition[];
}

/** The group as the catalog holds it: each tool names this group, so a tool cannot claim another. */
export function defineGroup(group: GroupDefinition): ToolGroup {
  return { ...group, tools: group.tools.map((tool) => ({ ...tool, group: group.name })) };
}
