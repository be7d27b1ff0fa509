/**
 * How the bench's scripts print what they measured: the machine they ran on, each figure as the
 * median of its rounds with their spread, and each ratio with its target judged twice, on the
 * median and on the best round. Noise on a shared machine only slows a server down, so the best
 * round is the closest to what a call really costs, and the median says whether that holds run to run.
 */
import os from 'node:os';

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const mb = (value: number) => `${value.toFixed(1)} MB`;
export const times = (value: number) => `${value.toFixed(2)}x`;
export const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

/** Prints report lines as each section ends (a section takes from seconds to a few minutes). */
export const say = (...lines: string[]) => console.log(lines.join('\n'));

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
const loads = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

/** The machine, as figures from another one are not comparable without it: CPU model and cores, memory, load (1, 5 and 15 minutes). */
export function machineLine(): string {
  const cpus = os.cpus();
  return `machine: ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (${os.availableParallelism()} available to Node), ${gb(os.totalmem())} memory (${gb(os.freemem())} free), load average ${loads()}; Node ${process.version} on ${os.platform()} ${os.release()}`;
}

/** The load when the run ends, beside the one at its start: a run on a machine that got busier says so. */
export function loadLine(): string {
  return `load average at the end ${loads()} (1 / 5 / 15 minutes)`;
}

/** Every figure's per-round values, printed at the end as JSON. */
const figures: Record<string, number[]> = {};

/** Rounds as "median (low-high)" in the given format. */
export function spread(values: number[], format: (value: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${format(median(values))} (${format(sorted[0])}-${format(sorted.at(-1)!)})`;
}

/** Records a figure's rounds; returns them as `spread` prints them. */
export function figure(name: string, values: number[], format: (value: number) => string): string {
  figures[name] = values;
  return spread(values, format);
}

/** A ratio figure with its target, `at most` (<=) or `at least` (>=), judged on the median and on the best round. */
export function ratioFigure(name: string, values: number[], target: { most?: number; least?: number }): string {
  const atMost = target.most !== undefined;
  const meets = (value: number) => (atMost ? value <= target.most! : value >= target.least!);
  const best = atMost ? Math.min(...values) : Math.max(...values);
  return `${figure(name, values, times)} (target ${atMost ? `<= ${target.most}` : `>= ${target.least}`}x: median ${verdict(meets(median(values)))}, best round ${times(best)} ${verdict(meets(best))})`;
}

/** The figures recorded so far, each with its rounds, as one JSON line. */
export function figuresLine(): string {
  return `figures ${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([key, values]) => [key, values.map((value) => Number(value.toFixed(3)))])))}`;
}
