#!/usr/bin/env node
import { ConfigError, loadConfig, requestedTransport } from './config.js';
import { helpText } from './help.js';
import { createLogger } from './log.js';
import { createRuntime } from './runtime.js';
import { SERVER_VERSION } from './meta.js';
import { startTelemetry } from './telemetry.js';
import { serveStdio } from './transports/stdio.js';

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  if (argv[0] === 'sandbox') {
    const { parseSandboxArgs, runSandboxCli } = await import('./sandbox/serve.js');
    await runSandboxCli(parseSandboxArgs(argv.slice(1)));
    return;
  }
  const config = loadConfig(argv);
  const logger = createLogger(config.logLevel, config.logFormat);
  // The process must outlive any single failure: a bad call becomes an error result, never an exit.
  process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  // Loads OpenTelemetry only when OTEL_* variables ask for it.
  await startTelemetry({ logger });
  const runtime = await createRuntime(config, logger);
  if (config.transport === 'http') {
    const { serveHttp } = await import('./transports/http/server.js');
    await serveHttp(runtime);
  } else {
    await serveStdio(runtime);
  }
}

/** Launched by a host over stdio (not a terminal, not the HTTP transport, not the sandbox command). */
function launchedByStdioHost(argv: string[]): boolean {
  return !process.stdin.isTTY && requestedTransport(argv) !== 'http' && argv[0] !== 'sandbox';
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc-mcp: ${error.message}\n`);
    if (launchedByStdioHost(process.argv.slice(2))) {
      const { refuseOverStdio } = await import('./transports/refuse.js');
      await refuseOverStdio(error.message, 2);
    }
    process.exit(2);
  }
  process.stderr.write(`svc-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
