import { isTerminal, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './define.js';
import { textError } from './errors.js';
import type { RunningTasks } from './running-tasks.js';
import type { Execute, Extra } from './types.js';

const DEFAULT_TASK_TTL_MS = 3_600_000;
/** How often a running task looks for a cancellation, which may come through another node of a fleet. */
const CANCEL_CHECK_MS = 250;

/**
 * Confines a store shared by every session of a process (or a fleet) to one API key: a task is
 * found only through the key, and the session when there is one, that created it.
 */
export function taskStoreForKey(store: TaskStore, keyHash: string): TaskStore {
  const scope = (sessionId?: string) => (sessionId ? `${keyHash}:${sessionId}` : keyHash);
  return {
    createTask: (params, requestId, request, sessionId) => store.createTask(params, requestId, request, scope(sessionId)),
    getTask: (taskId, sessionId) => store.getTask(taskId, scope(sessionId)),
    storeTaskResult: (taskId, status, result, sessionId) => store.storeTaskResult(taskId, status, result, scope(sessionId)),
    getTaskResult: (taskId, sessionId) => store.getTaskResult(taskId, scope(sessionId)),
    updateTaskStatus: (taskId, status, message, sessionId) => store.updateTaskStatus(taskId, status, message, scope(sessionId)),
    listTasks: (cursor, sessionId) => store.listTasks(cursor, scope(sessionId)),
  };
}

/**
 * Runs a tool call as an MCP task: the call returns at once with a task id, the work goes on in
 * the background under the same limiter, and `tasks/cancel` (through any node sharing the store)
 * stops it.
 */
export async function startTask(tool: ToolDefinition, rawArgs: Record<string, unknown>, extra: Extra, ttl: number | null | undefined, execute: Execute, running: RunningTasks) {
  const store = extra.taskStore!;
  const task = await store.createTask({ ttl: ttl ?? DEFAULT_TASK_TTL_MS, pollInterval: 1000 });
  const controller = new AbortController();
  const watch = setInterval(() => {
    store.getTask(task.taskId).then(
      (current) => isTerminal(current.status) && controller.abort(new Error(`task ${current.status}`)),
      // Gone (expired) stops the work; a store that cannot be reached right now does not.
      (error: unknown) => error instanceof McpError && controller.abort(new Error('task gone')),
    );
  }, CANCEL_CHECK_MS);
  const finished = execute(tool, rawArgs, extra, controller.signal)
    .then(async (result) => {
      if (!controller.signal.aborted) await store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result);
    })
    .catch(() => undefined)
    .finally(() => clearInterval(watch));
  running.add(task.taskId, {
    finished,
    async fail(message) {
      // Aborted first, so a result arriving meanwhile is dropped rather than racing this one.
      controller.abort(new Error(message));
      await store.storeTaskResult(task.taskId, 'failed', textError(message)).catch(() => undefined);
    },
  });
  return { task };
}
