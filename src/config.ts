import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KEY_SHAPE } from './access.js';

export type ConfirmMode = 'writes' | 'destructive' | 'none';
export type Transport = 'stdio' | 'http';
export type LogFormat = 'json' | 'pretty';
export type AuthMode = 'key' | 'oauth';
export type MirrorMode = 'memory' | 'disk' | 'off';

/** Provider kinds as the spec writes them (`<notes>`, ...); their real wire names are hidden. */
export const PROVIDER_KINDS = ['notes', 'helpcenter', 'wiki', 'drive'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
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
  /** Set per HTTP session, never from the environment: read-only because the person's OAuth grant is, not SVC_READ_ONLY. */
  readOnlyGrant?: boolean;
  confirm: ConfirmMode;
  /** Binds confirmation tokens; shared by every node of a fleet so a token from one node sends on another. */
  confirmSecret: string;
  rateLimit: RateLimit;
  rateScope: RateScope;
  redisUrl?: string;
  defaultBotId?: string;
  timeoutMs: number;
  logLevel: string;
  logFormat: LogFormat;
  transport: Transport;
  httpHost: string;
  httpPort: number;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; without any, the socket's address is the client's. */
  trustProxy: string[];
  stateless: boolean;
  exportDir: string;
  maxResultTokens: number;
  /** Largest JSON-RPC message read from a client, on every transport. */
  maxMessageBytes: number;
  /** HTTP sessions open at once, over all keys and per key. */
  maxSessions: number;
  maxSessionsPerKey: number;
  /** An HTTP session without any request for this long is closed. */
  sessionIdleMs: number;
  sandbox: boolean;
  /** Wire name of each provider kind (SVC_PROVIDER_NAMES). */
  providerNames: Record<ProviderKind, string>;
  /** Whether SVC_RATE_LIMIT was given: without it, svc-mcp's budget follows the embedded sandbox's throttle. */
  rateLimitGiven: boolean;
  /** Whether SVC_CONFIRM_SECRET was given: without it each process signs with a random secret of its own, which a fleet cannot share. */
  confirmSecretGiven: boolean;
  /** Whether SVC_AUTH_SECRET was given: without it (--sandbox only) grants are sealed under a secret that ends with the process. */
  authSecretGiven: boolean;
  /** Bound for finishing calls (and, over HTTP, tasks) in flight on SIGTERM. */
  drainMs: number;
  /** How long a task lives without a heartbeat from the node running it (Redis task store). */
  taskTtlMs: number;
  /** Where one node keeps what must survive a restart (spent tokens, OAuth state); Redis holds it instead when set. */
  stateDir: string;
  /** Whether SVC_STATE_DIR was given: a throwaway --sandbox run uses it only then, never the user's default folder. */
  stateDirGiven: boolean;
  /** `key`: clients bring a workspace key in the Authorization header; `oauth`: this server is also an OAuth 2.1 authorization server for its /mcp. */
  auth: AuthMode;
  /** The origin clients reach this server at (OAuth issuer and resource); with --sandbox, defaults to the loopback address it listens on. */
  publicUrl?: string;
  /** Key material of OAuth grants (encrypted API keys, signed state); at least 32 characters. */
  authSecret?: string;
  /** Generated conversations the sandbox adds to its seed (0: the seed alone). */
  sandboxConversations: number;
  /** The sandbox's throttle: a budget, `off`, or undefined for the spec's 100 per 60 s. */
  sandboxRateLimit?: RateLimit | 'off';
  /** The workspace mirror: a local analytical copy of what the API lists, in memory, on disk (encrypted) or none. */
  mirror: MirrorMode;
  /** Key material of the mirror's files on disk (at least 32 characters; required with `disk`). */
  mirrorSecret?: string;
  /** Memory the mirrors of all workspaces may hold together, in MB. */
  mirrorMaxMb: number;
  /** Trailing days re-read at each sync: feedback and CSAT arrive after a conversation was created. */
  mirrorRefreshDays: number;
  /** A mirror-backed answer first brings the mirror up to date when its last sync is older than this. */
  mirrorMaxAgeMs: number;
  /** The longest one query_workspace statement may run (at most 30 s). */
  mirrorQueryTimeoutMs: number;
  /** Whether the shortcuts around the MCP SDK's internals (src/sdk/) are taken; off, the SDK does all its own work. */
  sdkShortcuts: boolean;
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
  /** The value read when neither the flag nor the variable is given, parsed like a given one. */
  default?: string;
  /** What --help says when there is no plain default value. */
  defaultText?: string;
}

/** One table drives the environment, the flags and `--help`, so they cannot drift apart. */
export const OPTIONS: Option[] = [
  {
    env: 'SVC_API_KEY',
    flag: '--api-key',
    value: 'svc_...',
    help: 'Workspace API key, sent only as Authorization: Bearer. Prefer the environment: flags show in process lists.',
    defaultText: 'required unless --sandbox, or HTTP clients bring their own',
  },
  {
    env: 'SVC_BASE_URL',
    flag: '--base-url',
    value: 'URL',
    help: 'API base URL, such as https://api.example.com; a trailing / or /v2 is dropped, since every route already begins with /v2.',
    defaultText: 'required unless --sandbox',
  },
  {
    env: 'SVC_TOOLSETS',
    flag: '--toolsets',
    value: 'LIST',
    help: 'Comma list of tool groups to expose, "core" (the most used tools, plus find_tools, call_read_tool and call_write_tool to reach every other), or "all"; group names add to core. server_info is listed in every toolset.',
    default: 'all',
  },
  { env: 'SVC_READ_ONLY', flag: '--read-only', help: 'Register read tools only; write tools are neither listed nor callable.', default: 'false' },
  { env: 'SVC_CONFIRM', flag: '--confirm', value: 'MODE', help: "Which tools need the user's confirmation: writes | destructive | none.", default: 'writes' },
  {
    env: 'SVC_CONFIRM_SECRET',
    flag: '--confirm-secret',
    value: 'SECRET',
    help: 'Secret that binds confirmation tokens to their request, key and expiry; shared by every node of a fleet. Prefer the environment: flags show in process lists.',
    defaultText: 'random per process',
  },
  { env: 'SVC_RATE_LIMIT', flag: '--rate-limit', value: 'N/Ts', help: 'Upstream request budget per key, e.g. 100/60s (units ms, s, m).', default: '100/60s' },
  {
    env: 'SVC_RATE_SCOPE',
    flag: '--rate-scope',
    value: 'key|global',
    help: 'key: one rate budget per API key; global: one budget for every key this process serves (shared through Redis too when set).',
    default: 'key',
  },
  {
    env: 'SVC_REDIS_URL',
    flag: '--redis-url',
    value: 'URL',
    help: 'Share the rate budget, MCP tasks, spent confirmation tokens and OAuth state across a fleet through Redis.',
    defaultText: 'unset: in-process limiter and tasks; state as SVC_STATE_DIR says',
  },
  {
    env: 'SVC_DEFAULT_BOT_ID',
    flag: '--default-bot-id',
    value: 'ID',
    help: 'Agent used when a tool needs a botId and none is given (optional botId filters are not narrowed by it).',
    defaultText: 'unset',
  },
  { env: 'SVC_TIMEOUT_MS', flag: '--timeout-ms', value: 'MS', help: 'Per-request timeout in milliseconds.', default: '30000' },
  {
    env: 'SVC_LOG_LEVEL',
    flag: '--log-level',
    value: 'LEVEL',
    help: 'pino level (fatal, error, warn, info, debug, trace, silent); logs go to stderr. debug adds a line per tool call, per HTTP request and per upstream request (info logs the failed calls and requests).',
    default: 'info',
  },
  {
    env: 'SVC_LOG_FORMAT',
    flag: '--log-format',
    value: 'pretty|json',
    help: 'pretty: one readable line per record, for people; json: one pino JSON object per line, for log collectors.',
    defaultText: 'pretty when stderr is a terminal, else json',
  },
  { env: 'SVC_TRANSPORT', flag: '--transport', value: 'stdio|http', help: 'stdio for local clients, http for Streamable HTTP.', default: 'stdio' },
  { env: 'SVC_HTTP_HOST', flag: '--http-host', value: 'HOST', help: 'Streamable HTTP listen address.', default: '127.0.0.1' },
  { env: 'SVC_HTTP_PORT', flag: '--http-port', value: 'PORT', help: 'Streamable HTTP listen port.', default: '3000' },
  {
    env: 'SVC_ALLOWED_HOSTS',
    flag: '--allowed-hosts',
    value: 'LIST',
    help: 'Extra Host header values accepted over HTTP (needed when bound to a non-loopback address).',
    defaultText: 'loopback names only',
  },
  {
    env: 'SVC_ALLOWED_ORIGINS',
    flag: '--allowed-origins',
    value: 'LIST',
    help: "Origin header values accepted over HTTP, exactly (scheme, host and port), such as http://localhost:6274 for the MCP Inspector's UI; these origins also get CORS headers.",
    defaultText: "loopback origins of this server's own port only",
  },
  {
    env: 'SVC_TRUST_PROXY',
    flag: '--trust-proxy',
    value: 'LIST',
    help: 'Reverse proxies, as addresses or CIDR ranges (10.0.0.0/8, ::1), whose X-Forwarded-For header names the client: for the per-address limits (key checks, request bodies, OAuth registration and sign-in). Any other sender of that header is not believed.',
    defaultText: "none: the socket's address is the client's",
  },
  { env: 'SVC_STATELESS', flag: '--stateless', help: 'HTTP without sessions, for a fleet behind a load balancer (confirmation by preview and confirmToken).', default: 'false' },
  { env: 'SVC_EXPORT_DIR', flag: '--export-dir', value: 'DIR', help: 'Folder where export_conversations may write NDJSON files (stdio only).', defaultText: '<tmp>/svc-mcp-exports' },
  {
    env: 'SVC_MAX_RESULT_TOKENS',
    flag: '--max-result-tokens',
    value: 'N',
    help: 'Cap on one tool result, in tokens (about 4 characters each); longer results are cut with a note on how to get the rest.',
    default: '20000',
  },
  {
    env: 'SVC_MAX_MESSAGE_BYTES',
    flag: '--max-message-bytes',
    value: 'N',
    help: 'Largest JSON-RPC message accepted from a client (stdio line or HTTP body); a longer one is answered with a JSON-RPC error and the server stays up.',
    default: '4194304',
  },
  { env: 'SVC_MAX_SESSIONS', flag: '--max-sessions', value: 'N', help: 'HTTP sessions open at once over all keys; a new one beyond it gets 503.', default: '500' },
  {
    env: 'SVC_MAX_SESSIONS_PER_KEY',
    flag: '--max-sessions-per-key',
    value: 'N',
    help: "HTTP sessions open at once per API key; a new one beyond it closes that key's least recently used session without a call in flight, or gets 429 when every one has a call in flight.",
    default: '20',
  },
  {
    env: 'SVC_SESSION_IDLE_MS',
    flag: '--session-idle-ms',
    value: 'MS',
    help: 'An HTTP session without a request for this long is closed, even with its GET stream open (its long jobs stop unless they run as tasks).',
    default: '300000',
  },
  {
    env: 'SVC_PROVIDER_NAMES',
    flag: '--provider-names',
    value: 'LIST',
    help: 'Wire names of the provider kinds the spec hides, as notes=NAME,helpcenter=NAME,wiki=NAME,drive=NAME (kinds left out keep their default).',
    defaultText: "the sandbox's names: notes, helpcenter, wiki, drive",
  },
  {
    env: 'SVC_DRAIN_MS',
    flag: '--drain-ms',
    value: 'MS',
    help: 'On SIGTERM, how long calls in flight (and, over HTTP, tasks) may take to finish before the process exits; HTTP tasks still running then end as failed.',
    default: '10000',
  },
  {
    env: 'SVC_TASK_TTL_MS',
    flag: '--task-ttl-ms',
    value: 'MS',
    help: 'With SVC_REDIS_URL, how long a task lives without a heartbeat from its node before it ends as failed (a node that died).',
    default: '30000',
  },
  {
    env: 'SVC_STATE_DIR',
    flag: '--state-dir',
    value: 'DIR',
    help: 'Where this node keeps what must survive a restart: spent confirmation tokens (with SVC_CONFIRM_SECRET), OAuth registrations, grants and encrypted keys. With SVC_REDIS_URL that state lives in Redis instead.',
    defaultText: '$XDG_STATE_HOME/svc-mcp, else ~/.local/state/svc-mcp',
  },
  {
    env: 'SVC_AUTH',
    flag: '--auth',
    value: 'key|oauth',
    help: 'key: HTTP clients send a workspace key as Authorization: Bearer svc_...; oauth: this server is also the OAuth 2.1 authorization server for its /mcp, so hosted connectors (Claude, ChatGPT) sign in by typing the workspace key on its page (needs --transport http, SVC_PUBLIC_URL and SVC_AUTH_SECRET; bearer keys still work, and SVC_API_KEY no longer serves clients that bring nothing). Hosting guide: src/oauth/HOSTING.md, shipped with the package (the end of --help says where).',
    default: 'key',
  },
  {
    env: 'SVC_PUBLIC_URL',
    flag: '--public-url',
    value: 'URL',
    help: 'The origin clients reach this server at (https in production; loopback http allowed): the OAuth issuer, and /mcp under it the protected resource.',
    defaultText: 'with --sandbox, http://127.0.0.1:<port>; else required by --auth oauth',
  },
  {
    env: 'SVC_AUTH_SECRET',
    flag: '--auth-secret',
    value: 'SECRET',
    help: 'At least 32 characters; the keys that encrypt stored API keys and client secrets are derived from it. Every node of a fleet needs the same one. Prefer the environment: flags show in process lists.',
    defaultText: 'with --sandbox, random per process; else required by --auth oauth',
  },
  { env: 'SVC_SANDBOX', flag: '--sandbox', help: 'Serve the tools against the embedded simulated workspace.', default: 'false' },
  {
    env: 'SVC_SANDBOX_CONVERSATIONS',
    flag: '--sandbox-conversations',
    value: 'N',
    help: 'Add N generated conversations to the sandbox, spread over the last 365 days across its agents, sources and channels (the same N gives the same data).',
    default: '0',
  },
  {
    env: 'SVC_SANDBOX_RATE_LIMIT',
    flag: '--sandbox-rate-limit',
    value: 'N/Ts|off',
    help: "The sandbox's throttle, such as 100/60s, or off. With --sandbox, svc-mcp's own budget follows it unless SVC_RATE_LIMIT is given.",
    defaultText: "the spec's 100/60s",
  },
  {
    env: 'SVC_MIRROR',
    flag: '--mirror',
    value: 'memory|disk|off',
    help: 'The workspace mirror: conversations, events, articles, folders and actions read once into a local analytical copy (DuckDB) that conversation_stats, query_workspace and explain_change answer from. memory: kept while the process lives; disk: also kept encrypted under SVC_STATE_DIR, so a restart resumes where the last sync stopped; off: every question reads the API, as before the mirror.',
    default: 'memory',
  },
  {
    env: 'SVC_MIRROR_SECRET',
    flag: '--mirror-secret',
    value: 'SECRET',
    help: "At least 32 characters; the mirror's files on disk are encrypted (AES-256-GCM) under keys derived from it and from each API key. Required with --mirror disk. Prefer the environment: flags show in process lists.",
    defaultText: 'unset',
  },
  {
    env: 'SVC_MIRROR_MAX_MB',
    flag: '--mirror-max-mb',
    value: 'MB',
    help: "Memory the mirrors of all workspaces may hold together, each counted as its own engine process's resident memory (about 90 MB at rest); beyond it the least recently used workspace is dropped (a later question about it syncs again, and says so).",
    default: '1024',
  },
  {
    env: 'SVC_MIRROR_REFRESH_DAYS',
    flag: '--mirror-refresh-days',
    value: 'DAYS',
    help: 'Trailing days of conversations re-read at every sync, because feedback, CSAT and events arrive after a conversation was created.',
    default: '14',
  },
  {
    env: 'SVC_MIRROR_MAX_AGE_MS',
    flag: '--mirror-max-age-ms',
    value: 'MS',
    help: "How old the mirror's last sync may be for a question to be answered from it as it is; an older one first reads what was created since (and the trailing SVC_MIRROR_REFRESH_DAYS).",
    default: '300000',
  },
  {
    env: 'SVC_MIRROR_QUERY_TIMEOUT_MS',
    flag: '--mirror-query-timeout-ms',
    value: 'MS',
    help: 'The longest one query_workspace statement may run before it is interrupted (100 to 30000).',
    default: '30000',
  },
  {
    env: 'SVC_SDK_SHORTCUTS',
    flag: '--sdk-shortcuts',
    value: 'on|off',
    help: "on: skip work the MCP SDK repeats on every message (schema parses, a result check) where this server's own checks make it redundant, each shortcut tested against the SDK's behaviour (src/sdk/); off: the SDK's own way throughout, for a diagnosis or an SDK version the tests have not met.",
    default: 'on',
  },
];

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

function parseBoolean(name: string, text: string): boolean {
  const value = BOOLEAN_TEXT[text.trim().toLowerCase()];
  if (value === undefined) throw new ConfigError(`${name} must be true or false (got "${text}")`);
  return value;
}

/** `name` is what the user typed: the flag when the value came from one, else the variable. */
export function parseInteger(name: string, text: string, min: number, max: number): number {
  const value = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

/**
 * Every route of the spec begins with /v2, so a base URL copied with it (`https://api.example.com/v2`)
 * would send `/v2/v2/...`; it is dropped, as is a trailing slash. Any other path prefix (a proxy's) stays.
 */
export function normalizeBaseUrl(name: string, text: string): string {
  const notHttp = () => new ConfigError(`${name} must be an http(s) URL such as https://api.example.com (got "${text}")`);
  const url = parseUrl(text, notHttp);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw notHttp();
  if (hasQueryOrCredentials(url)) {
    throw new ConfigError(`${name} must hold no query, fragment or credentials: the key goes in SVC_API_KEY (the value was not printed)`);
  }
  const pathPrefix = url.pathname.replace(/\/+$/, '').replace(/\/v2$/i, '').replace(/\/+$/, '');
  return `${url.origin}${pathPrefix}`;
}

function parseUrl(text: string, invalid: () => ConfigError): URL {
  try {
    return new URL(text.trim());
  } catch {
    throw invalid();
  }
}

function hasQueryOrCredentials(url: URL): boolean {
  return Boolean(url.search || url.hash || url.username || url.password);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

export function parseRateLimit(text: string, name = 'SVC_RATE_LIMIT'): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/.exec(text);
  if (!match) throw new ConfigError(`${name} must look like N/Ts, for example 100/60s (got "${text}")`);
  const limit = Number(match[1]);
  const windowMs = Number(match[2]) * UNIT_MS[match[3]];
  if (limit < 1 || windowMs < 1) throw new ConfigError(`${name} needs N >= 1 and a window above zero (got "${text}")`);
  return { limit, windowMs };
}

/** People reading a terminal get readable lines; anything else (a file, a pipe, a host's log) gets JSON. */
function parseLogFormat(name: string, text: string | undefined): LogFormat {
  if (text === undefined) return process.stderr.isTTY ? 'pretty' : 'json';
  return parseChoice(name, text, ['pretty', 'json']);
}

function parseList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`), each checked, so a typo stops the start rather than trusting nothing or everything. */
function parseProxies(name: string, text: string): string[] {
  const entries = parseList(text);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits))) {
      throw new ConfigError(`${name} must be a comma list of IP addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8 (got "${entry}")`);
    }
  }
  return entries;
}

/** `notes=a,wiki=b`: each kind's wire name; kinds not listed keep their own name, as the sandbox uses them. */
export function parseProviderNames(text: string): Record<ProviderKind, string> {
  const names = Object.fromEntries(PROVIDER_KINDS.map((kind) => [kind, kind])) as Record<ProviderKind, string>;
  for (const entry of parseList(text)) {
    const [kind, name] = entry.split('=').map((part) => part.trim());
    if (!(PROVIDER_KINDS as readonly string[]).includes(kind)) {
      throw new ConfigError(`SVC_PROVIDER_NAMES: unknown provider kind "${kind}" (kinds: ${PROVIDER_KINDS.join(', ')})`);
    }
    if (!name || !/^[a-z][a-z0-9_-]*$/.test(name)) {
      throw new ConfigError(`SVC_PROVIDER_NAMES: the wire name of ${kind} must be a lowercase name (got "${name ?? ''}")`);
    }
    names[kind as ProviderKind] = name;
  }
  return names;
}

/**
 * Reads flags over environment variables (a flag wins). Returns the raw text per env name so
 * that one parser handles both sources.
 */
interface RawValue {
  text: string;
  /** The flag or the variable the value came from, for error messages. */
  from: string;
}

function collectRaw(argv: string[], env: NodeJS.ProcessEnv): Map<string, RawValue> {
  const raw = new Map<string, RawValue>();
  for (const option of OPTIONS) {
    const value = env[option.env];
    if (value !== undefined && value !== '') raw.set(option.env, { text: value, from: option.env });
  }
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    const [flag, inline] = argument.split(/=(.*)/s, 2);
    const option = OPTIONS.find((candidate) => candidate.flag === flag);
    if (!option) throw new ConfigError(`Unknown option ${flag}. Run svc-mcp --help for the list.`);
    if (!option.value) {
      raw.set(option.env, { text: inline ?? 'true', from: flag });
      continue;
    }
    const value = inline ?? argv[++index];
    if (value === undefined) throw new ConfigError(`${flag} needs a value (${option.value})`);
    raw.set(option.env, { text: value, from: flag });
  }
  return raw;
}

/** The transport asked for, read with loadConfig's rule (a flag wins over the environment), even when the rest of the configuration is invalid. */
export function requestedTransport(argv: string[], env: NodeJS.ProcessEnv = process.env): string {
  try {
    return collectRaw(argv, env).get('SVC_TRANSPORT')?.text ?? 'stdio';
  } catch {
    return env.SVC_TRANSPORT || 'stdio';
  }
}

const OR_SANDBOX = '(or turn on the sandbox to try the tools against a simulated workspace: --sandbox, SVC_SANDBOX=true, or the Sandbox setting of the Claude Desktop extension)';
const CONFIRM_MODES: ConfirmMode[] = ['writes', 'destructive', 'none'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Options as given, looked up by their variable's name. */
interface GivenOptions {
  /** The given text, if any. */
  text(name: string): string | undefined;
  /** What the user typed for it: the flag when the value came from one, else the variable. */
  from(name: string): string;
  /** An option that has a default: the given text, or its default. */
  setting(name: string): string;
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const given = givenOptions(collectRaw(argv, env));
  const config = parseOptions(given, env);
  checkAuth(config, given.from);
  checkMirror(config, given.from);
  checkSandboxOptions(config, given);
  checkUpstream(config);
  return config;
}

/** On disk the mirror holds customers' conversations: never without a secret to encrypt them under. */
function checkMirror(config: Config, from: (name: string) => string): void {
  if (config.mirrorSecret !== undefined && config.mirrorSecret.length < 32) {
    throw new ConfigError(`${from('SVC_MIRROR_SECRET')} must be at least 32 characters (the value was not printed)`);
  }
  if (config.mirror === 'disk' && config.mirrorSecret === undefined) {
    throw new ConfigError(
      `${from('SVC_MIRROR')}=disk needs SVC_MIRROR_SECRET (at least 32 characters): the mirror's files hold conversations and are encrypted under it. Use --mirror memory to keep the mirror in memory only.`,
    );
  }
}

/** The sandbox's own settings do nothing without it: naming what to add beats "SVC_BASE_URL is required". */
function checkSandboxOptions(config: Config, { text, from }: GivenOptions): void {
  if (config.sandbox) return;
  const given = ['SVC_SANDBOX_CONVERSATIONS', 'SVC_SANDBOX_RATE_LIMIT'].find((name) => text(name) !== undefined);
  if (given) {
    throw new ConfigError(
      `${from(given)} shapes the embedded sandbox, which is off: add --sandbox (SVC_SANDBOX=true) to serve the tools against it, or run "svc-mcp sandbox ${OPTIONS.find((option) => option.env === given)!.flag} ..." for the sandbox API alone`,
    );
  }
}

function givenOptions(raw: Map<string, RawValue>): GivenOptions {
  const text = (name: string) => raw.get(name)?.text;
  return {
    text,
    from: (name) => raw.get(name)?.from ?? name,
    setting: (name) => {
      const value = text(name) ?? OPTIONS.find((option) => option.env === name)?.default;
      if (value === undefined) throw new Error(`internal: ${name} has no default`);
      return value;
    },
  };
}

/** Each option through its parser, in the order they are checked: the first bad one is the one reported. */
function parseOptions({ text, from, setting }: GivenOptions, env: NodeJS.ProcessEnv): Config {
  const integer = (name: string, min: number, max: number) => parseInteger(from(name), setting(name), min, max);
  const boolean = (name: string) => parseBoolean(from(name), setting(name));
  const confirmSecret = text('SVC_CONFIRM_SECRET');
  const publicUrl = text('SVC_PUBLIC_URL');
  const baseUrl = text('SVC_BASE_URL');
  return {
    confirm: parseChoice(from('SVC_CONFIRM'), setting('SVC_CONFIRM'), CONFIRM_MODES),
    transport: parseChoice(from('SVC_TRANSPORT'), setting('SVC_TRANSPORT'), ['stdio', 'http']),
    rateScope: parseChoice(from('SVC_RATE_SCOPE'), setting('SVC_RATE_SCOPE'), ['key', 'global']),
    toolsets: parseToolsets(from('SVC_TOOLSETS'), setting('SVC_TOOLSETS')),
    baseUrl: baseUrl === undefined ? undefined : normalizeBaseUrl(from('SVC_BASE_URL'), baseUrl),
    apiKey: parseApiKey(from('SVC_API_KEY'), text('SVC_API_KEY')),
    readOnly: boolean('SVC_READ_ONLY'),
    confirmSecret: confirmSecret ?? randomBytes(32).toString('base64url'),
    confirmSecretGiven: confirmSecret !== undefined,
    rateLimit: parseRateLimit(setting('SVC_RATE_LIMIT'), from('SVC_RATE_LIMIT')),
    redisUrl: text('SVC_REDIS_URL'),
    defaultBotId: text('SVC_DEFAULT_BOT_ID'),
    timeoutMs: integer('SVC_TIMEOUT_MS', 100, 600_000),
    logFormat: parseLogFormat(from('SVC_LOG_FORMAT'), text('SVC_LOG_FORMAT')),
    httpHost: setting('SVC_HTTP_HOST'),
    httpPort: integer('SVC_HTTP_PORT', 0, 65_535),
    allowedHosts: parseList(text('SVC_ALLOWED_HOSTS') ?? ''),
    allowedOrigins: parseList(text('SVC_ALLOWED_ORIGINS') ?? ''),
    trustProxy: parseProxies(from('SVC_TRUST_PROXY'), text('SVC_TRUST_PROXY') ?? ''),
    stateless: boolean('SVC_STATELESS'),
    exportDir: path.resolve(text('SVC_EXPORT_DIR') ?? path.join(os.tmpdir(), 'svc-mcp-exports')),
    maxResultTokens: integer('SVC_MAX_RESULT_TOKENS', 500, 1_000_000),
    maxMessageBytes: integer('SVC_MAX_MESSAGE_BYTES', 1024, 100 * 1024 * 1024),
    maxSessions: integer('SVC_MAX_SESSIONS', 1, 100_000),
    maxSessionsPerKey: integer('SVC_MAX_SESSIONS_PER_KEY', 1, 100_000),
    sessionIdleMs: integer('SVC_SESSION_IDLE_MS', 1000, 86_400_000),
    sandbox: boolean('SVC_SANDBOX'),
    drainMs: integer('SVC_DRAIN_MS', 0, 600_000),
    taskTtlMs: integer('SVC_TASK_TTL_MS', 1000, 3_600_000),
    providerNames: parseProviderNames(text('SVC_PROVIDER_NAMES') ?? ''),
    stateDir: path.resolve(text('SVC_STATE_DIR') ?? defaultStateDir(env)),
    stateDirGiven: text('SVC_STATE_DIR') !== undefined,
    auth: parseChoice(from('SVC_AUTH'), setting('SVC_AUTH'), ['key', 'oauth']),
    publicUrl: publicUrl === undefined ? undefined : parsePublicUrl(from('SVC_PUBLIC_URL'), publicUrl),
    authSecret: text('SVC_AUTH_SECRET'),
    authSecretGiven: text('SVC_AUTH_SECRET') !== undefined,
    sandboxConversations: parseSandboxConversations(from('SVC_SANDBOX_CONVERSATIONS'), setting('SVC_SANDBOX_CONVERSATIONS')),
    sandboxRateLimit: parseSandboxRateLimit(from('SVC_SANDBOX_RATE_LIMIT'), text('SVC_SANDBOX_RATE_LIMIT')),
    rateLimitGiven: text('SVC_RATE_LIMIT') !== undefined,
    mirror: parseChoice(from('SVC_MIRROR'), setting('SVC_MIRROR'), ['memory', 'disk', 'off']),
    mirrorSecret: text('SVC_MIRROR_SECRET'),
    mirrorMaxMb: integer('SVC_MIRROR_MAX_MB', 16, 1_048_576),
    mirrorRefreshDays: integer('SVC_MIRROR_REFRESH_DAYS', 0, 90),
    mirrorMaxAgeMs: integer('SVC_MIRROR_MAX_AGE_MS', 0, 86_400_000),
    mirrorQueryTimeoutMs: integer('SVC_MIRROR_QUERY_TIMEOUT_MS', 100, 30_000),
    logLevel: parseChoice(from('SVC_LOG_LEVEL'), setting('SVC_LOG_LEVEL'), LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`),
    sdkShortcuts: parseChoice(from('SVC_SDK_SHORTCUTS'), setting('SVC_SDK_SHORTCUTS'), ['on', 'off']) === 'on',
  };
}

/** `text` if it is one of `choices`; the error lists them as `a, b or c` unless told another way. */
function parseChoice<T extends string>(name: string, text: string, choices: readonly T[], listed = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`): T {
  if (!(choices as readonly string[]).includes(text)) throw new ConfigError(`${name} must be ${listed} (got "${text}")`);
  return text as T;
}

function parseToolsets(name: string, text: string): Config['toolsets'] {
  if (text.trim() === 'all') return 'all';
  const groups = parseList(text);
  if (groups.length === 0) throw new ConfigError(`${name} must name at least one group, or be "all"`);
  return groups;
}

/**
 * The key's shape, checked alike on every transport (HTTP checks a client's bearer key the same
 * way): a placeholder such as the README's `svc_...` stops the start here, rather than reaching
 * the API or the log censor, whose patterns are built from the key.
 */
function parseApiKey(name: string, text: string | undefined): string | undefined {
  if (text === undefined || KEY_SHAPE.test(text)) return text;
  if (/^svc_\.+$/.test(text.trim()))
    throw new ConfigError(`${name} is still the placeholder ${text.trim()}: put your workspace API key there (svc_ followed by 8-200 letters, digits, _ or -), or try the sandbox with --sandbox`);
  throw new ConfigError(`${name} must be a workspace API key: svc_ followed by 8-200 letters, digits, _ or - (the value was not printed)`);
}

/** Without the sandbox, the tools need an API to call, and over stdio a key of the server's own (HTTP clients may bring theirs). */
function checkUpstream(config: Config): void {
  if (config.sandbox) return;
  if (!config.baseUrl) throw new ConfigError(`SVC_BASE_URL is required ${OR_SANDBOX}`);
  if (!config.apiKey && config.transport === 'stdio') throw new ConfigError(`SVC_API_KEY is required ${OR_SANDBOX}`);
}

/** `$XDG_STATE_HOME/svc-mcp`, else `~/.local/state/svc-mcp` (design section 10). */
function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state'), 'svc-mcp');
}

/** An origin: https, or http on a loopback host; no path, query or credentials. */
export function parsePublicUrl(name: string, text: string): string {
  const url = parseUrl(text, () => new ConfigError(`${name} must be the origin clients reach this server at, such as https://mcp.example.com (got "${text}")`));
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigError(`${name} must use https (plain http only on a loopback host such as 127.0.0.1) (got "${text}")`);
  }
  if (url.pathname.replace(/\/+$/, '') !== '' || hasQueryOrCredentials(url)) {
    throw new ConfigError(`${name} must be an origin with no path, query, fragment or credentials, such as https://mcp.example.com (got "${text}")`);
  }
  return url.origin;
}

/** `--sandbox-conversations`: how many conversations the sandbox generates (also read by `svc-mcp sandbox`). */
export function parseSandboxConversations(name: string, text: string): number {
  return parseInteger(name, text, 0, 10_000_000);
}

/** `--sandbox-rate-limit`: N/Ts or off; undefined for the spec's default (also read by `svc-mcp sandbox`). */
export function parseSandboxRateLimit(name: string, text: string | undefined): RateLimit | 'off' | undefined {
  if (text === undefined) return undefined;
  if (text.trim().toLowerCase() === 'off') return 'off';
  return parseRateLimit(text, name);
}

/** OAuth serves browsers and hosted clients over HTTP: it needs that transport, the public origin and a secret to derive keys from. */
function checkAuth(config: Config, from: (name: string) => string): void {
  if (config.auth !== 'oauth') return;
  if (config.transport !== 'http') throw new ConfigError(`${from('SVC_AUTH')}=oauth needs the HTTP transport (--transport http): OAuth clients connect over HTTP`);
  if (!config.publicUrl && !config.sandbox) {
    throw new ConfigError(`${from('SVC_AUTH')}=oauth needs SVC_PUBLIC_URL, the origin clients reach this server at (for example https://mcp.example.com)`);
  }
  if (config.authSecret === undefined) {
    if (!config.sandbox) throw new ConfigError(`${from('SVC_AUTH')}=oauth needs SVC_AUTH_SECRET (at least 32 characters, the same on every node): stored keys are encrypted under it`);
    config.authSecret = randomBytes(32).toString('base64url');
  } else if (config.authSecret.length < 32) {
    throw new ConfigError(`${from('SVC_AUTH_SECRET')} must be at least 32 characters (the value was not printed)`);
  }
}
