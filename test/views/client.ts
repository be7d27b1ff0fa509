import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { createMcpServer } from '../../src/engine/server.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../src/views/index.js';

export interface ViewClient {
  client: Client;
  /** Every tools/call the client made, views' calls included, in order. */
  calls: Array<CallToolRequest['params']>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * svc-mcp in process over the SDK's in-memory transport, with a real SDK client that declares the
 * MCP Apps extension, as a host that shows views does (and no elicitation), or without it.
 */
export async function connectViewClient(sandbox: Sandbox, env: Record<string, string> = {}, showsViews = true): Promise<ViewClient> {
  const config = loadConfig([], { SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_LOG_LEVEL: 'silent', ...env });
  const runtime = await createRuntime(config, createLogger('silent'));
  const server = createMcpServer({ ...runtime, apiKey: config.apiKey! });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'svc-mcp-view-test-host', version: '1.0.0' }, { capabilities: showsViews ? { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } } : {} });
  await client.connect(clientSide);
  const calls: ViewClient['calls'] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    calls.push({ name, arguments: args });
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  };
  return {
    client,
    calls,
    call,
    async close() {
      await client.close();
      await server.close();
      await runtime.close();
    },
  };
}
