/**
 * The report page: an `index.html` showing the SVG figures (as `<img>`, each a link to the SVG
 * itself, where the Gantt chart's per-job tooltips work) with their captions, and optional HTML
 * tables of results. `writeReport` writes the SVG files and the page into a directory.
 *
 * The page is static and self-contained (no external resources). A few lines of inline script run
 * once the page has loaded: they record each image's natural size on the `<img>` element
 * (`data-natural-width`, `data-natural-height`), set `data-images-ok` on `<body>`, and show a
 * visible warning naming any figure the browser could not load (for instance an SVG moved away
 * from the page). Headless browser tests read the same attributes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { escapeXml } from './svg.js';

/** A figure of the report page. */
export interface ReportSection {
  /** Heading of the figure. */
  title: string;
  /** Path of the SVG relative to the page (for example `gantt.svg`). */
  svgFile: string;
  /** Caption: what the figure shows and how to read it. */
  caption: string;
  /** Alternative text of the image (default: the title). */
  alt?: string;
}

/** A table of results (for example one row per policy). */
export interface ReportTable {
  /** Caption above the table. */
  caption?: string;
  columns: string[];
  /** Cells; numbers are formatted with 4 significant digits, `null` shows as an empty cell. */
  rows: (string | number | null)[][];
  /** Value of the first column of the row to highlight (for example `ppo`). */
  highlight?: string;
}

/** Options of `reportIndexHtml`. */
export interface ReportIndexOptions {
  /** Page title and heading (default `clustergym report`). */
  title?: string;
  /** A paragraph under the heading. */
  intro?: string;
}

/** Groups the digits of an integer string in threes with commas (`1920000` -> `1,920,000`). */
function group(int: string): string {
  const neg = int.startsWith('-');
  const d = neg ? int.slice(1) : int;
  return (neg ? '-' : '') + d.replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * Formats a table cell: strings as they are, `null` empty; numbers of magnitude 1000 or more rounded
 * to integers with digit grouping (`1,920,000,000`), smaller ones with 4 significant digits, tiny
 * ones in exponent form. Independent of the locale.
 */
export function formatCell(v: string | number | null): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e21) return v.toExponential(3);
  if (a >= 1000 || Number.isInteger(v)) return group(Math.round(v).toFixed(0));
  if (a >= 0.001) return String(Number(v.toPrecision(4)));
  return v === 0 ? '0' : v.toExponential(3);
}

/** Encodes a relative path for an `href`/`src` (each segment percent-encoded, `/` kept). */
function urlPath(p: string): string {
  return p
    .split(/[\\/]/)
    .map((s) => encodeURIComponent(s))
    .join('/');
}

function tableHtml(t: ReportTable): string {
  let s = `<table>\n`;
  if (t.caption) s += `<caption>${escapeXml(t.caption)}</caption>\n`;
  s += `<thead><tr>${t.columns.map((c) => `<th scope="col">${escapeXml(c)}</th>`).join('')}</tr></thead>\n<tbody>\n`;
  for (const r of t.rows) {
    const hl = t.highlight !== undefined && String(r[0]) === t.highlight;
    s += `<tr${hl ? ' class="highlight"' : ''}>`;
    r.forEach((cell, i) => {
      const num = typeof cell === 'number';
      const tag = i === 0 ? 'th scope="row"' : 'td';
      s += `<${tag}${num ? ' class="num"' : ''}>${escapeXml(formatCell(cell))}</${i === 0 ? 'th' : 'td'}>`;
    });
    s += `</tr>\n`;
  }
  return `${s}</tbody>\n</table>\n`;
}

const STYLE = `
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; margin: 0; padding: 16px 24px 40px; color: #222; background: #fafafa; }
main { max-width: 1180px; margin: 0 auto; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 17px; margin: 0 0 8px; }
p.intro { margin: 0 0 16px; color: #444; }
table { border-collapse: collapse; margin: 8px 0 20px; background: #fff; font-size: 14px; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #d0d0d0; padding: 4px 10px; }
thead th { background: #eef1f5; }
tbody th { text-align: left; font-weight: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.highlight th, tr.highlight td { background: #fff4d6; font-weight: bold; }
section.figure { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 12px 14px; margin: 0 0 18px; }
figure { margin: 0; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { margin-top: 8px; font-size: 14px; color: #444; }
figure.broken { outline: 3px solid #c00; }
#image-status { color: #a00; font-weight: bold; }
`;

const SCRIPT = `
window.addEventListener('load', function () {
  var bad = [];
  var imgs = document.querySelectorAll('img.figure');
  for (var i = 0; i < imgs.length; i++) {
    var img = imgs[i];
    img.setAttribute('data-natural-width', String(img.naturalWidth));
    img.setAttribute('data-natural-height', String(img.naturalHeight));
    if (!img.complete || img.naturalWidth === 0) {
      bad.push(img.getAttribute('src'));
      var fig = img.closest('figure');
      if (fig) fig.className = 'broken';
    }
  }
  document.body.setAttribute('data-images-ok', bad.length ? 'false' : 'true');
  if (bad.length) {
    var s = document.getElementById('image-status');
    s.textContent = 'Could not load: ' + bad.join(', ');
    s.hidden = false;
  }
});
`;

/**
 * The report's `index.html`: a heading, the optional tables, then one figure per section (the SVG
 * as an image linking to the file, with its title and caption). Deterministic for the same input.
 */
export function reportIndexHtml(sections: readonly ReportSection[], tables?: ReportTable | readonly ReportTable[], opts: ReportIndexOptions = {}): string {
  const title = opts.title ?? 'clustergym report';
  const tabs = tables === undefined ? [] : Array.isArray(tables) ? (tables as readonly ReportTable[]) : [tables as ReportTable];
  let s = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n`;
  s += `<meta name="viewport" content="width=device-width, initial-scale=1">\n`;
  s += `<title>${escapeXml(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body data-images-ok="pending">\n<main>\n`;
  s += `<h1>${escapeXml(title)}</h1>\n`;
  if (opts.intro) s += `<p class="intro">${escapeXml(opts.intro)}</p>\n`;
  s += `<p id="image-status" hidden></p>\n`;
  for (const t of tabs) s += tableHtml(t);
  sections.forEach((sec, i) => {
    const src = escapeXml(urlPath(sec.svgFile));
    s += `<section class="figure" id="figure-${i + 1}">\n<h2>${escapeXml(sec.title)}</h2>\n<figure>\n`;
    s += `<a href="${src}" title="open the SVG on its own (tooltips, zoom)"><img class="figure" src="${src}" alt="${escapeXml(sec.alt ?? sec.title)}"></a>\n`;
    s += `<figcaption>${escapeXml(sec.caption)}</figcaption>\n</figure>\n</section>\n`;
  });
  s += `</main>\n<script>${SCRIPT}</script>\n</body>\n</html>\n`;
  return s;
}

/** A figure to write: its SVG text, file name and the page's heading and caption for it. */
export interface ReportFigure {
  /** File name relative to the report directory (must end in `.svg`, no `..`). */
  file: string;
  svg: string;
  title: string;
  caption: string;
  alt?: string;
}

/** Everything `writeReport` writes. */
export interface ReportParts {
  title?: string;
  intro?: string;
  figures: ReportFigure[];
  tables?: ReportTable[];
}

/** Paths written by `writeReport`. */
export interface WrittenReport {
  /** Absolute or `dir`-relative path of `index.html`. */
  index: string;
  /** Paths of the SVG files, in figure order. */
  figures: string[];
}

/**
 * Writes the figures and `index.html` into `dir` (created if needed). Throws an `Error` naming the
 * file, before writing anything, for a figure path that is absolute, leaves the directory, or does
 * not end in `.svg`.
 */
export function writeReport(dir: string, parts: ReportParts): WrittenReport {
  const paths = parts.figures.map((f) => {
    const norm = normalize(f.file);
    if (isAbsolute(f.file) || norm.startsWith(`..${sep}`) || norm === '..' || !/\.svg$/i.test(f.file)) {
      throw new Error(`writeReport: figure file ${JSON.stringify(f.file)} must be a relative path inside the report directory ending in .svg`);
    }
    return join(dir, norm);
  });
  mkdirSync(dir, { recursive: true });
  const figures: string[] = [];
  parts.figures.forEach((f, i) => {
    const path = paths[i]!;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.svg);
    figures.push(path);
  });
  const sections = parts.figures.map((f) => {
    const sec: ReportSection = { title: f.title, svgFile: f.file, caption: f.caption };
    if (f.alt !== undefined) sec.alt = f.alt;
    return sec;
  });
  const opts: ReportIndexOptions = {};
  if (parts.title !== undefined) opts.title = parts.title;
  if (parts.intro !== undefined) opts.intro = parts.intro;
  const index = join(dir, 'index.html');
  writeFileSync(index, reportIndexHtml(sections, parts.tables ?? [], opts));
  return { index, figures };
}
