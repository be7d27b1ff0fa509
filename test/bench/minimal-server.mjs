// The bench's floor: a minimal one-tool MCP server as such a server is usually shipped (plain
// Node ESM, unbundled, the SDK and undici from node_modules). Its one tool forwards the same
// request svc-mcp's list_conversations sends, to MINIMAL_BASE_URL with MINIMAL_API_KEY.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Pool } from 'undici';
import { z } from 'zod';

const base = new URL(process.env.MINIMAL_BASE_URL ?? 'http://127.0.0.1:1');
const pool = new Pool(base.origin);
const server = new McpServer({ name: 'minimal', version: '1.0.0' });

server.registerTool(
  'list_conversations',
  { description: 'Lists conversations.', inputSchema: { limit: z.number().int().min(1).max(100).optional() } },
  async ({ limit }) => {
    const response = await pool.request({
      method: 'GET',
      path: `/v2/hc-interactions/public${limit ? `?limit=${limit}` : ''}`,
      headers: { authorization: `Bearer ${process.env.MINIMAL_API_KEY}`, accept: 'application/json' },
    });
    return { content: [{ type: 'text', text: await response.body.text() }] };
  },
);

await server.connect(new StdioServerTransport());
