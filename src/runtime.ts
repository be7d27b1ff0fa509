import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Config } from './config.js';
import { ConfigError } from './config.js';
import type { ToolGroup } from './engine/define.js';
import { CORE_TOOLSET, unknownToolsets } from './engine/listing.js';
import { ApiClient } from './http/client.js';
import { LimiterRegistry } from './http/limiter.js';
import { createLogger, type Logger } from './log.js';
import { stopTelemetry } from './telemetry.js';
import { MemorySpentTokens, type SpentTokens } from './engine/spent-tokens.js';
import { RunningTasks } from './engine/tasks.js';
import { connectFleetRedis } from './fleet/redis.js';
import { RedisSpentTokens } from './fleet/redis-spent-tokens.js';
import { RedisTaskStore } from './fleet/redis-task-store.js';
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
  taskStore: TaskStore;
  runningTasks: RunningTasks;
  sandbox?: Sandbox;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<Runtime> {
  const unknown = unknownToolsets(catalog, config);
  if (unknown.length) {
    throw new ConfigError(`SVC_TOOLSETS names unknown group(s) ${unknown.join(', ')}; use all, ${CORE_TOOLSET}, or groups among ${catalog.map((group) => group.name).join(', ')}`);
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
  // With Redis, tasks and spent confirmation tokens are the fleet's, not this process's.
  const fleetRedis = config.redisUrl ? connectFleetRedis(config.redisUrl, logger) : undefined;
  const taskStore = fleetRedis ? new RedisTaskStore(fleetRedis, config.taskTtlMs) : new InMemoryTaskStore();
  return {
    config,
    catalog,
    logger,
    limiters,
    client,
    spentTokens: fleetRedis ? new RedisSpentTokens(fleetRedis) : new MemorySpentTokens(),
    taskStore,
    runningTasks: new RunningTasks(),
    sandbox,
    async close() {
      await client.close();
      await limiters.stop();
      if (taskStore instanceof RedisTaskStore) taskStore.close();
      else taskStore.cleanup();
      fleetRedis?.disconnect();
      await sandbox?.close();
      await stopTelemetry();
    },
  };
}
