import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { el, replaceChildren, withoutEnvelope } from './dom.js';

export interface ViewHandlers {
  /** The arguments the model called the tool with (the stats view reuses its filters). */
  input?(args: Record<string, unknown>): void;
  /** The tool's result; views render from `structuredContent`. */
  result(result: CallToolResult): void;
  /** The host switched theme or styles: charts are redrawn in the new colours. */
  restyle?(): void;
}

/** Connects the page to its host through ext-apps' App and follows the host's theme and styles. */
export async function startView(name: string, handlers: ViewHandlers): Promise<App> {
  const app = new App({ name: `svc-mcp ${name} view`, version: '1.0.0' }, {}, { autoResize: true });
  app.ontoolinput = (params) => handlers.input?.(params.arguments ?? {});
  app.ontoolresult = (result) => handlers.result(result);
  app.onhostcontextchanged = (context) => {
    followHost(context);
    handlers.restyle?.();
  };
  await app.connect();
  followHost(app.getHostContext());
  return app;
}

function followHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

/** The first text part of a result, as a person reads it. */
export function resultText(result: CallToolResult): string {
  const part = result.content?.find((item) => item.type === 'text');
  return part && part.type === 'text' ? withoutEnvelope(part.text) : '';
}

/** An error from the host or the tool, shown in place; the view stays usable. */
export function showError(target: Element, what: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  replaceChildren(target, el('p', { className: 'error', attrs: { role: 'alert' } }, `${what}: ${message}`));
}
