/** The sandbox's API keys: the four of a run, and how a request names one. */
import type { IncomingMessage } from 'node:http';
import type { SandboxKeys } from '../handle.js';
import { newApiKey } from '../ids.js';
import { SEED } from '../seed-ids.js';
import { DAY_MS, iso, type SandboxState } from '../state.js';
import type { KeyRecord, Scope } from '../types.js';

/** Query parameters a key might be sent in: never accepted (Bearer only), always redacted from the record. */
export const KEY_QUERY_PARAMS = ['api_key', 'apikey', 'apiKey', 'key', 'access_token', 'api-key'];
const KEY_FORMAT = /^svc_[0-9a-f]{32}$/;

/** Fresh keys for this run: admin, readOnly and revoked in workspace A, otherWorkspace in B. */
export function createKeys(startedAt: number): KeyRecord[] {
  const key = (name: string, scopes: Scope[], workspaceId: string, revoked: boolean, createdBy: string, daysAgo: number): KeyRecord => {
    const value = newApiKey();
    return { name, key: value, scopes, workspaceId, revoked, prefix: value.slice(0, 8), createdBy, created: iso(startedAt - daysAgo * DAY_MS), lastUsed: null };
  };
  return [
    key('admin', ['read', 'write'], SEED.workspaceA, false, 'Dana Whitfield', 30),
    key('readOnly', ['read'], SEED.workspaceA, false, 'Dana Whitfield', 20),
    key('otherWorkspace', ['read', 'write'], SEED.workspaceB, false, 'Hank Scorpio', 10),
    key('revoked', ['read', 'write'], SEED.workspaceA, true, 'Luis Ortega', 60),
  ];
}

export function keysByName(keys: KeyRecord[]): SandboxKeys {
  const byName = (name: string) => keys.find((k) => k.name === name)!.key;
  return { admin: byName('admin'), readOnly: byName('readOnly'), otherWorkspace: byName('otherWorkspace'), revoked: byName('revoked') };
}

/** The key a `Bearer` authorization header names, valid or not. */
export function keyOfBearer(state: SandboxState, authorization: string | undefined): KeyRecord | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!m) return undefined;
  return state.keys.find((k) => k.key === m[1]);
}

/** Whether the request may use this key: Bearer only (a key also sent another way fails), well formed, not revoked. */
export function acceptsKey(req: IncomingMessage, url: URL, key: KeyRecord | undefined): key is KeyRecord {
  const sentOtherwise = req.headers['x-api-key'] !== undefined || KEY_QUERY_PARAMS.some((p) => url.searchParams.has(p));
  return !sentOtherwise && key !== undefined && KEY_FORMAT.test(key.key) && !key.revoked;
}
