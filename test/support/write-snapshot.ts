/**
 * Regenerates what is derived from the catalog and committed: the tools/list snapshot, the
 * manifest's tool list and the README's tool table. Run `npm run snapshot` after changing a tool.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultToolList, manifestTools, readmeToolTable } from './catalog-views.js';
import { MANIFEST_PATH, README_PATH, ROOT, SNAPSHOT_PATH, TABLE_END, TABLE_START } from './paths.js';

writeFileSync(SNAPSHOT_PATH, `${JSON.stringify(defaultToolList(), null, 2)}\n`);
const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8'));
manifest.tools = manifestTools();
writeFileSync(MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
const readme = readFileSync(README_PATH, 'utf8');
const start = readme.indexOf(TABLE_START);
const end = readme.indexOf(TABLE_END);
if (start >= 0 && end > start) {
  writeFileSync(README_PATH, `${readme.slice(0, start + TABLE_START.length)}\n${readmeToolTable()}\n${readme.slice(end)}`);
}
console.log(`wrote ${path.relative(ROOT, SNAPSHOT_PATH)}, manifest.json tools and the README tool table`);
