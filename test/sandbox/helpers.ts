import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface CallOptions {
  key?: string | null; // null: no Authorization header
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | (string | number)[]>;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(sb: Sandbox, method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  const url = new URL(sb.url + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
  }
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? sb.keys.admin : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export function start(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ rateLimit: { limit: 100_000, windowMs: 60_000 }, ...options });
}

export const DAY = 86_400_000;

/** A sandbox clock ahead of real time by what a test moved it on: a test advances it instead of sleeping. */
export function skewedClock() {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    advance: (ms: number) => {
      skew += ms;
    },
  };
}

/** Calls to the sandbox's own control routes (/__sandbox/...), which take no key. */
export function sandboxControl(sb: Sandbox) {
  return (method: string, path: string, body?: unknown) => call(sb, method, path, { key: null, body });
}
