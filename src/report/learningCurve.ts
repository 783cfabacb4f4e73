/**
 * Learning curves: one line per series (mean return, mean bounded slowdown, losses…) against a
 * common x (usually environment steps). Series measured in different units can use a second y axis
 * on the right (`axis: 'right'`). Optional exponential smoothing draws the smoothed curve on top of
 * a faint raw curve, as TensorBoard does, so the noise stays visible.
 *
 * Non-finite points (NaN, ±Infinity) break a line rather than distort the axes; series with 30
 * points or fewer also get point markers, so a curve of few evaluations reads as measurements.
 */
import { type PlotOptions, escapeXml, fmt, formatValue, linear, niceAxis, paletteColour, svgDocument, text, xAxis, yAxis } from './svg.js';

/** One measurement of a learning curve. */
export interface CurvePoint {
  x: number;
  y: number;
}

/** A named line of the learning-curve chart. */
export interface CurveSeries {
  name: string;
  points: CurvePoint[];
  /** Which y axis the series uses (default `left`). */
  axis?: 'left' | 'right';
  /** Line colour (default: the palette, in series order). */
  colour?: string;
}

/** Options of `learningCurveSvg`. */
export interface LearningCurveOptions extends PlotOptions {
  /** x axis title (default `env steps`). */
  xLabel?: string;
  /** Left y axis title (default: the names of the left-axis series). */
  yLabel?: string;
  /** Right y axis title (default: the names of the right-axis series). */
  y2Label?: string;
  /**
   * Exponential smoothing weight in [0, 1): each smoothed value is `w * previous + (1 - w) * y`,
   * debiased at the start. 0 (default) draws the raw data only.
   */
  smoothing?: number;
}

/**
 * Exponentially smoothed copy of `ys` (weight `w` on the past), debiased like TensorBoard so the
 * first values are not pulled towards 0. Non-finite values are passed through and skipped.
 */
export function smoothSeries(ys: readonly number[], w: number): number[] {
  if (!(w > 0)) return ys.slice();
  if (w >= 1) throw new RangeError(`smoothing must be in [0, 1), got ${w}`);
  const out: number[] = [];
  let acc = 0;
  let n = 0;
  for (const y of ys) {
    if (!Number.isFinite(y)) {
      out.push(y);
      continue;
    }
    acc = w * acc + (1 - w) * y;
    n++;
    out.push(acc / (1 - w ** n));
  }
  return out;
}

/** Splits points into runs of finite values and writes one path per run. */
function linePath(xs: readonly number[], ys: readonly number[], sx: (v: number) => number, sy: (v: number) => number): string {
  let d = '';
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${fmt(sx(x))} ${fmt(sy(y))}`;
    pen = true;
  }
  return d;
}

/** Legend entries laid out left to right, wrapping at `maxWidth`; returns the markup and its height. */
function legend(entries: { label: string; colour: string }[], x0: number, y0: number, maxWidth: number): { svg: string; height: number } {
  let x = x0;
  let y = y0;
  let s = `<g class="legend" font-size="12" fill="#222">\n`;
  for (const e of entries) {
    const w = 34 + e.label.length * 6.8;
    if (x > x0 && x + w > x0 + maxWidth) {
      x = x0;
      y += 18;
    }
    s += `<line x1="${fmt(x)}" y1="${fmt(y - 4)}" x2="${fmt(x + 22)}" y2="${fmt(y - 4)}" stroke="${escapeXml(e.colour)}" stroke-width="2.5"/>\n`;
    s += `${text(x + 27, y, e.label)}\n`;
    x += w;
  }
  return { svg: `${s}</g>\n`, height: entries.length ? y - y0 + 18 : 0 };
}

/**
 * A line chart of learning curves. `series` share the x axis; each uses the left or the right y
 * axis. Returns a standalone SVG document (deterministic for the same input).
 */
export function learningCurveSvg(series: readonly CurveSeries[], opts: LearningCurveOptions = {}): string {
  const width = opts.width ?? 760;
  const height = opts.height ?? 420;
  const title = opts.title ?? 'Learning curve';
  const smoothing = opts.smoothing ?? 0;
  if (!(smoothing >= 0 && smoothing < 1)) throw new RangeError(`learningCurveSvg: smoothing must be in [0, 1), got ${smoothing}`);
  const xLabel = opts.xLabel ?? 'env steps';

  const prepared = series.map((s, i) => {
    const pts = s.points
      .map((p, k) => ({ p, k }))
      .sort((a, b) => a.p.x - b.p.x || a.k - b.k)
      .map((e) => e.p);
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    return { name: s.name, axis: s.axis ?? 'left', colour: s.colour ?? paletteColour(i), xs, ys, smooth: smoothSeries(ys, smoothing) };
  });
  const left = prepared.filter((s) => s.axis === 'left');
  const right = prepared.filter((s) => s.axis === 'right');
  const hasRight = right.length > 0;

  const marginL = 76;
  const marginR = hasRight ? 76 : 24;
  const lg = legend(
    prepared.map((s) => ({ label: hasRight ? `${s.name} (${s.axis})` : s.name, colour: s.colour })),
    marginL,
    48,
    width - marginL - marginR,
  );
  const top = 48 + lg.height + 4;
  const bottom = height - 52;
  const x0 = marginL;
  const x1 = width - marginR;

  const finite = (vs: number[]) => vs.filter(Number.isFinite);
  const allX = finite(prepared.flatMap((s) => s.xs));
  const range = (vs: number[]): [number, number] => (vs.length ? [Math.min(...vs), Math.max(...vs)] : [0, 1]);
  const [xmin, xmax] = range(allX);
  const xa = niceAxis(xmin, xmax, Math.max(2, Math.round((x1 - x0) / 110)), true);
  const sx = linear(xa.min, xa.max, x0, x1);
  const yCount = Math.max(2, Math.round((bottom - top) / 55));
  const [lmin, lmax] = range(finite(left.flatMap((s) => s.ys)));
  const la = niceAxis(lmin, lmax, yCount, true);
  const sl = linear(la.min, la.max, bottom, top);
  const [rmin, rmax] = range(finite(right.flatMap((s) => s.ys)));
  const ra = niceAxis(rmin, rmax, yCount, true);
  const sr = linear(ra.min, ra.max, bottom, top);

  let body = '';
  body += xAxis(xa, sx, bottom, x0, x1, xLabel, { top });
  body += yAxis(la, sl, x0, bottom, top, opts.yLabel ?? left.map((s) => s.name).join(', '), { gridTo: x1, titleOffset: 56 });
  if (hasRight) body += yAxis(ra, sr, x1, bottom, top, opts.y2Label ?? right.map((s) => s.name).join(', '), { side: 'right', titleOffset: 56 });
  body += lg.svg;

  body += `<g class="series" fill="none" stroke-linejoin="round" stroke-linecap="round">\n`;
  for (const s of prepared) {
    const sy = s.axis === 'right' ? sr : sl;
    const c = escapeXml(s.colour);
    body += `<g class="curve">\n<title>${escapeXml(s.name)}</title>\n`;
    if (smoothing > 0) {
      body += `<path d="${linePath(s.xs, s.ys, sx, sy)}" stroke="${c}" stroke-width="1.2" stroke-opacity="0.3"/>\n`;
      body += `<path d="${linePath(s.xs, s.smooth, sx, sy)}" stroke="${c}" stroke-width="2.2"/>\n`;
    } else {
      body += `<path d="${linePath(s.xs, s.ys, sx, sy)}" stroke="${c}" stroke-width="2"/>\n`;
    }
    const pts = s.xs.length;
    if (pts <= 30) {
      for (let i = 0; i < pts; i++) {
        const y = smoothing > 0 ? s.smooth[i]! : s.ys[i]!;
        if (!Number.isFinite(s.xs[i]!) || !Number.isFinite(y)) continue;
        body += `<circle cx="${fmt(sx(s.xs[i]!))}" cy="${fmt(sy(y))}" r="2.8" fill="${c}" stroke="none"/>\n`;
      }
    }
    body += `</g>\n`;
  }
  body += `</g>\n`;
  if (allX.length === 0) body += `${text((x0 + x1) / 2, (top + bottom) / 2, 'no data', 'text-anchor="middle" fill="#888" font-size="14"')}\n`;

  const descParts = prepared.map((s) => {
    const fx = s.xs.filter((x, i) => Number.isFinite(x) && Number.isFinite(s.ys[i]!));
    const last = [...s.smooth].reverse().find(Number.isFinite);
    return `${s.name}: ${fx.length} points${fx.length ? `, last value ${formatValue(last ?? NaN)}${smoothing > 0 ? ' (smoothed)' : ''}` : ''}`;
  });
  const desc = `Line chart of ${prepared.length} series against ${xLabel}, from ${formatValue(xmin)} to ${formatValue(xmax)}. ${descParts.join('; ')}.`;
  return svgDocument({ width, height, title, desc, idPrefix: opts.idPrefix ?? 'curve' }, '', body);
}
