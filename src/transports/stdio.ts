import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../engine/server.js';
import type { Runtime } from '../runtime.js';

/** The server a stdio process serves: one local client, one key. The in-process test harness builds the same one. */
export function stdioServer(runtime: Runtime): McpServer {
  return createMcpServer({ ...runtime, apiKey: runtime.config.apiKey! });
}

/** One local client, one key: the server speaks JSON-RPC on stdout and logs on stderr. */
export async function serveStdio(runtime: Runtime): Promise<void> {
  const server = stdioServer(runtime);
  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    runtime.logger.info({ reason }, 'shutting down');
    await server.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.stdin.on('end', () => void shutdown('stdin closed'));
  transport.onclose = () => void shutdown('transport closed');
  await server.connect(transport);
  runtime.logger.info({ transport: 'stdio', readOnly: runtime.config.readOnly, confirm: runtime.config.confirm, sandbox: Boolean(runtime.sandbox) }, 'svc-mcp ready');
}
