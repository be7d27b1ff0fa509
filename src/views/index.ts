import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ViewName } from './catalog.js';

/** Names as in @modelcontextprotocol/ext-apps (EXTENSION_ID, RESOURCE_MIME_TYPE), kept here so a start does not load that package. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

export const viewUri = (name: ViewName) => `ui://svc-mcp/${name}`;

/** The host's sandbox policy: no outside domain for anything. Every view ships whole in its HTML. */
export const VIEW_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

const pages = new Map<ViewName, Promise<string>>();

/**
 * A view's HTML. A built server reads the file `npm run build` wrote to dist/views/; the
 * server running from sources (tsx, tests) builds the view in memory from src/views on first read,
 * so tests always see the current sources and never touch dist/.
 */
export function viewHtml(name: ViewName): Promise<string> {
  let page = pages.get(name);
  if (!page) {
    page = fromSources() ? buildFromSources(name) : readFile(path.join(builtViewsDir(), `${name}.html`), 'utf8');
    pages.set(name, page);
    page.catch(() => pages.delete(name));
  }
  return page;
}

const fromSources = () => import.meta.url.endsWith('.ts');

async function buildFromSources(name: ViewName): Promise<string> {
  // A computed specifier: the server bundle must not pull in the build (and esbuild) with it.
  const builder = new URL('./build.ts', import.meta.url).href;
  const { buildView } = (await import(builder)) as { buildView(name: ViewName): Promise<string> };
  return buildView(name);
}

/** dist/views of the package this module runs from, found from wherever the bundler put this code. */
function builtViewsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('svc-mcp: package.json not found above the server code; the built views are read from its dist/views.');
    dir = parent;
  }
  return path.join(dir, 'dist', 'views');
}
