import type { Config } from './config.js';
import { ConfigError } from './config.js';
import type { ToolGroup } from './engine/define.js';
import { unknownToolsets } from './engine/listing.js';
import { ApiClient } from './http/client.js';
import { LimiterRegistry } from './http/limiter.js';
import { createLogger, type Logger } from './log.js';
import { MemorySpentTokens, type SpentTokens } from './engine/spent-tokens.js';
import type { Sandbox } from './sandbox/index.js';
import { catalog } from '../tools/index.js';

/** Everything a transport needs, built once per process. */
export interface Runtime {
  config: Config;
  catalog: ToolGroup[];
  logger: Logger;
  limiters: LimiterRegistry;
  client: ApiClient;
  spentTokens: SpentTokens;
  sandbox?: Sandbox;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Runtime> {
  const unknown = unknownToolsets(catalog, config);
  if (unknown.length) {
    throw new ConfigError(`SVC_TOOLSETS names unknown group(s) ${unknown.join(', ')}; the groups are ${catalog.map((group) => group.name).join(', ')}`);
  }
  let sandbox: Sandbox | undefined;
  if (config.sandbox) {
    // Loaded only on demand: a production start never pays for the simulated workspace.
    const { startSandbox } = await import('./sandbox/index.js');
    sandbox = await startSandbox();
    config = { ...config, baseUrl: sandbox.url, apiKey: config.apiKey ?? sandbox.keys.admin };
    logger.info({ url: sandbox.url }, 'embedded sandbox workspace started');
  }
  const limiters = new LimiterRegistry({ budget: config.rateLimit, scope: config.rateScope, redisUrl: config.redisUrl, logger });
  await limiters.start();
  const client = new ApiClient({ baseUrl: config.baseUrl!, timeoutMs: config.timeoutMs, limiters, logger });
  return {
    config,
    catalog,
    logger,
    limiters,
    client,
    spentTokens: new MemorySpentTokens(),
    sandbox,
    async close() {
      await client.close();
      await limiters.stop();
      await sandbox?.close();
    },
  };
}
