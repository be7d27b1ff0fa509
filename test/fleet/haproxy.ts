import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Haproxy {
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  config: string;
  stop(): Promise<void>;
}

function haproxyInstalled(): boolean {
  const found = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return !found.error && found.status === 0;
}

/**
 * The configuration src/oauth/HOSTING.md documents for a fleet, with the listener and node ports filled in:
 * round-robin over stateless nodes, readiness checks on /readyz (a draining node leaves the
 * rotation), and retries only where nothing reached a node (connection refused) or a node said
 * it did nothing (503 while draining), so a write is never sent twice.
 */
export function haproxyConfig(listenPort: number, nodePorts: number[]): string {
  return `global
  maxconn 2048

defaults
  mode http
  timeout connect 1s
  timeout client 90s
  timeout server 90s
  # One request per connection to a node: no idle connection a node may close under a reused request.
  option http-server-close
  # Retry on another node only when the request did nothing: refused connection, or 503 from a draining node.
  retries 3
  option redispatch 1
  retry-on conn-failure 503

frontend mcp
  bind 127.0.0.1:${listenPort}
  default_backend nodes

backend nodes
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  timeout check 2s
  default-server inter 1s fall 2 rise 2
  # Which node answered, for the tests.
  http-response set-header X-Served-By %[srv_name]
${nodePorts.map((port, index) => `  server node${index + 1} 127.0.0.1:${port} check`).join('\n')}
`;
}

/** Runs `haproxy` in the foreground with that configuration on `port` and waits until it serves. */
export async function startHaproxy(port: number, nodePorts: number[]): Promise<Haproxy> {
  if (!haproxyInstalled()) throw new Error('haproxy is not installed: the fleet tests need it (apt-get install -y haproxy; .ci/run installs it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-haproxy-'));
  const config = haproxyConfig(port, nodePorts);
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy rejected its configuration:\n${check.stdout}${check.stderr}`);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error(`haproxy exited at start:\n${stderr}`);
    const ready = await fetch(`${base}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not serve /readyz on ${base}:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `${base}/mcp`,
    config,
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
