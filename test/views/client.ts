import type { CallToolRequest, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../src/views/index.js';
import { connect, sandboxEnv, type Connection } from '../support/harness.js';

/** What a host that shows views declares: the MCP Apps extension (and no elicitation). */
export const SHOWS_VIEWS: ClientCapabilities = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };

export interface ViewClient extends Connection {
  /** Every tools/call the client made, views' calls included, in order. */
  calls: Array<CallToolRequest['params']>;
}

/** svc-mcp in process with a real SDK client, as a host that shows views (or, `showsViews` false, one that does not). */
export async function connectViewClient(sandbox: Sandbox, env: Record<string, string> = {}, showsViews = true): Promise<ViewClient> {
  const connection = await connect({ env: sandboxEnv(sandbox, sandbox.keys.admin, env), capabilities: showsViews ? SHOWS_VIEWS : {} });
  const calls: ViewClient['calls'] = [];
  return {
    ...connection,
    calls,
    call: (name, args = {}, options) => {
      calls.push({ name, arguments: args });
      return connection.call(name, args, options);
    },
  };
}
