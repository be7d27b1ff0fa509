/**
 * Faults that tests queue (through the handle or `POST /__sandbox/faults`): each is consumed by
 * the first /v2 request it matches, before that request's key is checked.
 */
import type { Fault } from '../handle.js';

interface QueuedFault extends Fault {
  remaining: number;
}

export class FaultQueue {
  private queued: QueuedFault[] = [];
  private readonly delays = new Set<NodeJS.Timeout>();

  get size(): number {
    return this.queued.length;
  }

  add(faults: Fault[]): void {
    for (const fault of faults) this.queued.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.queued = [];
  }

  /** The first fault matching the request, counted as used once more. */
  take(method: string, path: string): Fault | undefined {
    const index = this.queued.findIndex((fault) => matches(fault, method, path));
    if (index < 0) return undefined;
    const fault = this.queued[index];
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queued.splice(index, 1);
    return fault;
  }

  /** Waits out a fault's delay; `cancelDelays` (on close) stops the waits still running. */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.delays.delete(timer);
        resolve();
      }, ms);
      this.delays.add(timer);
    });
  }

  cancelDelays(): void {
    for (const timer of this.delays) clearTimeout(timer);
    this.delays.clear();
  }
}

/** A fault without a method or path matches any; a path ending in '*' matches by prefix. */
function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method && fault.method.toUpperCase() !== method) return false;
  if (!fault.path) return true;
  return fault.path.endsWith('*') ? path.startsWith(fault.path.slice(0, -1)) : fault.path === path;
}
