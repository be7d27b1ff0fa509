/**
 * Builds each view into one self-contained HTML page: its script (with the ext-apps `App` and
 * uPlot), its styles and a Content-Security-Policy that lets only that script run. Nothing is
 * fetched when the page opens. `npm run build` writes dist/views/<name>.html; a server
 * running from sources calls `buildView` in memory instead (src/views/index.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { VIEWS, type ViewName } from './catalog.js';

const SOURCES = path.dirname(fileURLToPath(import.meta.url));
export const MAX_VIEW_BYTES = 512 * 1024;

export async function buildView(name: ViewName): Promise<string> {
  const result = await build({
    entryPoints: [path.join(SOURCES, name, 'main.ts')],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
    // node_modules may be a link to another checkout; resolve within this one.
    preserveSymlinks: true,
  });
  const script = result.outputFiles
    .filter((file) => file.path.endsWith('.js'))
    .map((file) => file.text)
    .join('\n');
  const styles = result.outputFiles
    .filter((file) => file.path.endsWith('.css'))
    .map((file) => file.text)
    .join('\n');
  if (/<\/script/i.test(script) || /<\/style/i.test(styles)) throw new Error(`view ${name}: the bundle contains a closing tag and cannot be inlined`);
  const html = page(VIEWS[name].title, script, styles);
  const bytes = Buffer.byteLength(html);
  if (bytes > MAX_VIEW_BYTES) throw new Error(`view ${name} is ${bytes} bytes, over the ${MAX_VIEW_BYTES}-byte limit`);
  return html;
}

/**
 * The page's own policy, besides the host's: only the inline script whose hash it names runs, so
 * even markup that reached the page by mistake could not run an event handler or a script.
 */
function page(title: string, script: string, styles: string): string {
  const scriptHash = createHash('sha256').update(script).digest('base64');
  const policy = `default-src 'none'; script-src 'sha256-${scriptHash}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<style>${styles}</style>`,
    '</head>',
    '<body>',
    '<main id="view" aria-live="polite"></main>',
    `<script>${script}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/** Each view's built size in bytes (the bench prints them). */
export async function viewSizes(): Promise<Array<{ name: ViewName; bytes: number }>> {
  const names = Object.keys(VIEWS) as ViewName[];
  return Promise.all(names.map(async (name) => ({ name, bytes: Buffer.byteLength(await buildView(name)) })));
}

export async function writeViews(dir: string): Promise<Array<{ file: string; bytes: number }>> {
  await mkdir(dir, { recursive: true });
  const names = Object.keys(VIEWS) as ViewName[];
  return Promise.all(
    names.map(async (name) => {
      const html = await buildView(name);
      const file = path.join(dir, `${name}.html`);
      await writeFile(file, html);
      return { file, bytes: Buffer.byteLength(html) };
    }),
  );
}
