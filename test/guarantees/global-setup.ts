import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { shippedEntry } from '../support/built.js';
import { ROOT } from '../support/paths.js';

/** Refuses to run without dist/, and says so when dist/ is older than the sources it was built from. */
export default function checkShippedBinary(): void {
  const entry = shippedEntry();
  const built = statSync(entry).mtimeMs;
  const newer: string[] = [];
  const visit = (file: string) => {
    const stat = statSync(file);
    if (stat.isDirectory()) for (const name of readdirSync(file)) visit(path.join(file, name));
    else if (stat.mtimeMs > built) newer.push(path.relative(ROOT, file));
  };
  for (const folder of ['src', 'tools']) visit(path.join(ROOT, folder));
  if (newer.length) {
    console.warn(
      `warning: ${path.relative(ROOT, entry)} is older than ${newer.length} source file(s) (${newer.slice(0, 3).join(', ')}${newer.length > 3 ? ', …' : ''}): these suites test the binary as built; run \`npm run build\` to test the sources`,
    );
  }
}
