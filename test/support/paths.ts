import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SNAPSHOT_PATH = path.join(ROOT, 'test/snapshots/tools-list.json');
export const MANIFEST_PATH = path.join(ROOT, 'manifest.json');
export const README_PATH = path.join(ROOT, 'README.md');
/** The pages the README links for the generated tool and configuration tables. */
export const TOOLS_PAGE_PATH = path.join(ROOT, 'tools/README.md');
export const CONFIG_PAGE_PATH = path.join(ROOT, 'src/CONFIGURATION.md');
export const TABLE_START = '<!-- tools:start -->';
export const TABLE_END = '<!-- tools:end -->';
export const CONFIG_START = '<!-- config:start -->';
export const CONFIG_END = '<!-- config:end -->';
/** Where servers started by tests keep their state (SVC_STATE_DIR), so no test writes into the user's home. */
export const TEST_STATE_DIR = path.join(os.tmpdir(), `svc-mcp-test-state-${process.pid}`);

/** The TypeScript files under a folder of the project, as paths from its root: what the boundary tests read. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}
