import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../support/paths.js';
import { maskSecrets } from '../../src/engine/secrets.js';

const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;
const bold = (text: string) => `\x1b[1m${text}\x1b[0m`;
const cyan = (text: string) => `\x1b[36m${text}\x1b[0m`;

/** A demo session: a real MCP client over stdio that prints what an assistant would see. */
export class DemoSession {
  private constructor(readonly client: Client) {}

  static async start(): Promise<DemoSession> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), '--sandbox'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn' },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'svc-mcp-demo', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    // The demo plays the user too: it shows each confirmation request and approves it.
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      console.log(`   ${bold('? confirm')} ${request.params.message.split('\n').join('\n     ')}`);
      console.log(`   ${bold('✔ user approves')}`);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(transport);
    return new DemoSession(client);
  }

  step(title: string): void {
    console.log(`\n${bold(`▶ ${title}`)}`);
  }

  /** Calls a tool, prints the call and the first lines of its text, and returns the structured result. */
  async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}, maxLines = 14): Promise<T> {
    // The demo plays the assistant: it never prints a secret it passes, just as the server never shows one back.
    console.log(cyan(`→ ${name} ${JSON.stringify(maskSecrets(args))}`));
    const result = (await this.client.callTool({ name, arguments: args }, undefined, {
      onprogress: (update) => console.log(dim(`   … ${update.message ?? `${update.progress}/${update.total ?? '?'}`}`)),
      timeout: 120_000,
    })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    const lines = text.split('\n');
    const shown = lines.slice(0, maxLines).map((line) => `   ${line}`).join('\n');
    console.log(`${result.isError ? '✖' : '←'} ${shown.trimStart()}${lines.length > maxLines ? dim(`\n   … ${lines.length - maxLines} more lines`) : ''}`);
    if (result.isError) throw new Error(`${name} failed: ${text}`);
    return result.structuredContent as T;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
