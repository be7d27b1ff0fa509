/**
 * After `vitest run --coverage` (`npm run coverage`): line, statement, branch and function coverage
 * summed per source folder from coverage/coverage-summary.json, so a folder the tests barely reach
 * stands out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/paths.js';

interface Counts {
  total: number;
  covered: number;
}
const METRICS = ['lines', 'statements', 'branches', 'functions'] as const;
type FolderCounts = Record<(typeof METRICS)[number], Counts>;
type Summary = Record<string, FolderCounts>;

const summary = JSON.parse(readFileSync(path.join(ROOT, 'coverage/coverage-summary.json'), 'utf8')) as Summary;
const folders = new Map<string, FolderCounts>();
for (const [file, counts] of Object.entries(summary)) {
  if (file === 'total') continue;
  const folder = path.dirname(path.relative(ROOT, file));
  const sum = folders.get(folder) ?? (Object.fromEntries(METRICS.map((metric) => [metric, { total: 0, covered: 0 }])) as FolderCounts);
  for (const metric of METRICS) {
    sum[metric].total += counts[metric].total;
    sum[metric].covered += counts[metric].covered;
  }
  folders.set(folder, sum);
}
const percent = ({ total, covered }: Counts) => (total ? `${((100 * covered) / total).toFixed(1)} %` : 'n/a');
const rows = [['folder', ...METRICS], ...[...folders].sort(([a], [b]) => a.localeCompare(b)).map(([folder, sum]) => [folder, ...METRICS.map((metric) => percent(sum[metric]))])];
rows.push(['all', ...METRICS.map((metric) => percent(summary.total[metric]))]);
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
for (const row of rows) console.log(row.map((cell, column) => (column ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join('  '));
