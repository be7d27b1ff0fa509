import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type ElicitResult, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

import { ROOT } from './paths.js';

export interface Connection {
  client: Client;
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
}

/** A real SDK client talking to a spawned `svc-mcp` over stdio, as an MCP host would. */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...(options.args ?? [])],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'svc-mcp-tests', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  }
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(String(notification.params.data));
  });
  await client.connect(transport);
  return {
    client,
    logs,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** Environment that points a spawned server at a sandbox with the given key. */
export function sandboxEnv(sandbox: Sandbox, key = sandbox.keys.admin, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_BASE_URL: sandbox.url, SVC_API_KEY: key, ...extra };
}

export async function withSandbox(options?: SandboxOptions): Promise<Sandbox> {
  return startSandbox(options);
}

export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

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
