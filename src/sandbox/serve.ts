/** `svc-mcp sandbox`: runs the embedded sandbox in the foreground until SIGINT/SIGTERM. */
import { ConfigError, parseInteger } from '../config.js';
import { startSandbox } from './index.js';

export interface SandboxCliOptions {
  port?: number;
  host?: string;
}

/** `--port N` and `--host H` (or `--port=N`); anything else is refused by name. */
export function parseSandboxArgs(argv: string[]): SandboxCliOptions {
  const options: SandboxCliOptions = {};
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    if (flag !== '--port' && flag !== '--host') {
      throw new ConfigError(`Unknown option ${flag} for svc-mcp sandbox (it takes --port N and --host H)`);
    }
    const value = inline ?? argv[++index];
    if (value === undefined || value === '') throw new ConfigError(`${flag} needs a value`);
    if (flag === '--port') options.port = parseInteger('--port', value, 0, 65_535);
    else options.host = value;
  }
  return options;
}

export async function runSandboxCli(opts: SandboxCliOptions = {}): Promise<void> {
  const sandbox = await startSandbox({ port: opts.port, host: opts.host });
  const lines = [
    `svc sandbox listening on ${sandbox.url}  (API under ${sandbox.url}/v2, controls under ${sandbox.url}/__sandbox/)`,
    '',
    'API keys (fresh for this run):',
    ...sandbox.keyRecords().map((k) => {
      const notes = [k.scopes.join('+'), k.workspaceId === sandbox.seed.workspaceA ? 'workspace A (Northwind Outfitters)' : 'workspace B (Globex Hardware)'];
      if (k.revoked) notes.push('REVOKED: every request gets 401');
      return `  ${k.name.padEnd(15)} ${k.key}  ${notes.join(', ')}`;
    }),
    '',
    'Point svc-mcp at it:',
    `  SVC_BASE_URL=${sandbox.url} SVC_API_KEY=${sandbox.keys.admin}`,
    '',
    'Press Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sandbox.close();
}
