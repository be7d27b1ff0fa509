/**
 * The bench's floor: a minimal one-tool MCP server, built by the bench with the same esbuild
 * settings as svc-mcp's bundle (test/release/build.ts), so start, memory and CPU compare like with
 * like. Its one tool forwards the request svc-mcp's list_conversations sends, with undici, to
 * MINIMAL_BASE_URL with MINIMAL_API_KEY, and returns the body as text.
 *
 * - no argument: over stdio;
 * - `--http PORT`: over Streamable HTTP at /mcp on 127.0.0.1, stateful, one McpServer per session
 *   (the SDK's own example server, reduced to what the forwarding needs).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import { z } from 'zod';

const base = new URL(process.env.MINIMAL_BASE_URL ?? 'http://127.0.0.1:1');
const pool = new Pool(base.origin);

function newServer(): McpServer {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool('list_conversations', { description: 'Lists conversations.', inputSchema: { limit: z.number().int().min(1).max(100).optional() } }, async ({ limit }) => {
    const response = await pool.request({
      method: 'GET',
      path: `/v2/hc-interactions/public${limit ? `?limit=${limit}` : ''}`,
      headers: { authorization: `Bearer ${process.env.MINIMAL_API_KEY}`, accept: 'application/json' },
    });
    return { content: [{ type: 'text', text: await response.body.text() }] };
  });
  return server;
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

// A profile (--cpu-prof) is written only by an exit, not by a death from the signal.
process.on('SIGTERM', () => process.exit(0));

const httpAt = process.argv.indexOf('--http');
if (httpAt < 0) {
  await newServer().connect(new StdioServerTransport());
} else {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  http
    .createServer((req, res) => {
      void (async () => {
        if (req.url === '/healthz') return void res.end('ok');
        const body = req.method === 'POST' ? await readBody(req) : undefined;
        const id = req.headers['mcp-session-id'];
        const known = typeof id === 'string' ? transports.get(id) : undefined;
        if (known) return known.handleRequest(req, res, body);
        if (!isInitializeRequest(body)) {
          res.writeHead(400).end();
          return;
        }
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void transports.set(sessionId, transport),
        });
        transport.onclose = () => void (transport.sessionId && transports.delete(transport.sessionId));
        await newServer().connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch(() => res.writeHead(500).end());
    })
    .listen(Number(process.argv[httpAt + 1]), '127.0.0.1');
}
