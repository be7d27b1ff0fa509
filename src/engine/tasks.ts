import type { ToolDefinition } from './define.js';
import type { Execute, Extra } from './types.js';

const DEFAULT_TASK_TTL_MS = 3_600_000;
const CANCEL_CHECK_MS = 250;

/**
 * Runs a tool call as an MCP task: the call returns at once with a task id, the work goes on in
 * the background under the same limiter, and `tasks/cancel` stops it.
 */
export async function startTask(tool: ToolDefinition, rawArgs: Record<string, unknown>, extra: Extra, ttl: number | null | undefined, execute: Execute) {
  const store = extra.taskStore!;
  const task = await store.createTask({ ttl: ttl ?? DEFAULT_TASK_TTL_MS, pollInterval: 1000 });
  const controller = new AbortController();
  const watch = setInterval(() => {
    store.getTask(task.taskId).then(
      (current) => current.status === 'cancelled' && controller.abort(new Error('task cancelled')),
      () => controller.abort(new Error('task gone')),
    );
  }, CANCEL_CHECK_MS);
  void execute(tool, rawArgs, extra, controller.signal)
    .then(async (result) => {
      if (!controller.signal.aborted) await store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result);
    })
    .catch(() => undefined)
    .finally(() => clearInterval(watch));
  return { task };
}
