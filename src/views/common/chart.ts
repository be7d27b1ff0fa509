import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  /** `count` on the left axis, `rate` (0..1, shown as %) on the right. */
  scale: 'count' | 'rate';
}

export interface ChartSpec {
  /** What the chart shows, for screen readers (the table beside it has the figures). */
  title: string;
  /** Label of the left (count) axis. */
  countLabel: string;
  /** `time`: x values are epoch ms, drawn as lines; `category`: one bar per name. */
  kind: 'time' | 'category';
  x: number[];
  /** Names of the categories (agent, source...), drawn on the canvas as axis text. */
  names?: string[];
  series: ChartSeries[];
  /** Clicking a bar or point picks that group. */
  onPick?: (index: number) => void;
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
const percent = (value: number) => `${Math.round(value * 100)}%`;
const short = (name: string) => (name.length > 18 ? `${name.slice(0, 17)}…` : name);

/** Draws the chart into `target` (emptied first) with uPlot, in the current theme's colours. */
export function drawChart(target: HTMLElement, spec: ChartSpec): uPlot {
  target.replaceChildren();
  target.setAttribute('role', 'img');
  target.setAttribute('aria-label', spec.title);
  const colors = [cssVar('--chart-1'), cssVar('--chart-2')];
  const axisColor = cssVar('--fg-muted');
  const grid = { stroke: cssVar('--chart-grid'), width: 1 };
  const category = spec.kind === 'category';
  const names = spec.names ?? [];
  const countMax = Math.max(1, ...spec.series.filter((series) => series.scale === 'count').flatMap((series) => series.values.map((value) => value ?? 0)));
  const rateAxis: uPlot.Axis[] = spec.series
    .filter((series) => series.scale === 'rate')
    .slice(0, 1)
    .map((series) => ({ scale: 'rate', side: 1, stroke: axisColor, grid: { show: false }, values: (_plot, splits) => splits.map(percent), label: series.label }));
  const options: uPlot.Options = {
    width: Math.max(280, target.clientWidth || 480),
    height: 220,
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false }, points: { show: !category } },
    scales: {
      x: category ? { time: false, range: [-0.5, Math.max(0.5, spec.x.length - 0.5)] } : { time: true },
      count: { range: [0, Math.ceil(countMax * 1.15)] },
      rate: { range: [0, 1] },
    },
    axes: [
      category ? { stroke: axisColor, grid: { show: false }, splits: () => spec.x, values: (_plot, splits) => splits.map((index) => short(names[index] ?? '')) } : { stroke: axisColor, grid },
      { scale: 'count', stroke: axisColor, grid, label: spec.countLabel },
      ...rateAxis,
    ],
    series: [
      category ? { label: 'group', value: (_plot, index) => (index === null ? '' : (names[index] ?? '')) } : { label: 'date' },
      ...spec.series.map((series, index): uPlot.Series => {
        const color = colors[index % colors.length];
        const value = series.scale === 'rate' ? (_plot: uPlot, raw: number | null) => (raw === null ? '-' : percent(raw)) : undefined;
        if (!category) return { label: series.label, scale: series.scale, stroke: color, width: 2, points: { show: true, size: 6, fill: color }, value };
        return series.scale === 'count'
          ? { label: series.label, scale: 'count', stroke: color, fill: `${color}b3`, paths: uPlot.paths.bars!({ size: [0.5, 64] }), points: { show: false }, value }
          : { label: series.label, scale: 'rate', stroke: color, width: 0, paths: () => null, points: { show: true, size: 10, fill: color, stroke: color }, value };
      }),
    ],
  };
  const x = category ? spec.x : spec.x.map((ms) => ms / 1000);
  const chart = new uPlot(options, [x, ...spec.series.map((series) => series.values)] as uPlot.AlignedData, target);
  if (spec.onPick) {
    chart.over.style.cursor = 'pointer';
    chart.over.addEventListener('click', () => {
      const index = chart.cursor.idx;
      if (index !== null && index !== undefined) spec.onPick!(index);
    });
  }
  return chart;
}
