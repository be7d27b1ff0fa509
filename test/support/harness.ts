import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult, type ClientCapabilities, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/engine/server.js';
import type { EngineOptions } from '../../src/engine/types.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { svcMcpCommand } from './built.js';
import { ROOT, TEST_STATE_DIR } from './paths.js';
import { RUN_ENV } from './run-env.js';

const RECORD_CALLS = process.env.SVC_TEST_RECORD_CALLS;

export interface Connection {
  client: Client;
  /** Calls a tool and returns its result as the client received it; `options` as the SDK's (progress, signal, timeout). */
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult>;
  /** What the server logged (pino JSON lines), as a process would have written it to stderr. */
  stderr: () => string;
  /** MCP log messages the server sent to this client. */
  logs: string[];
  close(): Promise<void>;
}

export interface ConnectOptions {
  env?: Record<string, string>;
  args?: string[];
  /** Answers elicitation requests; the client declares elicitation support only when given. */
  elicit?: (message: string) => ElicitResult | Promise<ElicitResult>;
  /** Declared besides elicitation, e.g. the MCP Apps extension of a host that shows views. */
  capabilities?: ClientCapabilities;
  /** Sees every result `call` returns, e.g. to check at the end that no secret appeared in any. */
  onResult?: (result: CallToolResult) => void;
  /** In process only: what the server is built with besides the runtime (a test clock, no task store, a catalog changed for the test). */
  engine?: Partial<Pick<EngineOptions, 'now' | 'taskStore' | 'elicitationAllowed' | 'catalog'>>;
}

/**
 * A real SDK client talking to svc-mcp in this process over the SDK's in-memory transport: the
 * configuration comes from the same flags and environment a process would read, and the server is
 * the one `svc-mcp` serves over stdio. Every message is passed through JSON, as on a wire. The
 * workspace mirror is off unless a test turns it on (`SVC_MIRROR: 'memory'`): a test of what the API
 * is asked (requests, pages, faults) asks it of the API, and the mirror's own tests say so.
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const config = loadConfig(options.args ?? [], { SVC_LOG_LEVEL: 'debug', SVC_STATE_DIR: TEST_STATE_DIR, SVC_MIRROR: 'off', ...RUN_ENV, ...options.env });
  let stderr = '';
  const logger = createLogger(config.logLevel, 'json', {
    write: (line: string) => {
      stderr += line;
    },
  });
  const runtime = await createRuntime(config, logger);
  // What stdioServer(runtime) builds, with the test's engine options on top.
  const server = createMcpServer({ ...runtime, apiKey: config.apiKey!, ...options.engine });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(asOnTheWire(serverSide));
  const { client, logs } = testClient(options);
  await client.connect(asOnTheWire(clientSide));
  return {
    client,
    call: caller(client, options.onResult),
    logs,
    stderr: () => stderr,
    async close() {
      await client.close();
      await server.close();
      await runtime.close();
    },
  };
}

export interface ProcessConnection extends Connection {
  pid?: number;
}

/**
 * A real SDK client talking to a spawned `svc-mcp` (the built bundle) over stdio, as an MCP host would. Only for tests
 * whose subject is the process boundary (stdout hygiene, exit codes, signals, flags): it costs a
 * process start per call.
 */
export async function connectProcess(options: ConnectOptions = {}): Promise<ProcessConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(await svcMcpCommand()), ...(options.args ?? [])],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'debug', SVC_STATE_DIR: TEST_STATE_DIR, SVC_MIRROR: 'off', ...RUN_ENV, ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const { client, logs } = testClient(options);
  await client.connect(transport);
  return {
    client,
    call: caller(client, options.onResult),
    logs,
    pid: transport.pid ?? undefined,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** The tests' SDK client, before it connects: it declares elicitation when it can answer, and keeps the MCP log messages it is sent. */
export function testClient(options: Pick<ConnectOptions, 'elicit' | 'capabilities'>): { client: Client; logs: string[] } {
  const capabilities = { ...options.capabilities, ...(options.elicit ? { elicitation: { form: {} } } : {}) };
  const client = new Client({ name: 'svc-mcp-tests', version: '1.0.0' }, { capabilities });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  }
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(String(notification.params.data));
  });
  return { client, logs };
}

/** Answers every elicitation with `answer`, keeping each question in `asked`. */
export function answering(asked: string[], answer: ElicitResult): NonNullable<ConnectOptions['elicit']> {
  return (message) => {
    asked.push(message);
    return answer;
  };
}

/** Sends copies made through JSON, so nothing that would not survive serialization reaches the other side. */
function asOnTheWire(transport: InMemoryTransport): InMemoryTransport {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(JSON.parse(JSON.stringify(message)), options);
  return transport;
}

/** The initialize request of a client that speaks JSON-RPC itself (protocol 2025-06-18), as `clientName`. */
export const initializeRequest = (clientName: string, id = 1) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'initialize' as const,
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
});

/** A key of the API's form that no workspace holds. */
export const madeUpKey = (): string => `svc_${randomBytes(16).toString('hex')}`;

/** A new key the sandbox accepts, with the admin key's rights: a test starts with no verdict cached for it and no session of it open. */
export function acceptedKey(sandbox: Sandbox, label: string): string {
  const key = madeUpKey();
  const admin = sandbox.state.keys.find((record) => record.name === 'admin')!;
  sandbox.state.keys.push({ ...admin, name: `${label}-${key.slice(-6)}`, key, prefix: key.slice(0, 8) });
  return key;
}

/** Environment that points a server at a sandbox with the given key. */
export function sandboxEnv(sandbox: Sandbox, key = sandbox.keys.admin, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_BASE_URL: sandbox.url, SVC_API_KEY: key, ...extra };
}

/**
 * A tool call of `client`, typed as the result a tool call gives. With SVC_TEST_RECORD_CALLS set
 * to a file, every call's name and arguments are appended to it as a JSON line: the corpus that
 * `npm run compare-answers` replays on two builds.
 */
export function caller(client: Client, onResult?: (result: CallToolResult) => void): Connection['call'] {
  return async (name, args = {}, options) => {
    if (RECORD_CALLS) appendFileSync(RECORD_CALLS, `${JSON.stringify({ name, arguments: args })}\n`);
    const result = (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
    onResult?.(result);
    return result;
  };
}

export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** What a client takes for "it was sent": a result that is neither an error nor a preview. */
export const claimsSent = (result: CallToolResult) => !result.isError && (result.structuredContent as { sent?: unknown } | undefined)?.sent !== false;

export function apiRequests(sandbox: Sandbox) {
  return sandbox.requests.filter((request) => request.path.startsWith('/v2'));
}

/** Calls a tool as an MCP task and follows it to the end: the stream's message kinds and the final result. */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>): Promise<{ kinds: string[]; result?: CallToolResult }> {
  const kinds: string[] = [];
  let result: CallToolResult | undefined;
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 60_000 } })) {
    kinds.push(message.type);
    if (message.type === 'result') result = message.result as CallToolResult;
  }
  return { kinds, result };
}

/**
 * Waits for something the test cannot be told about (a request arriving, a log line, a span at a
 * collector), probing every 10 ms: the probe's first value that is neither undefined nor false.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How many calls of this tool the server has finished (its `tool call` log lines, written at debug, the harness's level): once a call has ended, nothing more is sent for it. */
export function callsEnded(connection: Connection, tool: string): number {
  return connection
    .stderr()
    .split('\n')
    .filter((line) => line.includes('"msg":"tool call"') && line.includes(`"tool":"${tool}"`)).length;
}
