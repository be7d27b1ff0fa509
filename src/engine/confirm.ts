import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmMode } from '../config.js';
import type { ApiRequest } from '../http/client.js';
import { encodeQuery } from '../http/client.js';
import { maskSecrets } from './secrets.js';
import type { ToolDefinition } from './define.js';
import type { ToolRun } from './types.js';

export function needsConfirmation(tool: ToolDefinition, mode: ConfirmMode): boolean {
  if (tool.scope === 'read' || mode === 'none') return false;
  if (mode === 'writes') return true;
  return Boolean(tool.destructive || tool.openWorld);
}

/** Exactly what will be sent, as the user reads it: method, path with query, and the JSON body. */
export function describeRequest(request: Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>): string {
  const line = `${request.method} ${request.path}${decodeURIComponent(encodeQuery(request.query))}`;
  if (request.body === undefined) return line;
  return `${line}\n${JSON.stringify(maskSecrets(request.body), null, 2)}`;
}

/**
 * The confirmation gate. Returns a result when nothing may be sent (preview, decline), or
 * undefined when the request may go.
 */
export async function confirmGate(run: ToolRun, request: ApiRequest, confirmedByArgument: boolean): Promise<CallToolResult | undefined> {
  const description = describeRequest(request);
  const { server, options } = run.session;
  const canElicit = options.elicitationAllowed !== false && Boolean(server.getClientCapabilities()?.elicitation);
  if (canElicit) {
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: `${run.tool.title}: send this request to the workspace API?\n\n${description}`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Send it', description: 'Yes sends the request exactly as shown.' } },
          required: ['confirm'],
        },
      },
      { signal: run.signal },
    );
    if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
    const how = answer.action === 'accept' ? 'answered no' : answer.action === 'decline' ? 'declined' : 'cancelled';
    return notSent(`The user ${how}; nothing was sent.`, description, run.tool);
  }
  if (confirmedByArgument) return undefined;
  return notSent(
    'Preview only; nothing was sent. Show this to the user and, once they agree, call the same tool again with the same arguments plus "confirm": true.',
    description,
    run.tool,
  );
}

function notSent(message: string, description: string, tool: ToolDefinition): CallToolResult {
  return {
    content: [{ type: 'text', text: `${message}\n\n${tool.name} would send:\n${description}` }],
    structuredContent: { sent: false, message, request: description },
  };
}
