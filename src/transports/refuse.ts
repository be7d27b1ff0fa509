import { createInterface } from 'node:readline';

/** How long a misconfigured process waits for a client's first request before it exits anyway. */
const WAIT_FOR_CLIENT_MS = 30_000;

/**
 * A host that launched us over stdio (Claude Desktop, an IDE) shows the user the error of a failed
 * `initialize`, while our stderr only reaches its log file. So instead of exiting mute, a process
 * that cannot start answers the client's first request with the reason, then exits.
 */
export function refuseOverStdio(reason: string, exitCode: number): Promise<never> {
  return new Promise(() => {
    const lines = createInterface({ input: process.stdin });
    const exit = () => process.exit(exitCode);
    setTimeout(exit, WAIT_FOR_CLIENT_MS).unref();
    lines.on('close', exit);
    lines.on('line', (line) => {
      let id: unknown;
      try {
        id = (JSON.parse(line) as { id?: unknown }).id;
      } catch {
        return;
      }
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const error = { code: -32000, message: `svc-mcp could not start: ${reason}` };
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`, exit);
    });
  });
}
