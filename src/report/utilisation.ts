/**
 * Cluster state over time, from the rows of `timeline.csv` (DESIGN §2.5: each row is the state from
 * its `time` until the next row's time): utilisation (fraction of busy cores) as a filled step plot,
 * and the queue length and the power draw on panels below sharing the time axis. Each panel's
 * heading gives a time-weighted summary (mean utilisation, peak queue, mean power and the energy,
 * i.e. the integral of power over the rows).
 *
 * A long run can have far more rows than the plot has pixels; then the rows falling in one pixel
 * column are drawn as a single vertical stroke over their range of values, which looks the same
 * and keeps the SVG size proportional to the width rather than to the run length.
 */
import { type PlotOptions, escapeXml, fmt, formatValue, linear, niceAxis, svgDocument, text, xAxis, yAxis } from './svg.js';

/** One timeline row: the state from `time` until the next row's time. */
export interface UtilisationRow {
  time: number;
  /** Busy cores / total cores, in [0, 1]. */
  utilisation: number;
  /** Jobs waiting. */
  queue: number;
  /** Power draw, W. */
  power: number;
}

/** A panel of `utilisationSvg`. */
export type UtilisationPanel = 'utilisation' | 'queue' | 'power';

/** Options of `utilisationSvg`. */
export interface UtilisationOptions extends PlotOptions {
  /** Panels to draw, top to bottom (default all three). */
  panels?: UtilisationPanel[];
  /** Height of each panel's plot area in px (default 140). */
  panelHeight?: number;
  /** x axis title (default `time (s)`). */
  xLabel?: string;
}

/**
 * An SVG path of a step function: value `vs[i]` holds from `ts[i]` to `ts[i + 1]`. When there are
 * more than two points per pixel column, points in the same column are drawn as one vertical
 * stroke from the lowest to the highest value, ending at the column's last value.
 */
export function stepPath(ts: readonly number[], vs: readonly number[], sx: (t: number) => number, sy: (v: number) => number, columns: number): string {
  const n = ts.length;
  if (n === 0) return '';
  let d = `M${fmt(sx(ts[0]!))} ${fmt(sy(vs[0]!))}`;
  if (n <= 2 * columns) {
    for (let i = 1; i < n; i++) d += `H${fmt(sx(ts[i]!))}V${fmt(sy(vs[i]!))}`;
    return d;
  }
  let col = Math.round(sx(ts[0]!));
  let lo = sy(vs[0]!);
  let hi = lo;
  let last = lo;
  const flush = () => {
    d += `H${col}`;
    if (lo !== last || hi !== last) d += `V${fmt(lo)}V${fmt(hi)}`;
    d += `V${fmt(last)}`;
  };
  for (let i = 1; i < n; i++) {
    const c = Math.round(sx(ts[i]!));
    const y = sy(vs[i]!);
    if (c !== col) {
      flush();
      col = c;
      lo = hi = last;
    }
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
    last = y;
  }
  flush();
  return d;
}

/** Time-weighted mean of a step function over `[ts[0], ts[n-1]]` (the plain value for one row). */
export function timeWeightedMean(ts: readonly number[], vs: readonly number[]): number {
  if (ts.length === 0) return NaN;
  const span = ts[ts.length - 1]! - ts[0]!;
  if (!(span > 0)) return vs[vs.length - 1]!;
  let s = 0;
  for (let i = 0; i + 1 < ts.length; i++) s += vs[i]! * (ts[i + 1]! - ts[i]!);
  return s / span;
}

/**
 * Utilisation (and queue length, power) over time as a standalone SVG document (deterministic for
 * the same input). Rows are sorted by time (stably) before drawing.
 */
export function utilisationSvg(rows: readonly UtilisationRow[], opts: UtilisationOptions = {}): string {
  const width = opts.width ?? 900;
  const panels = opts.panels ?? ['utilisation', 'queue', 'power'];
  const ph = opts.panelHeight ?? 140;
  const title = opts.title ?? 'Cluster utilisation over time';
  const sorted = rows
    .map((r, i) => ({ r, i }))
    .filter((e) => Number.isFinite(e.r.time))
    .sort((a, b) => a.r.time - b.r.time || a.i - b.i)
    .map((e) => e.r);
  const ts = sorted.map((r) => r.time);
  const x0 = 76;
  const x1 = width - 20;
  const top = 40;
  const stride = ph + 36;
  const bottomAxis = top + (panels.length - 1) * stride + 24 + ph;
  const height = opts.height ?? bottomAxis + 50;
  const tmin = ts.length ? ts[0]! : 0;
  const tmax = ts.length ? ts[ts.length - 1]! : 1;
  const xa = niceAxis(tmin, tmax > tmin ? tmax : tmin + 1, Math.max(2, Math.round((x1 - x0) / 110)), false);
  const sx = linear(xa.min, xa.max, x0, x1);
  const cols = Math.max(1, Math.round(x1 - x0));

  let body = '';
  const descParts: string[] = [];
  panels.forEach((panel, k) => {
    const py = top + k * stride;
    const y1 = py + 24;
    const y0 = y1 + ph;
    const vs = sorted.map((r) => (panel === 'utilisation' ? r.utilisation : panel === 'queue' ? r.queue : r.power)).map((v) => (Number.isFinite(v) ? v : 0));
    const mean = timeWeightedMean(ts, vs);
    const max = vs.length ? Math.max(...vs) : 0;
    let axis: ReturnType<typeof niceAxis>;
    let heading: string;
    let colour: string;
    let label: string;
    if (panel === 'utilisation') {
      axis = niceAxis(0, 1, 4, true);
      heading = `utilisation (time-weighted mean ${formatValue(mean * 100)}%)`;
      colour = '#0072b2';
      label = 'busy cores';
    } else if (panel === 'queue') {
      axis = niceAxis(0, Math.max(max, 1), 4, true);
      if (axis.step < 1) axis = niceAxis(0, Math.max(max, 4), 4, true);
      heading = `queue length (jobs waiting; mean ${formatValue(mean)}, peak ${formatValue(max)})`;
      colour = '#e69f00';
      label = 'jobs';
    } else {
      axis = niceAxis(0, Math.max(max, 1), 4, true);
      const span = ts.length ? tmax - tmin : 0;
      heading = `power (mean ${formatValue(mean)} W, peak ${formatValue(max)} W, energy ${formatValue(mean * span)} J)`;
      colour = '#d55e00';
      label = 'W';
    }
    descParts.push(heading);
    const sy = linear(axis.min, axis.max, y0, y1);
    body += `<g class="panel ${panel}">\n`;
    body += `${text(x0, py + 16, heading, 'font-size="12.5" font-weight="bold" fill="#222"')}\n`;
    body += yAxis(axis, sy, x0, y0, y1, label, { gridTo: x1, percent: panel === 'utilisation', titleOffset: 58 });
    for (const t of xa.ticks) body += `<line x1="${fmt(sx(t))}" y1="${fmt(y1)}" x2="${fmt(sx(t))}" y2="${fmt(y0)}" stroke="#e4e4e4"/>\n`;
    if (ts.length) {
      const d = stepPath(ts, vs, sx, sy, cols);
      if (panel === 'utilisation') body += `<path d="${d}V${fmt(y0)}H${fmt(sx(ts[0]!))}Z" fill="${colour}" fill-opacity="0.25" stroke="none"/>\n`;
      body += `<path d="${d}" fill="none" stroke="${escapeXml(colour)}" stroke-width="1.5" stroke-linejoin="round"/>\n`;
    } else {
      body += `${text((x0 + x1) / 2, (y0 + y1) / 2, 'no data', 'text-anchor="middle" fill="#888" font-size="14"')}\n`;
    }
    body += `<rect x="${fmt(x0)}" y="${fmt(y1)}" width="${fmt(x1 - x0)}" height="${fmt(ph)}" fill="none" stroke="#999"/>\n`;
    body += `</g>\n`;
  });
  body += xAxis(xa, sx, bottomAxis, x0, x1, opts.xLabel ?? 'time (s)');
  const desc = `Step plots over ${sorted.length} timeline rows from ${formatValue(tmin)} to ${formatValue(tmax)} s: ${descParts.join('; ')}.`;
  return svgDocument({ width, height, title, desc, idPrefix: opts.idPrefix ?? 'timeline' }, '', body);
}
