import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';

/** Queues an ingestion job straight at the sandbox (not through a node) and returns its source id. */
export async function queueSource(sandbox: Sandbox, url = `https://example.com/${Math.random().toString(36).slice(2)}`): Promise<string> {
  const response = await fetch(`${sandbox.url}/v2/documents/public`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source: 'web', documentIdsToAdd: [url] }),
  });
  if (!response.ok) throw new Error(`sandbox refused the ingestion: ${response.status}`);
  const body = (await response.json()) as { addedDocumentIds: string[] };
  return body.addedDocumentIds[0];
}

/** Starts `wait_for_sources` as an MCP task and returns its id without following it. */
export async function startWaitTask(client: Client, sourceId: string, timeoutSeconds = 120): Promise<string> {
  const created = await client.request(
    { method: 'tools/call', params: { name: 'wait_for_sources', arguments: { sourceIds: [sourceId], timeoutSeconds }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task.taskId;
}

export function resultText(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
