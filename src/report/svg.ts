/**
 * Shared building blocks of the report's SVG plots: XML escaping, deterministic number formatting,
 * "nice" axis ticks, a colour palette and a stable colour hash, and the document frame with its
 * accessible `<title>` and `<desc>`.
 *
 * Everything here is a pure function of its arguments, so a plot rendered twice from the same data
 * is byte-for-byte the same string. Coordinates are rounded to 2 decimals, which keeps files small
 * and avoids platform-dependent digits in the output.
 */

/** Characters that XML 1.0 forbids anywhere (C0 controls except tab/LF/CR, U+FFFE/U+FFFF, lone surrogates). */
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Escapes a string for XML/HTML text and double- or single-quoted attribute values: `& < > " '`
 * become entities and characters that XML 1.0 cannot carry become U+FFFD.
 */
export function escapeXml(s: string): string {
  return s.replace(XML_INVALID, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Coordinates are clamped to this magnitude: far outside any plot, but never printed with an exponent. */
const COORD_LIMIT = 1e7;

/**
 * Formats a coordinate: rounded to 2 decimals, clamped to ±1e7 (a wild data value lands far off the
 * plot instead of producing an exponent), never `-0`.
 */
export function fmt(v: number): string {
  const r = Math.round(Math.max(-COORD_LIMIT, Math.min(COORD_LIMIT, v)) * 100) / 100;
  return r === 0 ? '0' : String(r);
}

/** Rounds away floating-point noise from a tick value (`0.30000000000000004` -> `0.3`). */
function clean(v: number): number {
  const r = Number(v.toPrecision(12));
  return r === 0 ? 0 : r;
}

const SI: ReadonlyArray<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** Decimals needed to show multiples of `step` exactly (steps are 1, 2 or 5 times a power of ten). */
function decimalsFor(step: number): number {
  if (!(step > 0) || !Number.isFinite(step)) return 0;
  return Math.max(0, Math.min(10, Math.ceil(-Math.log10(step) - 1e-9)));
}

/**
 * Formats an axis tick value `v` on an axis whose ticks are `step` apart. Values of 10,000 and more
 * (in magnitude, judged on `maxAbs`, the largest tick) use SI suffixes (`20k`, `1.5M`) so labels stay
 * short; the number of decimals follows the step.
 */
export function formatTick(v: number, step: number, maxAbs = Math.abs(v)): string {
  if (maxAbs >= 1e4) {
    for (const [scale, suffix] of SI) {
      if (maxAbs < scale) continue;
      const s = (v / scale).toFixed(decimalsFor(step / scale));
      return Number(s) === 0 ? '0' : s + suffix;
    }
  }
  const s = v.toFixed(decimalsFor(step));
  return Number(s) === 0 ? '0' : s;
}

/**
 * Formats a data value for labels and tooltips with about 3 significant digits: `12.3`, `0.732`,
 * `4,096` stays `4096`, `123456` becomes `123k`, `1.234e9` becomes `1.23G`. Non-finite values give
 * `n/a`.
 */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  const a = Math.abs(v);
  if (a >= 1e4) {
    for (const [scale, suffix] of SI) {
      if (a >= scale) {
        const x = v / scale;
        const ax = Math.abs(x);
        return `${stripZeros(x.toFixed(ax >= 100 ? 0 : ax >= 10 ? 1 : 2))}${suffix}`;
      }
    }
  }
  if (a === 0) return '0';
  if (a >= 100) return String(Math.round(v));
  if (a >= 10) return stripZeros(v.toFixed(1));
  if (a >= 1) return stripZeros(v.toFixed(2));
  if (a >= 0.001) return stripZeros(v.toPrecision(3));
  return v.toExponential(2);
}

function stripZeros(s: string): string {
  if (!s.includes('.')) return s;
  const r = s.replace(/0+$/, '').replace(/\.$/, '');
  return r === '-0' ? '0' : r;
}

/** A numeric axis: its (possibly widened) domain, the tick values and the tick step. */
export interface Axis {
  min: number;
  max: number;
  ticks: number[];
  step: number;
}

/** The 1-2-5 step closest to `range / count`. */
export function niceStep(range: number, count: number): number {
  if (!(range > 0) || !Number.isFinite(range)) return 1;
  const raw = range / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  const n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return clean(n * mag);
}

/**
 * Ticks for `[min, max]` about `count` apart. With `widen` the domain grows outwards to the nearest
 * ticks (value axes: a y axis then starts and ends on a labelled tick); without it the domain is
 * kept exactly and only the ticks inside it are returned (time axes). A degenerate domain
 * (`min == max`) is widened around the value.
 */
export function niceAxis(min: number, max: number, count = 5, widen = true): Axis {
  if (!Number.isFinite(min) || !Number.isFinite(max)) {
    min = 0;
    max = 1;
  }
  // Keep the range finite and resolvable: clamp huge magnitudes, and treat a range too small for
  // float64 ticks (relative to the values, or denormal) as a single value.
  min = Math.max(-1e300, Math.min(1e300, min));
  max = Math.max(-1e300, Math.min(1e300, max));
  if (max < min) [min, max] = [max, min];
  const mag = Math.max(Math.abs(min), Math.abs(max));
  if (max - min <= mag * 1e-12 || max - min < 1e-200) {
    const mid = (min + max) / 2;
    const d = mag < 1e-200 ? 1 : mag * 0.1;
    min = mid - d;
    max = mid + d;
  }
  const step = niceStep(max - min, count);
  let lo = min;
  let hi = max;
  if (widen) {
    lo = clean(Math.floor(min / step + 1e-9) * step);
    hi = clean(Math.ceil(max / step - 1e-9) * step);
  }
  const ticks: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let k = first; ; k++) {
    const v = clean(k * step);
    if (v > hi + step * 1e-9) break;
    ticks.push(v);
    if (ticks.length > 1000) break;
  }
  return { min: lo, max: hi, ticks, step };
}

/** Maps `[d0, d1]` linearly onto `[r0, r1]` (a degenerate or unresolvable domain maps everything to `r0`). */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k0 = (r1 - r0) / (d1 - d0);
  const k = Number.isFinite(k0) ? k0 : 0;
  return (v: number) => r0 + (v - d0) * k;
}

/**
 * A categorical palette (Okabe–Ito plus Tableau-like hues), distinguishable for the common forms of
 * colour blindness in its first eight entries. Series and policies take colours in order.
 */
export const PALETTE: readonly string[] = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#d55e00',
  '#cc79a7',
  '#56b4e9',
  '#8c6d31',
  '#000000',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#9467bd',
];

/** The palette colour for index `i` (cycling). */
export function paletteColour(i: number): string {
  return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length]!;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units: stable across runs and platforms. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hslToHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/**
 * A colour for a key (a job id) from a stable hash: the same id always gets the same colour, in
 * every plot and every run. Hue spans the whole circle; saturation and lightness vary a little so
 * neighbouring hues still differ, and stay in a band that white text and black outlines read on.
 */
export function hashColour(key: string): string {
  const h = fnv1a(key);
  const hue = h % 360;
  const sat = 0.55 + ((h >>> 9) % 4) * 0.08;
  const light = 0.5 + ((h >>> 13) % 3) * 0.07;
  return hslToHex(hue, sat, light);
}

/** Size and text of an SVG document. */
export interface SvgFrame {
  width: number;
  height: number;
  /** Short title: the `<title>` of the document and the heading drawn at the top. */
  title: string;
  /** Longer text description for assistive technology (`<desc>`). */
  desc: string;
  /** Prefix of the ids inside the document (keep them unique when several SVGs are inlined in one page). */
  idPrefix: string;
}

/** Default font stack of the plots. */
export const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';

/**
 * Wraps plot content in a standalone SVG document: XML declaration, namespace, `viewBox` plus
 * `width`/`height`, `role="img"` with `aria-labelledby` pointing at `<title>` and `<desc>`, a white
 * background and the title drawn as a heading.
 */
export function svgDocument(frame: SvgFrame, defs: string, body: string): string {
  const { width, height, idPrefix } = frame;
  const t = `${idPrefix}-title`;
  const d = `${idPrefix}-desc`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${fmt(width)}" height="${fmt(height)}" viewBox="0 0 ${fmt(width)} ${fmt(height)}"` +
    ` role="img" aria-labelledby="${escapeXml(t)} ${escapeXml(d)}" font-family="${escapeXml(FONT)}" font-size="12">\n` +
    `<title id="${escapeXml(t)}">${escapeXml(frame.title)}</title>\n` +
    `<desc id="${escapeXml(d)}">${escapeXml(frame.desc)}</desc>\n` +
    (defs ? `<defs>\n${defs}</defs>\n` : '') +
    `<rect width="${fmt(width)}" height="${fmt(height)}" fill="#ffffff"/>\n` +
    `<text x="${fmt(width / 2)}" y="22" text-anchor="middle" font-size="15" font-weight="bold" fill="#222">${escapeXml(frame.title)}</text>\n` +
    body +
    `</svg>\n`
  );
}

/** A `<text>` element (escaped); `extra` is raw attribute text. */
export function text(x: number, y: number, s: string, extra = ''): string {
  return `<text x="${fmt(x)}" y="${fmt(y)}"${extra ? ` ${extra}` : ''}>${escapeXml(s)}</text>`;
}

/** Options every plot accepts. */
export interface PlotOptions {
  /** Heading and `<title>`. */
  title?: string;
  /** Overall width in px (the `viewBox` width). */
  width?: number;
  /** Overall height in px, where the plot does not derive it from the data. */
  height?: number;
  /** Prefix of element ids (default: the plot kind). */
  idPrefix?: string;
}

/**
 * A horizontal axis at `y` from `x0` to `x1`: the line, ticks, labels and an axis title centred
 * below; `grid` draws light vertical lines up to `gridTop`.
 */
export function xAxis(axis: Axis, scale: (v: number) => number, y: number, x0: number, x1: number, label: string, grid?: { top: number }): string {
  const maxAbs = Math.max(...axis.ticks.map(Math.abs), 0);
  let s = `<g class="x-axis" font-size="11" fill="#333">\n`;
  s += `<line x1="${fmt(x0)}" y1="${fmt(y)}" x2="${fmt(x1)}" y2="${fmt(y)}" stroke="#333"/>\n`;
  for (const t of axis.ticks) {
    const x = scale(t);
    if (grid) s += `<line x1="${fmt(x)}" y1="${fmt(grid.top)}" x2="${fmt(x)}" y2="${fmt(y)}" stroke="#e4e4e4"/>\n`;
    s += `<line x1="${fmt(x)}" y1="${fmt(y)}" x2="${fmt(x)}" y2="${fmt(y + 5)}" stroke="#333"/>\n`;
    s += `${text(x, y + 17, formatTick(t, axis.step, maxAbs), 'text-anchor="middle"')}\n`;
  }
  if (label) s += `${text((x0 + x1) / 2, y + 34, label, 'text-anchor="middle" font-size="12" fill="#222"')}\n`;
  return `${s}</g>\n`;
}

/**
 * A vertical axis at `x` from `y0` (bottom) to `y1` (top). `side` chooses where labels go; the axis
 * title is drawn rotated, `titleOffset` px away from the axis; `grid` draws light horizontal lines
 * across to `gridTo`; `percent` labels ticks as percentages of 1.
 */
export function yAxis(
  axis: Axis,
  scale: (v: number) => number,
  x: number,
  y0: number,
  y1: number,
  label: string,
  opts: { side?: 'left' | 'right'; gridTo?: number; titleOffset?: number; percent?: boolean; colour?: string } = {},
): string {
  const side = opts.side ?? 'left';
  const dir = side === 'left' ? -1 : 1;
  const colour = opts.colour ?? '#333';
  const maxAbs = Math.max(...axis.ticks.map(Math.abs), 0);
  let s = `<g class="y-axis" font-size="11" fill="${colour}">\n`;
  s += `<line x1="${fmt(x)}" y1="${fmt(y0)}" x2="${fmt(x)}" y2="${fmt(y1)}" stroke="#333"/>\n`;
  for (const t of axis.ticks) {
    const y = scale(t);
    if (opts.gridTo !== undefined) s += `<line x1="${fmt(x)}" y1="${fmt(y)}" x2="${fmt(opts.gridTo)}" y2="${fmt(y)}" stroke="#e4e4e4"/>\n`;
    s += `<line x1="${fmt(x)}" y1="${fmt(y)}" x2="${fmt(x + 5 * dir)}" y2="${fmt(y)}" stroke="#333"/>\n`;
    const lab = opts.percent ? `${formatTick(t * 100, axis.step * 100)}%` : formatTick(t, axis.step, maxAbs);
    s += `${text(x + 8 * dir, y + 4, lab, `text-anchor="${side === 'left' ? 'end' : 'start'}"`)}\n`;
  }
  if (label) {
    const tx = x + (opts.titleOffset ?? 46) * dir;
    const ty = (y0 + y1) / 2;
    s += `${text(tx, ty, label, `text-anchor="middle" font-size="12" fill="${colour === '#333' ? '#222' : colour}" transform="rotate(-90 ${fmt(tx)} ${fmt(ty)})"`)}\n`;
  }
  return `${s}</g>\n`;
}
