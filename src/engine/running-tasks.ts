interface RunningTask {
  /** Settles when the work has ended, whatever its outcome. */
  finished: Promise<void>;
  /** Stops the work and records the task as failed with this message. */
  fail(message: string): Promise<void>;
}

/** The tasks this process runs, so that a draining node can wait for them and end the rest. */
export class RunningTasks {
  private readonly tasks = new Map<string, RunningTask>();

  get size(): number {
    return this.tasks.size;
  }

  add(taskId: string, task: RunningTask): void {
    this.tasks.set(taskId, task);
    void task.finished.finally(() => this.tasks.delete(taskId));
  }

  /** Ends every task still running as failed: a client awaiting one learns why at once. */
  async failAll(message: string): Promise<void> {
    await Promise.all([...this.tasks.values()].map((task) => task.fail(message)));
  }
}
