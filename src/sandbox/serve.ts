/** `svc-mcp sandbox`: runs the embedded sandbox in the foreground until SIGINT/SIGTERM. */
import { startSandbox } from './index.js';

export async function runSandboxCli(opts: { port?: number; host?: string } = {}): Promise<void> {
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
