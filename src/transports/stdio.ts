import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../engine/server.js';
import type { Runtime } from '../runtime.js';
import { instrumentTransport } from '../telemetry.js';

/** One local client, one key: the server speaks JSON-RPC on stdout and logs on stderr. */
export async function serveStdio(runtime: Runtime): Promise<void> {
  const server = createMcpServer({ ...runtime, apiKey: runtime.config.apiKey! });
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
  instrumentTransport(transport, 'pipe');
  runtime.logger.info({ transport: 'stdio', readOnly: runtime.config.readOnly, confirm: runtime.config.confirm, sandbox: Boolean(runtime.sandbox) }, 'svc-mcp ready');
}
