/**
 * The set-up test files share, as hooks of the describe block (or file) that calls it: a sandbox
 * started before its tests and closed after them, its request log and fault queue emptied before
 * each test, and real SDK clients connected to svc-mcp in process for the whole block.
 *
 *   const { sandbox, server, call } = useServer({ env: { SVC_CONFIRM: 'none' } });
 *   const previewing = useConnection(sandbox, { env: { SVC_CONFIRM: 'writes' } });
 *
 * What these return may be destructured at the top of a file: `sandbox` and the connections stand
 * in for what the hooks start, and are usable inside tests and hooks (using one earlier throws).
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { connect, sandboxEnv, textOf, type ConnectOptions, type Connection } from './harness.js';

/** A sandbox or a server starts in well under a second; a machine busy with other test files may take far longer. */
const START_TIMEOUT_MS = 30_000;

export interface FixtureConnectOptions extends ConnectOptions {
  /** The sandbox key the server sends (default `admin`); `env` is added to the sandbox's URL and that key. */
  key?: keyof Sandbox['keys'];
}

export interface ServerFixture {
  sandbox: Sandbox;
  /** The block's connection: its client, what the server logged (`stderr()`) and sent as MCP logs (`logs`). */
  server: Connection;
  /** A tool call through `server`. */
  call: Connection['call'];
}

/**
 * Something the block's tests share: started before them, stopped after them. The value returned
 * stands in for what `start` gives.
 */
export function useStarted<T extends object>(start: () => Promise<T>, stop: (started: T) => Promise<unknown>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    if (started) await stop(started);
  });
  return standingIn(() => started);
}

/** A sandbox for the block, from `SandboxOptions` or a function that starts one. */
export function useSandbox(start: SandboxOptions | (() => Promise<Sandbox>) = {}): Sandbox {
  const sandbox = useStarted(typeof start === 'function' ? start : () => startSandbox(start), (started) => started.close());
  beforeEach(() => {
    sandbox.clearRequests();
    sandbox.clearFaults();
  });
  return sandbox;
}

/** A client connected to svc-mcp in process for the block, the server pointed at `sandbox`. */
export function useConnection(sandbox: Sandbox, options: FixtureConnectOptions = {}): Connection {
  const { key = 'admin', env, ...connectOptions } = options;
  return useStarted(
    () => connect({ ...connectOptions, env: sandboxEnv(sandbox, sandbox.keys[key], env) }),
    (connection) => connection.close(),
  );
}

/** The usual block: a sandbox and one connection to it. */
export function useServer(options: FixtureConnectOptions & { sandbox?: SandboxOptions } = {}): ServerFixture {
  const { sandbox: sandboxOptions, ...connectOptions } = options;
  const sandbox = useSandbox(sandboxOptions);
  const server = useConnection(sandbox, connectOptions);
  return { sandbox, server, call: (name, args, callOptions) => server.call(name, args, callOptions) };
}

/** The structured content of a call that must have succeeded; a failure shows the call's text. */
export function structured<T = Record<string, any>>(result: CallToolResult): T {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as T;
}

/**
 * An object standing in for the one `current` gives once a hook has started it: every read, call
 * and write goes to that one, so a file can name its sandbox and connections at the top.
 */
function standingIn<T extends object>(current: () => T | undefined): T {
  const target = (): T => {
    const value = current();
    if (!value) throw new Error('used before the beforeAll hook that starts it: use it inside a test or a hook');
    return value;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const value = Reflect.get(target(), key);
      return typeof value === 'function' ? value.bind(target()) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
  });
}
