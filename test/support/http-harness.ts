import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort, waitForHealth } from './network.js';
import { svcMcpCommand } from './built.js';
import { caller, testClient, type ConnectOptions, type Connection } from './harness.js';
import { ROOT } from './paths.js';
import { RUN_ENV } from './run-env.js';

export interface HttpServerProcess {
  /** http://127.0.0.1:PORT */
  base: string;
  /** base + /mcp */
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Spawns `svc-mcp --transport http` (the built bundle) on a free loopback port and waits for /healthz. */
export async function startHttpServerProcess(options: { env?: Record<string, string>; args?: string[] } = {}): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(await svcMcpCommand()), '--transport', 'http', '--http-port', String(port), ...(options.args ?? [])], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'debug', ...RUN_ENV, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let done = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base, 20_000, () => done);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    base,
    url: `${base}/mcp`,
    port,
    child,
    stderr: () => stderr,
    exited,
    async stop() {
      if (!done) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface HttpConnection {
  client: Client;
  call: Connection['call'];
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/** A real SDK client over Streamable HTTP, optionally with its own bearer key and an elicitation answerer. */
export async function connectHttp(url: string, options: { key?: string; elicit?: ConnectOptions['elicit'] } = {}): Promise<HttpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: options.key ? { headers: { Authorization: `Bearer ${options.key}` } } : undefined,
  });
  const { client } = testClient(options);
  await client.connect(transport);
  return { client, call: caller(client), transport, close: () => client.close() };
}
