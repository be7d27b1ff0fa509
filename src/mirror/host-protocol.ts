/** What the server and a workspace's mirror host (host.ts) say to each other over the IPC channel. */
import type { DatabaseOptions } from './database.js';

export interface HostOptions extends DatabaseOptions {
  /** The host ends itself when its resident memory passes this. */
  rssCeilingMb: number;
}

export interface HostRequest {
  id: number;
  call: 'open' | 'rows' | 'transaction' | 'query' | 'parse' | 'compact' | 'memoryBytes';
  args: unknown[];
}

export type HostReply = { id: number; value: unknown } | { id: number; error: { name: string; message: string } } | { stopped: string };

/** The most a query's answer may weigh, as JSON, on its way to the server: far past what a reply shows (query_workspace's rows are capped). */
export const ANSWER_MAX_BYTES = 16 * 1024 * 1024;
