/**
 * Regenerates what is derived from the catalog and committed: the tools/list snapshot, the
 * manifest's tool and prompt lists, and the tool and configuration tables the README links (tools/README.md, src/CONFIGURATION.md). Run `npm run snapshot` after changing a tool or an option.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultToolList, manifestPrompts, manifestTools, readmeConfigTable, readmeToolTable, replaceBetween } from './catalog-views.js';
import { CONFIG_END, CONFIG_PAGE_PATH, CONFIG_START, MANIFEST_PATH, ROOT, SNAPSHOT_PATH, TABLE_END, TABLE_START, TOOLS_PAGE_PATH } from '../support/paths.js';

writeFileSync(SNAPSHOT_PATH, `${JSON.stringify(defaultToolList(), null, 2)}\n`);
const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8'));
manifest.version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
manifest.tools = manifestTools();
manifest.prompts = manifestPrompts();
writeFileSync(MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(TOOLS_PAGE_PATH, replaceBetween(readFileSync(TOOLS_PAGE_PATH, 'utf8'), TABLE_START, TABLE_END, readmeToolTable()));
writeFileSync(CONFIG_PAGE_PATH, replaceBetween(readFileSync(CONFIG_PAGE_PATH, 'utf8'), CONFIG_START, CONFIG_END, readmeConfigTable()));
console.log(`wrote ${path.relative(ROOT, SNAPSHOT_PATH)}, manifest.json tools and prompts, and the tool and configuration tables the README links`);
