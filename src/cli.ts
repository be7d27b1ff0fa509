#!/usr/bin/env node
import { ConfigError, helpText, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { createRuntime } from './runtime.js';
import { SERVER_VERSION } from './engine/types.js';
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
    const { runSandboxCli } = await import('./sandbox/serve.js');
    const port = valueOf(argv, '--port');
    await runSandboxCli({ port: port === undefined ? undefined : Number(port), host: valueOf(argv, '--host') });
    return;
  }
  const config = loadConfig(argv);
  const logger = createLogger(config.logLevel);
  // The process must outlive any single failure: a bad call becomes an error result, never an exit.
  process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const runtime = await createRuntime(config, logger);
  if (config.transport === 'http') {
    const { serveHttp } = await import('./transports/http.js');
    await serveHttp(runtime);
  } else {
    await serveStdio(runtime);
  }
}

function valueOf(argv: string[], flag: string): string | undefined {
  const index = argv.findIndex((argument) => argument === flag || argument.startsWith(`${flag}=`));
  if (index < 0) return undefined;
  return argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1];
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc-mcp: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`svc-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
