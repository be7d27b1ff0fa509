import type { Change } from '../../../src/mirror/schema.js';
import { isRecord } from '../../../src/json.js';
import { idsSeen } from './ingest.js';

/**
 * What a call shows of ids the API cannot list (sources, rules and their versions, replays,
 * criteria groups, test sets, tag groups), kept in the mirror's ids_seen with the tool that showed
 * them: a call that succeeded with an id proves it exists. Recorded only in a mirror already held.
 */
export function seenIn(tool: string, kind: string, ids: (data: unknown, input: Record<string, unknown>) => unknown[]): (data: unknown, input: Record<string, unknown>) => Change[] {
  return (data, input) =>
    idsSeen(
      kind,
      ids(data, input).filter((id): id is string => typeof id === 'string' && id !== ''),
      tool,
      Date.now(),
    );
}

/** The ids of a response's array field (`documents` of an ingest), or of a list of ids (`addedDocumentIds`). */
export function idsIn(data: unknown, field: string): unknown[] {
  const value = isRecord(data) ? data[field] : undefined;
  return Array.isArray(value) ? value.map((item) => (isRecord(item) ? item.id : item)) : [];
}
