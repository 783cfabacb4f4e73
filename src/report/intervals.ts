/**
 * An interval ("forest") plot: one row per item, a point estimate and its interval drawn as a
 * horizontal whisker on a shared axis, with a vertical reference line at 0. The leaderboard draws
 * each policy's mean paired difference to the best heuristic (a fraction of the best heuristic's
 * mean) with its 95 % bootstrap interval; the axis is in percent.
 */
import { escapeXml, fmt, formatValue, linear, niceAxis, type PlotOptions, svgDocument, text, xAxis } from './svg.js';

/** One row of an interval plot. */
export interface IntervalRow {
  name: string;
  /** Point estimate. */
  value: number;
  /** Interval `[lo, hi]` around it (equal to `value` for none). */
  lo: number;
  hi: number;
  /** Colour of the point and whisker (default grey). */
  colour?: string;
  /** Bold label. */
  bold?: boolean;
}

/** Options of `intervalsSvg`. */
export interface IntervalOptions extends PlotOptions {
  /** Axis title. */
  axisLabel?: string;
  /** Show values as percentages of 1. */
  percent?: boolean;
  /** A line under the title (e.g. the direction). */
  subtitle?: string;
}

/** A standalone SVG of `rows` (deterministic for the same input). */
export function intervalsSvg(rows: readonly IntervalRow[], opts: IntervalOptions = {}): string {
  const width = opts.width ?? 760;
  const rowH = 22;
  const labelW = Math.min(320, 16 + 7 * Math.max(8, ...rows.map((r) => r.name.length)));
  const top = opts.subtitle ? 56 : 42;
  const x0 = labelW;
  const x1 = width - 90;
  const y0 = top + rows.length * rowH;
  const height = opts.height ?? y0 + 52;
  const finite = rows.flatMap((r) => [r.lo, r.hi, r.value]).filter(Number.isFinite);
  const lo = Math.min(0, ...finite);
  const hi = Math.max(0, ...finite);
  const axis = niceAxis(lo, hi === lo ? lo + 0.01 : hi, 6, true);
  const sx = linear(axis.min, axis.max, x0, x1);
  const shown = (v: number) => (opts.percent ? `${v >= 0 ? '+' : ''}${formatValue(v * 100)}%` : formatValue(v));
  let body = '';
  if (opts.subtitle) body += `${text(width / 2, 40, opts.subtitle, 'text-anchor="middle" font-size="11" fill="#555"')}\n`;
  const pctAxis = opts.percent ? { ...axis, ticks: axis.ticks.map((t) => t * 100), step: axis.step * 100, min: axis.min * 100, max: axis.max * 100 } : axis;
  body += xAxis(pctAxis, (v) => sx(opts.percent ? v / 100 : v), y0 + 4, x0, x1, opts.axisLabel ?? '', { top });
  body += `<line x1="${fmt(sx(0))}" y1="${fmt(top - 4)}" x2="${fmt(sx(0))}" y2="${fmt(y0 + 4)}" stroke="#444" stroke-dasharray="4 3"/>\n`;
  rows.forEach((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const c = r.colour ?? '#777';
    body += `${text(x0 - 8, y + 4, r.name, `text-anchor="end" font-size="11.5" fill="#222"${r.bold ? ' font-weight="bold"' : ''}`)}\n`;
    if (!Number.isFinite(r.value)) {
      body += `${text(x0 + 4, y + 4, 'n/a', 'font-size="11" fill="#888"')}\n`;
      return;
    }
    body += `<g><title>${escapeXml(`${r.name}: ${shown(r.value)} [${shown(r.lo)}, ${shown(r.hi)}]`)}</title>`;
    body += `<line x1="${fmt(sx(r.lo))}" y1="${fmt(y)}" x2="${fmt(sx(r.hi))}" y2="${fmt(y)}" stroke="${c}" stroke-width="2"/>`;
    body += `<line x1="${fmt(sx(r.lo))}" y1="${fmt(y - 5)}" x2="${fmt(sx(r.lo))}" y2="${fmt(y + 5)}" stroke="${c}" stroke-width="2"/>`;
    body += `<line x1="${fmt(sx(r.hi))}" y1="${fmt(y - 5)}" x2="${fmt(sx(r.hi))}" y2="${fmt(y + 5)}" stroke="${c}" stroke-width="2"/>`;
    body += `<circle cx="${fmt(sx(r.value))}" cy="${fmt(y)}" r="4" fill="${c}"/></g>\n`;
    body += `${text(x1 + 8, y + 4, shown(r.value), 'font-size="11" fill="#222"')}\n`;
  });
  const desc = `Interval plot of ${rows.length} rows: ${rows.map((r) => `${r.name} ${shown(r.value)} [${shown(r.lo)}, ${shown(r.hi)}]`).join('; ')}.`;
  return svgDocument({ width, height, title: opts.title ?? 'Intervals', desc, idPrefix: opts.idPrefix ?? 'intervals' }, '', body);
}
