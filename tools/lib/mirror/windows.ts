/** Windows of createdAt, both ends inclusive in epoch ms, as the list route reads `since` and `until`. */
export interface Interval {
  since: number;
  until: number;
}

/** A window one agent's conversations were read whole in, and when its reading began. */
export interface HeldWindow extends Interval {
  botId: string;
  syncedAt: number;
}

/** The windows, merged where they overlap or touch (one ends 1 ms before the next starts), oldest first. */
export function merged(windows: readonly Interval[]): Interval[] {
  const sorted = [...windows].sort((a, b) => a.since - b.since);
  const result: Interval[] = [];
  for (const window of sorted) {
    const last = result.at(-1);
    if (last && window.since <= last.until + 1) last.until = Math.max(last.until, window.until);
    else result.push({ since: window.since, until: window.until });
  }
  return result;
}

/** What of `window` the `held` windows leave uncovered, oldest first. */
export function gaps(window: Interval, held: readonly Interval[]): Interval[] {
  const result: Interval[] = [];
  let from = window.since;
  for (const piece of merged(held)) {
    if (piece.until < from) continue;
    if (piece.since > window.until) break;
    if (piece.since > from) result.push({ since: from, until: piece.since - 1 });
    from = Math.max(from, piece.until + 1);
    if (from > window.until) return result;
  }
  if (from <= window.until) result.push({ since: from, until: window.until });
  return result;
}

/** The overlap of two windows, if any. */
export function overlap(a: Interval, b: Interval): Interval | undefined {
  const since = Math.max(a.since, b.since);
  const until = Math.min(a.until, b.until);
  return since <= until ? { since, until } : undefined;
}

/**
 * An agent's held windows once `read` has been read whole at `syncedAt`: the parts of older windows
 * it covers give way to it, so each instant keeps the time it was last read.
 */
export function withRead(held: readonly HeldWindow[], read: HeldWindow): HeldWindow[] {
  const kept: HeldWindow[] = [];
  for (const window of held) {
    if (window.botId !== read.botId || !overlap(window, read)) {
      kept.push(window);
      continue;
    }
    for (const rest of gaps(window, [read])) kept.push({ ...window, ...rest });
  }
  kept.push(read);
  kept.sort((a, b) => a.since - b.since);
  // Slices one sync read side by side are one window read at one time.
  const joined: HeldWindow[] = [];
  for (const window of kept) {
    const last = joined.findLast((candidate) => candidate.botId === window.botId);
    if (last && last.syncedAt === window.syncedAt && last.until + 1 === window.since) last.until = window.until;
    else joined.push({ ...window });
  }
  return joined;
}
