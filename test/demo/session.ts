import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../support/paths.js';

/** Colour only for a person at a terminal: plain text when piped, redirected, or NO_COLOR is set. */
const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
export const dim = paint('2');
export const bold = paint('1');
const cyan = paint('36');

function isHidden(value: unknown): value is { hide: true; value: unknown } {
  return typeof value === 'object' && value !== null && (value as { hide?: unknown }).hide === true;
}

/** The installed program, as a client launches it: the package's own `svc-mcp` bin, built by `npm install`. */
function builtBinary(): string {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return path.join(ROOT, manifest.bin['svc-mcp']);
}

export interface SessionOptions {
  /** A client that asks its user (elicitation); without it, writes come back as previews with a confirmToken. */
  elicitation: boolean;
  /** Flags after `--sandbox`, such as a bigger generated workspace. */
  args?: string[];
}

/** A demo session: a real MCP client over stdio that prints what an assistant would see. */
export class DemoSession {
  private constructor(readonly client: Client) {}

  static async start(options: SessionOptions): Promise<DemoSession> {
    const binary = builtBinary();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binary, '--sandbox', ...(options.args ?? [])],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_LOG_FORMAT: 'pretty', ...(process.env.NO_COLOR ? { NO_COLOR: '1' } : {}) },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'svc-mcp-demo', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} });
    if (options.elicitation) {
      // The demo plays the user too: it shows each confirmation request and approves it.
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        console.log(`   ${bold('? confirm')} ${request.params.message.split('\n').join('\n     ')}`);
        console.log(`   ${bold('✔ user approves')}`);
        return { action: 'accept', content: { confirm: true } };
      });
    }
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`could not start ${path.relative(ROOT, binary)} (run npm install or npm run build first): ${(error as Error).message}`);
    }
    return new DemoSession(client);
  }

  step(title: string): void {
    console.log(`\n${bold(`▶ ${title}`)}`);
  }

  say(text: string): void {
    console.log(`   ${text}`);
  }

  /** Calls a tool, prints the call and the first lines of its text, and returns the structured result; `refusal`: the call must be refused. */
  async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}, maxLines = 14, outcome: 'success' | 'refusal' = 'success'): Promise<T> {
    // The demo plays the assistant: it never prints a secret it passes, just as the server never shows one back.
    console.log(cyan(`→ ${name} ${JSON.stringify(args, (_, value: unknown) => (isHidden(value) ? { ...value, value: '********' } : value))}`));
    // A line a second at most: a year's sync sends one notification per page.
    let printed = 0;
    const result = (await this.client.callTool({ name, arguments: args }, undefined, {
      onprogress: (update) => {
        if (Date.now() - printed < 1000) return;
        printed = Date.now();
        console.log(dim(`   … ${update.message ?? `${update.progress}/${update.total ?? '?'}`}`));
      },
      timeout: 120_000,
    })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    this.show(result.isError ? '✖' : '←', text, maxLines);
    if (Boolean(result.isError) !== (outcome === 'refusal')) throw new Error(`${name} ${result.isError ? 'failed' : 'was not refused'}: ${text}`);
    return result.structuredContent as T;
  }

  /** Reads a resource and prints its first lines. */
  async read(uri: string, maxLines = 10): Promise<string> {
    console.log(cyan(`→ resources/read ${uri}`));
    const { contents } = await this.client.readResource({ uri });
    const text = contents.map((part) => ('text' in part ? part.text : '')).join('\n');
    this.show('←', text, maxLines);
    return text;
  }

  /** Fetches a prompt and prints the workflow it hands the assistant. */
  async prompt(name: string, args: Record<string, string>, maxLines = 10): Promise<void> {
    console.log(cyan(`→ prompts/get ${name} ${JSON.stringify(args)}`));
    const { messages } = await this.client.getPrompt({ name, arguments: args });
    this.show('←', messages.map((message) => (message.content.type === 'text' ? message.content.text : '')).join('\n'), maxLines);
  }

  private show(mark: string, text: string, maxLines: number): void {
    const lines = text.split('\n');
    const shown = lines
      .slice(0, maxLines)
      .map((line) => `   ${line}`)
      .join('\n');
    console.log(`${mark} ${shown.trimStart()}${lines.length > maxLines ? dim(`\n   … ${lines.length - maxLines} more lines`) : ''}`);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
