/** `svc-mcp sandbox`: runs the embedded sandbox in the foreground until SIGINT/SIGTERM. */
import { ConfigError, parseInteger, parseSandboxConversations, parseSandboxRateLimit } from '../config.js';
import { explainListenError } from '../listen.js';
import { tellPerson } from '../tell.js';
import { startSandbox } from './index.js';
import type { RateLimitSetting } from './ratelimit.js';

export interface SandboxCliOptions {
  port?: number;
  host?: string;
  conversations?: number;
  rateLimit?: RateLimitSetting;
}

const FLAGS = '--port N, --host H, --sandbox-conversations N and --sandbox-rate-limit N/Ts|off';

/**
 * `--port N`, `--host H`, `--sandbox-conversations N` and `--sandbox-rate-limit N/Ts|off` (or
 * `--flag=value`); the last two also from SVC_SANDBOX_CONVERSATIONS and SVC_SANDBOX_RATE_LIMIT, a
 * flag winning. Anything else is refused by name.
 */
export function parseSandboxArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): SandboxCliOptions {
  const options: SandboxCliOptions = {};
  const conversations = (name: string, value: string) => (options.conversations = parseSandboxConversations(name, value));
  const rateLimit = (name: string, value: string) => (options.rateLimit = parseSandboxRateLimit(name, value));
  if (env.SVC_SANDBOX_CONVERSATIONS) conversations('SVC_SANDBOX_CONVERSATIONS', env.SVC_SANDBOX_CONVERSATIONS);
  if (env.SVC_SANDBOX_RATE_LIMIT) rateLimit('SVC_SANDBOX_RATE_LIMIT', env.SVC_SANDBOX_RATE_LIMIT);
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    const apply = {
      '--port': (value: string) => (options.port = parseInteger(flag, value, 0, 65_535)),
      '--host': (value: string) => (options.host = value),
      '--sandbox-conversations': (value: string) => conversations(flag, value),
      '--sandbox-rate-limit': (value: string) => rateLimit(flag, value),
    }[flag];
    if (!apply) throw new ConfigError(`Unknown option ${flag} for svc-mcp sandbox (it takes ${FLAGS})`);
    const value = inline ?? argv[++index];
    if (value === undefined || value === '') throw new ConfigError(`${flag} needs a value`);
    apply(value);
  }
  return options;
}

function describeThrottle(rateLimit: RateLimitSetting | undefined): string {
  if (rateLimit === 'off') return 'off';
  const { limit, windowMs } = rateLimit ?? { limit: 100, windowMs: 60_000 };
  return `${limit} requests per ${windowMs / 1000} s per API key`;
}

export async function runSandboxCli(opts: SandboxCliOptions = {}): Promise<void> {
  const sandbox = await startSandbox({ port: opts.port, host: opts.host, conversations: opts.conversations, rateLimit: opts.rateLimit }).catch((error: unknown) => {
    throw explainListenError(error, { port: opts.port ?? 0, host: opts.host ?? '127.0.0.1', portFlag: '--port', hostFlag: '--host' });
  });
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
    `Throttle: ${describeThrottle(opts.rateLimit)}. Generated conversations in workspace A: ${opts.conversations ?? 0}.`,
    'Press Ctrl+C to stop.',
  ];
  // stdout is what scripts read (design §6); a person watching a run whose stdout is captured reads stderr.
  tellPerson(`${lines.join('\n')}\n`, 'stdout');

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
