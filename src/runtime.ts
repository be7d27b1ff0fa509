import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Config, RateLimit } from './config.js';
import { ConfigError } from './config.js';
import type { ToolGroup } from './engine/define.js';
import { CORE_TOOLSET, unknownToolsets } from './engine/listing.js';
import { ApiClient } from './upstream/client.js';
import { LimiterRegistry, type SharedBudgets } from './upstream/limiter.js';
import { createLogger, type Logger } from './log.js';
import { stopTelemetry } from './telemetry.js';
import { RunningTasks } from './engine/running-tasks.js';
import { FileStateStore } from './state/file-store.js';
import { MemoryStateStore, type StateStore } from './state/store.js';
import type { Sandbox } from './sandbox/index.js';
import { catalog } from '../tools/index.js';
import { MIRROR_TABLES } from '../tools/lib/mirror/tables.js';
import { MirrorRegistry } from './mirror/registry.js';

/** Everything a transport needs, built once per process. */
export interface Runtime {
  config: Config;
  catalog: ToolGroup[];
  logger: Logger;
  limiters: LimiterRegistry;
  client: ApiClient;
  /** What must outlive a request: in Redis for a fleet, under SVC_STATE_DIR when it must survive a restart, else in memory. */
  state: StateStore;
  taskStore: TaskStore;
  runningTasks: RunningTasks;
  /** Every workspace's mirror; absent with SVC_MIRROR=off. Holds nothing, and loads no engine, until a question needs one. */
  mirrors?: MirrorRegistry;
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
    sandbox = await startSandbox({ conversations: config.sandboxConversations, rateLimit: config.sandboxRateLimit });
    config = { ...config, baseUrl: sandbox.url, apiKey: config.apiKey ?? sandbox.keys.admin, rateLimit: config.rateLimitGiven ? config.rateLimit : sandboxBudget(config) };
    logger.info({ url: sandbox.url }, 'embedded sandbox workspace started');
  }
  const fleet = config.redisUrl ? await fleetState(config.redisUrl, config.taskTtlMs, logger) : await localState(config);
  const limiters = new LimiterRegistry({ budget: config.rateLimit, scope: config.rateScope, shared: fleet.budgets });
  const client = new ApiClient({ baseUrl: config.baseUrl!, timeoutMs: config.timeoutMs, limiters, logger });
  const mirrors = config.mirror === 'off' ? undefined : new MirrorRegistry({ config, tables: MIRROR_TABLES, logger });
  return {
    config,
    catalog,
    logger,
    limiters,
    client,
    state: fleet.state,
    taskStore: fleet.taskStore,
    runningTasks: new RunningTasks(),
    mirrors,
    sandbox,
    async close() {
      await mirrors?.closeAll();
      await client.close();
      await limiters.stop();
      await fleet.close();
      await sandbox?.close();
      await stopTelemetry();
    },
  };
}

/** An unthrottled sandbox (`--sandbox-rate-limit off`): a budget no run reaches, so only the sandbox's own answers pace it. */
const UNTHROTTLED: RateLimit = { limit: 1_000_000, windowMs: 1000 };

/** Without SVC_RATE_LIMIT, svc-mcp spends the embedded sandbox's budget: the scale recipe's `off` is off on both sides. */
function sandboxBudget(config: Config): RateLimit {
  if (config.sandboxRateLimit === 'off') return UNTHROTTLED;
  return config.sandboxRateLimit ?? config.rateLimit;
}

interface SharedState {
  state: StateStore;
  taskStore: TaskStore;
  /** The rate budgets a fleet shares; a single node's are its limiters' own. */
  budgets?: SharedBudgets;
  close(): Promise<void>;
}

/**
 * One node's state. It must survive a restart when a token may outlive the process: a given
 * SVC_CONFIRM_SECRET signs tokens the next start still accepts, a given SVC_AUTH_SECRET seals grants
 * the next start can still open. Then it lives under SVC_STATE_DIR, and a folder that cannot be used
 * stops the start with the reason. A --sandbox run is thrown away with its simulated workspace,
 * whatever secrets it was given: it keeps its state in memory unless SVC_STATE_DIR names a folder.
 */
async function localState(config: Config): Promise<SharedState> {
  const taskStore = new InMemoryTaskStore();
  const outlivesProcess = config.confirmSecretGiven || (config.auth === 'oauth' && config.authSecretGiven);
  const state = outlivesProcess && (!config.sandbox || config.stateDirGiven) ? await openStateDir(config.stateDir) : new MemoryStateStore();
  return {
    state,
    taskStore,
    async close() {
      taskStore.cleanup();
      state.close();
    },
  };
}

async function openStateDir(dir: string): Promise<StateStore> {
  try {
    return await FileStateStore.open(dir);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(
      `SVC_STATE_DIR=${dir} cannot be used (${reason}): with SVC_CONFIRM_SECRET or SVC_AUTH=oauth this node keeps spent tokens and grants there so they survive a restart. Point SVC_STATE_DIR at a folder only this user can write, or share the state through SVC_REDIS_URL.`,
    );
  }
}

/**
 * With Redis, the rate budgets, tasks and spent confirmation tokens are the fleet's, not this
 * process's; loaded only then, so a start without Redis never loads ioredis or Bottleneck. The
 * budgets have a connection of their own (Bottleneck also subscribes on it) and wait, bounded, for
 * Redis at startup: an unreachable Redis is not fatal.
 */
async function fleetState(url: string, taskTtlMs: number, logger: Logger): Promise<SharedState> {
  const [{ connectRedis }, { RedisBudgets }, { RedisTaskStore }, { RedisStateStore }] = await Promise.all([
    import('./fleet/redis.js'),
    import('./fleet/redis-budgets.js'),
    import('./fleet/redis-task-store.js'),
    import('./fleet/redis-state.js'),
  ]);
  const budgets = new RedisBudgets(url, logger);
  // Connecting starts here, so it runs while the budgets wait for their own connection.
  const { client } = connectRedis(url, logger, 'tasks, confirmation tokens, state');
  try {
    await budgets.start();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const taskStore = new RedisTaskStore(client, taskTtlMs);
  return {
    state: new RedisStateStore(client),
    taskStore,
    budgets,
    async close() {
      await budgets.stop();
      taskStore.close();
      client.disconnect();
    },
  };
}
