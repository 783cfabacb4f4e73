/**
 * Comparison of policies on several metrics: one small bar chart ("panel") per metric, because
 * the metrics have different units (mean bounded slowdown is a ratio, waiting time and makespan are
 * seconds, utilisation is a fraction, energy is joules). Within a panel each policy is one bar, in
 * the same colour in every panel, with its value written above it; the best value of each panel is
 * starred, following the metric's direction ("lower is better" for bsld, wait, makespan, energy;
 * "higher is better" for utilisation). A chosen policy (for example the learned `ppo`) can be
 * highlighted: its bars are outlined and its name is bold while the others are drawn lighter.
 */
import { type PlotOptions, escapeXml, fmt, formatValue, linear, niceAxis, paletteColour, svgDocument, text, yAxis } from './svg.js';

/** One policy and its metric values (missing or non-finite values are drawn as `n/a`). */
export interface ComparisonRow {
  name: string;
  values: Record<string, number>;
}

/** A metric to show, with its display label and direction. */
export interface MetricSpec {
  /** Key into `ComparisonRow.values`. */
  key: string;
  /** Panel title (default: from `KNOWN_METRICS`, else the key). */
  label?: string;
  /** Which direction is better; decides the starred bar (default: from `KNOWN_METRICS`, else none). */
  better?: 'lower' | 'higher';
  /** Show values as percentages of 1 (default: from `KNOWN_METRICS`, else false). */
  percent?: boolean;
}

/** Labels and directions of the evaluation metrics of DESIGN §7 (the keys of `evaluation.json`). */
export const KNOWN_METRICS: Readonly<Record<string, Omit<MetricSpec, 'key'>>> = {
  mean_bsld: { label: 'mean bounded slowdown', better: 'lower' },
  max_bsld: { label: 'max bounded slowdown', better: 'lower' },
  mean_slowdown: { label: 'mean slowdown', better: 'lower' },
  mean_wait: { label: 'mean wait (s)', better: 'lower' },
  mean_turnaround: { label: 'mean turnaround (s)', better: 'lower' },
  utilisation: { label: 'utilisation', better: 'higher', percent: true },
  makespan: { label: 'makespan (s)', better: 'lower' },
  energy: { label: 'energy (J)', better: 'lower' },
  edp: { label: 'energy-delay product (J s)', better: 'lower' },
};

/** Options of `comparisonBarsSvg`. */
export interface ComparisonOptions extends PlotOptions {
  /** Name of the policy to highlight (for example `ppo`). */
  highlight?: string;
  /** Panels per row (default: up to 3). */
  columns?: number;
  /** Height of one panel in px (default 260). */
  panelHeight?: number;
}

/** Resolves a metric given by key or spec against `KNOWN_METRICS`. */
export function resolveMetric(m: string | MetricSpec): Required<Omit<MetricSpec, 'better'>> & Pick<MetricSpec, 'better'> {
  const spec = typeof m === 'string' ? { key: m } : m;
  const known = KNOWN_METRICS[spec.key] ?? {};
  const better = spec.better ?? known.better;
  return { key: spec.key, label: spec.label ?? known.label ?? spec.key, percent: spec.percent ?? known.percent ?? false, ...(better ? { better } : {}) };
}

/**
 * Grouped bars comparing policies (`rows`) on `metrics`, one panel per metric. Returns a
 * standalone SVG document (deterministic for the same input).
 */
export function comparisonBarsSvg(rows: readonly ComparisonRow[], metrics: readonly (string | MetricSpec)[], opts: ComparisonOptions = {}): string {
  const specs = metrics.map(resolveMetric);
  const n = rows.length;
  const columns = Math.max(1, Math.min(opts.columns ?? 3, Math.max(1, specs.length)));
  const panelRows = Math.max(1, Math.ceil(specs.length / columns));
  // Value labels must fit their bar's slot: size the panels for the longest one (or shrink the font).
  const shownOf = (m: ReturnType<typeof resolveMetric>, v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? 'n/a' : m.percent ? `${formatValue(v * 100)}%` : formatValue(v);
  const maxChars = Math.max(3, ...specs.flatMap((m) => rows.map((r) => shownOf(m, r.values[m.key]).length + 2)));
  const minSlot = Math.max(46, maxChars * 6.5 + 8);
  const width = opts.width ?? Math.max(columns * Math.max(240, 74 + minSlot * n), 480);
  const pw = width / columns;
  const ph = opts.panelHeight ?? 260;
  const highlight = opts.highlight;
  const title = opts.title ?? 'Policy comparison';

  // Legend: policies with their colours, wrapped.
  let lx = 16;
  let ly = 50;
  let legendSvg = `<g class="legend" font-size="12" fill="#222">\n`;
  rows.forEach((r, i) => {
    const w = 30 + r.name.length * 7;
    if (lx > 16 && lx + w > width - 16) {
      lx = 16;
      ly += 18;
    }
    const hl = r.name === highlight;
    legendSvg += `<rect x="${fmt(lx)}" y="${fmt(ly - 10)}" width="14" height="12" fill="${paletteColour(i)}"${hl ? ' stroke="#111" stroke-width="2"' : ''}/>\n`;
    legendSvg += `${text(lx + 19, ly, r.name, hl ? 'font-weight="bold"' : '')}\n`;
    lx += w;
  });
  legendSvg += `</g>\n`;
  const top = ly + 14;
  const height = opts.height ?? top + panelRows * ph + 6;

  // Policy labels below the bars: horizontal when they fit their slot, else rotated.
  const maxName = Math.max(1, ...rows.map((r) => r.name.length));
  const plotW = pw - 74;
  const slot = n ? plotW / n : plotW;
  const valueFont = Math.max(7, Math.min(10.5, (slot - 4) / (maxChars * 0.62)));
  const rotate = maxName * 6.8 > slot - 4;
  const labelSpace = rotate ? Math.min(110, maxName * 6.8 * 0.57 + 16) : 22;

  let body = legendSvg;
  const descParts: string[] = [];
  specs.forEach((m, pi) => {
    const px = (pi % columns) * pw;
    const py = top + Math.floor(pi / columns) * ph;
    const x0 = px + 62;
    const x1 = px + pw - 12;
    const y1 = py + 50;
    const y0 = py + ph - labelSpace - 8;
    const vals = rows.map((r) => r.values[m.key]);
    const finite = vals.filter((v): v is number => v !== undefined && Number.isFinite(v));
    const lo = Math.min(0, ...finite);
    const hi = Math.max(0, ...finite);
    const axis = niceAxis(lo, hi === lo ? lo + 1 : hi, Math.max(2, Math.round((y0 - y1) / 45)), true);
    const sy = linear(axis.min, axis.max, y0, y1);
    let best = -1;
    if (m.better && finite.length) {
      const target = m.better === 'lower' ? Math.min(...finite) : Math.max(...finite);
      best = vals.indexOf(target);
    }

    body += `<g class="panel">\n`;
    body += `${text(px + pw / 2, py + 16, m.label, 'text-anchor="middle" font-size="13" font-weight="bold" fill="#222"')}\n`;
    if (m.better) body += `${text(px + pw / 2, py + 30, `${m.better} is better`, 'text-anchor="middle" font-size="10.5" fill="#666"')}\n`;
    body += yAxis(axis, sy, x0, y0, y1, '', { gridTo: x1, percent: m.percent });
    const base = sy(Math.max(axis.min, Math.min(axis.max, 0)));
    body += `<line x1="${fmt(x0)}" y1="${fmt(base)}" x2="${fmt(x1)}" y2="${fmt(base)}" stroke="#333"/>\n`;
    rows.forEach((r, i) => {
      const v = vals[i];
      const cx = x0 + slot * (i + 0.5);
      const bw = slot * 0.7;
      const hl = r.name === highlight;
      const shown = shownOf(m, v);
      if (v !== undefined && Number.isFinite(v)) {
        const yv = sy(v);
        const y = Math.min(yv, base);
        const h = Math.abs(base - yv);
        const style = hl ? ' stroke="#111" stroke-width="2"' : highlight !== undefined ? ' fill-opacity="0.6"' : '';
        body += `<rect x="${fmt(cx - bw / 2)}" y="${fmt(y)}" width="${fmt(bw)}" height="${fmt(h)}" fill="${paletteColour(i)}"${style}>`;
        body += `<title>${escapeXml(`${r.name}: ${m.label} = ${shown}`)}</title></rect>\n`;
        const ty = v >= 0 ? y - 4 : y + h + 12;
        body += `${text(cx, ty, (i === best ? '\u2605 ' : '') + shown, `text-anchor="middle" font-size="${fmt(valueFont)}" fill="#222"${hl || i === best ? ' font-weight="bold"' : ''}`)}\n`;
      } else {
        body += `${text(cx, base - 4, shown, `text-anchor="middle" font-size="${fmt(valueFont)}" fill="#888"`)}\n`;
      }
      const ly0 = y0 + 14;
      const weight = hl ? ' font-weight="bold"' : '';
      if (rotate) body += `${text(cx, ly0, r.name, `text-anchor="end" font-size="11" fill="#222"${weight} transform="rotate(-35 ${fmt(cx)} ${fmt(ly0)})"`)}\n`;
      else body += `${text(cx, ly0, r.name, `text-anchor="middle" font-size="11" fill="#222"${weight}`)}\n`;
    });
    body += `</g>\n`;
    descParts.push(
      `${m.label}: ${rows.map((r, i) => `${r.name} ${vals[i] === undefined ? 'n/a' : formatValue(vals[i]!)}`).join(', ')}${best >= 0 ? ` (best ${rows[best]!.name})` : ''}`,
    );
  });
  const desc = `Bar charts comparing ${n} policies on ${specs.length} metrics${highlight ? `, ${highlight} highlighted` : ''}. ${descParts.join('. ')}.`;
  return svgDocument({ width, height, title, desc, idPrefix: opts.idPrefix ?? 'bars' }, '', body);
}
