import os from 'node:os';
import path from 'node:path';

export type ConfirmMode = 'writes' | 'destructive' | 'none';
export type Transport = 'stdio' | 'http';
export type RateScope = 'key' | 'global';

export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface Config {
  apiKey?: string;
  baseUrl?: string;
  toolsets: 'all' | string[];
  readOnly: boolean;
  confirm: ConfirmMode;
  rateLimit: RateLimit;
  rateScope: RateScope;
  redisUrl?: string;
  defaultBotId?: string;
  timeoutMs: number;
  logLevel: string;
  transport: Transport;
  httpHost: string;
  httpPort: number;
  allowedHosts: string[];
  allowedOrigins: string[];
  stateless: boolean;
  exportDir: string;
  maxResultTokens: number;
  sandbox: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface Option {
  env: string;
  flag: string;
  /** Shown in --help as the value placeholder; absent for boolean switches. */
  value?: string;
  help: string;
  defaultText: string;
}

/** One table drives the environment, the flags and `--help`, so they cannot drift apart. */
export const OPTIONS: Option[] = [
  { env: 'SVC_API_KEY', flag: '--api-key', value: 'svc_...', help: 'Workspace API key, sent only as Authorization: Bearer. Prefer the environment: flags show in process lists.', defaultText: 'required unless --sandbox, or HTTP clients bring their own' },
  { env: 'SVC_BASE_URL', flag: '--base-url', value: 'URL', help: 'API base URL; paths begin with /v2.', defaultText: 'required unless --sandbox' },
  { env: 'SVC_TOOLSETS', flag: '--toolsets', value: 'LIST', help: 'Comma list of tool groups to expose, or "all".', defaultText: 'all' },
  { env: 'SVC_READ_ONLY', flag: '--read-only', help: 'Register read tools only; write tools are neither listed nor callable.', defaultText: 'false' },
  { env: 'SVC_CONFIRM', flag: '--confirm', value: 'MODE', help: 'Which tools need the user\'s confirmation: writes | destructive | none.', defaultText: 'writes' },
  { env: 'SVC_RATE_LIMIT', flag: '--rate-limit', value: 'N/Ts', help: 'Upstream request budget per key, e.g. 100/60s (units ms, s, m).', defaultText: '100/60s' },
  { env: 'SVC_RATE_SCOPE', flag: '--rate-scope', value: 'key|global', help: 'key: one rate budget per API key; global: one budget for every key this process serves (shared through Redis too when set).', defaultText: 'key' },
  { env: 'SVC_REDIS_URL', flag: '--redis-url', value: 'URL', help: 'Share the rate budget across processes through Redis.', defaultText: 'unset: in-process limiter' },
  { env: 'SVC_DEFAULT_BOT_ID', flag: '--default-bot-id', value: 'ID', help: 'Agent used when a tool needs a botId and none is given (optional botId filters are not narrowed by it).', defaultText: 'unset' },
  { env: 'SVC_TIMEOUT_MS', flag: '--timeout-ms', value: 'MS', help: 'Per-request timeout in milliseconds.', defaultText: '30000' },
  { env: 'SVC_LOG_LEVEL', flag: '--log-level', value: 'LEVEL', help: 'pino level (fatal, error, warn, info, debug, trace, silent); logs go to stderr.', defaultText: 'info' },
  { env: 'SVC_TRANSPORT', flag: '--transport', value: 'stdio|http', help: 'stdio for local clients, http for Streamable HTTP.', defaultText: 'stdio' },
  { env: 'SVC_HTTP_HOST', flag: '--http-host', value: 'HOST', help: 'Streamable HTTP listen address.', defaultText: '127.0.0.1' },
  { env: 'SVC_HTTP_PORT', flag: '--http-port', value: 'PORT', help: 'Streamable HTTP listen port.', defaultText: '3000' },
  { env: 'SVC_ALLOWED_HOSTS', flag: '--allowed-hosts', value: 'LIST', help: 'Extra Host header values accepted over HTTP (needed when bound to a non-loopback address).', defaultText: 'loopback names only' },
  { env: 'SVC_ALLOWED_ORIGINS', flag: '--allowed-origins', value: 'LIST', help: 'Origin header values accepted over HTTP.', defaultText: 'none besides loopback' },
  { env: 'SVC_STATELESS', flag: '--stateless', help: 'HTTP without sessions, for a fleet behind a load balancer (confirmation falls back to confirm: true).', defaultText: 'false' },
  { env: 'SVC_EXPORT_DIR', flag: '--export-dir', value: 'DIR', help: 'Folder where export_conversations may write NDJSON files (stdio only).', defaultText: '<tmp>/svc-mcp-exports' },
  { env: 'SVC_MAX_RESULT_TOKENS', flag: '--max-result-tokens', value: 'N', help: 'Cap on one tool result, in tokens (about 4 characters each); longer results are cut with a note on how to get the rest.', defaultText: '20000' },
  { env: 'SVC_SANDBOX', flag: '--sandbox', help: 'Serve the tools against the embedded simulated workspace.', defaultText: 'false' },
];

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

function parseBoolean(name: string, text: string): boolean {
  const value = BOOLEAN_TEXT[text.trim().toLowerCase()];
  if (value === undefined) throw new ConfigError(`${name} must be true or false (got "${text}")`);
  return value;
}

function parseInteger(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

export function parseRateLimit(text: string): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/.exec(text);
  if (!match) throw new ConfigError(`SVC_RATE_LIMIT must look like N/Ts, for example 100/60s (got "${text}")`);
  const limit = Number(match[1]);
  const windowMs = Number(match[2]) * UNIT_MS[match[3]];
  if (limit < 1 || windowMs < 1) throw new ConfigError(`SVC_RATE_LIMIT needs N >= 1 and a window above zero (got "${text}")`);
  return { limit, windowMs };
}

function parseList(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter(Boolean);
}

/**
 * Reads flags over environment variables (a flag wins). Returns the raw text per env name so
 * that one parser handles both sources.
 */
function collectRaw(argv: string[], env: NodeJS.ProcessEnv): Map<string, string> {
  const raw = new Map<string, string>();
  for (const option of OPTIONS) {
    const value = env[option.env];
    if (value !== undefined && value !== '') raw.set(option.env, value);
  }
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    const [flag, inline] = argument.split(/=(.*)/s, 2);
    const option = OPTIONS.find((candidate) => candidate.flag === flag);
    if (!option) throw new ConfigError(`Unknown option ${flag}. Run svc-mcp --help for the list.`);
    if (!option.value) {
      raw.set(option.env, inline ?? 'true');
      continue;
    }
    const value = inline ?? argv[++index];
    if (value === undefined) throw new ConfigError(`${flag} needs a value (${option.value})`);
    raw.set(option.env, value);
  }
  return raw;
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const raw = collectRaw(argv, env);
  const text = (name: string) => raw.get(name);

  const confirm = text('SVC_CONFIRM') ?? 'writes';
  if (!['writes', 'destructive', 'none'].includes(confirm)) {
    throw new ConfigError(`SVC_CONFIRM must be writes, destructive or none (got "${confirm}")`);
  }
  const transport = text('SVC_TRANSPORT') ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http') {
    throw new ConfigError(`SVC_TRANSPORT must be stdio or http (got "${transport}")`);
  }
  const rateScope = text('SVC_RATE_SCOPE') ?? 'key';
  if (rateScope !== 'key' && rateScope !== 'global') {
    throw new ConfigError(`SVC_RATE_SCOPE must be key or global (got "${rateScope}")`);
  }
  const toolsetsText = text('SVC_TOOLSETS') ?? 'all';
  const toolsets = toolsetsText.trim() === 'all' ? 'all' : parseList(toolsetsText);
  if (toolsets !== 'all' && toolsets.length === 0) throw new ConfigError('SVC_TOOLSETS must name at least one group, or be "all"');

  const baseUrl = text('SVC_BASE_URL')?.replace(/\/+$/, '');
  if (baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(baseUrl)) {
    throw new ConfigError(`SVC_BASE_URL must be an http(s) URL (got "${baseUrl}")`);
  }
  const apiKey = text('SVC_API_KEY');
  if (apiKey !== undefined && !apiKey.startsWith('svc_')) {
    throw new ConfigError('SVC_API_KEY must start with svc_ (the value was not printed)');
  }

  const config: Config = {
    apiKey,
    baseUrl,
    toolsets,
    readOnly: parseBoolean('SVC_READ_ONLY', text('SVC_READ_ONLY') ?? 'false'),
    confirm: confirm as ConfirmMode,
    rateLimit: parseRateLimit(text('SVC_RATE_LIMIT') ?? '100/60s'),
    rateScope,
    redisUrl: text('SVC_REDIS_URL'),
    defaultBotId: text('SVC_DEFAULT_BOT_ID'),
    timeoutMs: parseInteger('SVC_TIMEOUT_MS', text('SVC_TIMEOUT_MS') ?? '30000', 100, 600_000),
    logLevel: text('SVC_LOG_LEVEL') ?? 'info',
    transport,
    httpHost: text('SVC_HTTP_HOST') ?? '127.0.0.1',
    httpPort: parseInteger('SVC_HTTP_PORT', text('SVC_HTTP_PORT') ?? '3000', 0, 65_535),
    allowedHosts: parseList(text('SVC_ALLOWED_HOSTS') ?? ''),
    allowedOrigins: parseList(text('SVC_ALLOWED_ORIGINS') ?? ''),
    stateless: parseBoolean('SVC_STATELESS', text('SVC_STATELESS') ?? 'false'),
    exportDir: path.resolve(text('SVC_EXPORT_DIR') ?? path.join(os.tmpdir(), 'svc-mcp-exports')),
    maxResultTokens: parseInteger('SVC_MAX_RESULT_TOKENS', text('SVC_MAX_RESULT_TOKENS') ?? '20000', 500, 1_000_000),
    sandbox: parseBoolean('SVC_SANDBOX', text('SVC_SANDBOX') ?? 'false'),
  };
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    throw new ConfigError(`SVC_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${config.logLevel}")`);
  }
  if (!config.sandbox) {
    if (!config.baseUrl) throw new ConfigError('SVC_BASE_URL is required (or run with --sandbox to use the embedded workspace)');
    if (!config.apiKey && config.transport === 'stdio') {
      throw new ConfigError('SVC_API_KEY is required (or run with --sandbox to use the embedded workspace)');
    }
  }
  return config;
}

export function helpText(): string {
  const lines = [
    'svc-mcp: MCP server for the Support-Agent Workspace API',
    '',
    'Usage:',
    '  svc-mcp [options]          serve the tools (stdio by default)',
    '  svc-mcp --sandbox          serve the tools against the embedded simulated workspace',
    '  svc-mcp sandbox [--port N] run the simulated workspace API alone and print its URL and keys',
    '  svc-mcp --help | --version',
    '',
    'Options (each also read from the environment variable shown; a flag wins):',
  ];
  for (const option of OPTIONS) {
    const left = `  ${option.flag}${option.value ? ` ${option.value}` : ''}`;
    lines.push(`${left.padEnd(30)} ${option.env}`);
    lines.push(`${''.padEnd(32)}${option.help} Default: ${option.defaultText}.`);
  }
  return lines.join('\n');
}
