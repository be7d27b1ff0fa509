/**
 * The host page of the browser test, as an MCP Apps host renders a view: the view's HTML in a
 * sandboxed iframe (scripts only, an opaque origin), connected through ext-apps' AppBridge over
 * postMessage. Tool calls from the view go to `svcCallTool`, which the test wires to a real SDK
 * client of the server.
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';

declare global {
  interface Window {
    svcCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    host: { show(options: ShowOptions): Promise<void>; setTheme(theme: 'light' | 'dark'): Promise<void> };
  }
}

interface ShowOptions {
  html: string;
  theme: 'light' | 'dark';
  /** The frame's width in CSS pixels: 960 as a desktop host, 400 as a narrow side panel. */
  width: number;
  toolName: string;
  args: Record<string, unknown>;
  result: CallToolResult;
}

let bridge: AppBridge | undefined;
let context: McpUiHostContext = {};

async function show({ html, theme, width, toolName, args, result }: ShowOptions): Promise<void> {
  await bridge?.close();
  document.body.replaceChildren();
  document.documentElement.style.colorScheme = theme;
  document.body.style.background = theme === 'dark' ? '#0d1117' : '#ffffff';
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = `width: ${width}px; height: 400px; border: 0; display: block;`;
  document.body.append(frame);

  context = { theme, platform: 'web', displayMode: 'inline', containerDimensions: { width, maxHeight: 4000 }, toolInfo: { tool: { name: toolName, inputSchema: { type: 'object' } } } };
  bridge = new AppBridge(null, { name: 'svc-mcp view test host', version: '1.0.0' }, { serverTools: {} }, { hostContext: context });
  bridge.oncalltool = (params) => window.svcCallTool(params);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  // Listening before the view loads: its first message (ui/initialize) is sent as its script runs.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
}

async function setTheme(theme: 'light' | 'dark'): Promise<void> {
  context = { ...context, theme };
  document.body.style.background = theme === 'dark' ? '#0d1117' : '#ffffff';
  await bridge!.sendHostContextChange({ theme });
}

window.host = { show, setTheme };
