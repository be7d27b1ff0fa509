import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PromptDefinition, ToolDefinition, ToolGroup } from './define.js';

/** Prompts are offered only when every tool their workflow calls is exposed (toolsets, read-only). */
export function registerPrompts(server: McpServer, catalog: ToolGroup[], toolsByName: ReadonlyMap<string, ToolDefinition>): void {
  const prompts: PromptDefinition[] = catalog.flatMap((group) => group.prompts ?? []).filter((prompt) => prompt.uses.every((name) => toolsByName.has(name)));
  for (const prompt of prompts) {
    const argsSchema = Object.fromEntries(prompt.arguments.map((argument) => [argument.name, (argument.required ? z.string() : z.string().optional()).describe(argument.description)]));
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema }, (args: Record<string, string | undefined>) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
    }));
  }
}
