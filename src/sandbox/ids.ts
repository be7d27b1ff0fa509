import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Deterministic ids for seed data: `<kind8>-000<ws>-4000-8000-<n12>`, a valid version-4-shaped UUID.
 * Example: seedId('conversation', 'a', 17) === 'c0000000-000a-4000-8000-000000000017' (n written in decimal digits).
 */
export const ID_KIND = {
  workspace: '00000000',
  bot: 'b0000000',
  conversation: 'c0000000',
  event: 'e0000000',
  article: 'a0000000',
  folder: 'f0000000',
  junction: '30000000',
  source: 'd0000000',
  tool: '70000000',
  dataStep: '71000000',
  toolAssignment: '72000000',
  rule: '80000000',
  replay: '90000000',
  refineSession: '60000000',
  refineIteration: '61000000',
  refineChange: '62000000',
  criteriaGroup: '50000000',
  criterion: '51000000',
  testCase: '52000000',
  testSet: '53000000',
  testRun: '54000000',
  promptVersion: '55000000',
  tagGroup: '40000000',
  tag: '41000000',
  user: '10000000',
} as const;
export type IdKind = keyof typeof ID_KIND;

export function seedId(kind: IdKind, ws: 'a' | 'b', n: number): string {
  return `${ID_KIND[kind]}-000${ws}-4000-8000-${String(n).padStart(12, '0')}`;
}

/** Seed event ids embed their conversation number: eventSeedId('a', 1, 2) === 'e0000000-000a-4000-8001-000000000002'. */
export function eventSeedId(ws: 'a' | 'b', conversation: number, n: number): string {
  return `${ID_KIND.event}-000${ws}-4000-8${String(conversation).padStart(3, '0')}-${String(n).padStart(12, '0')}`;
}

/** Fresh id for records created at runtime. */
export function newId(): string {
  return randomUUID();
}

export function newJobId(): string {
  return `job_${randomBytes(9).toString('base64url')}`;
}

export function newApiKey(): string {
  return `svc_${randomBytes(16).toString('hex')}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
