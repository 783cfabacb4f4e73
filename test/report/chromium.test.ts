/**
 * The report renders in a real browser: headless Debian `chromium` loads `index.html` (every SVG
 * as an image must get a natural size and the page must log no error), each SVG opened on its own
 * must parse, and a screenshot of the page must be a non-blank PNG. A negative control (a broken
 * SVG) shows the checks can fail. Skipped, with the reason in the test name, when chromium is
 * absent; set CLUSTERGYM_CHROMIUM to use another binary and CLUSTERGYM_KEEP_REPORT=1 to keep the
 * rendered report and screenshot (their directory is printed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparisonBarsSvg } from '../../src/report/comparisonBars.js';
import { ganttSvg } from '../../src/report/gantt.js';
import { type ReportParts, writeReport } from '../../src/report/html.js';
import { learningCurveSvg } from '../../src/report/learningCurve.js';
import { utilisationSvg } from '../../src/report/utilisation.js';
import { curves, METRICS, POLICIES, schedule } from './fixtures.js';

const CHROMIUM = process.env.CLUSTERGYM_CHROMIUM ?? '/usr/bin/chromium';
const HAVE = existsSync(CHROMIUM);
const SKIP = HAVE ? '' : ` (skipped: ${CHROMIUM} is absent; install it with \`apt-get install -y chromium\` or set CLUSTERGYM_CHROMIUM)`;
const KEEP = process.env.CLUSTERGYM_KEEP_REPORT === '1';

/** Runs headless chromium on `url` with `args`; returns its stdout and the page's console lines. */
function chromium(url: string, args: string[]): { stdout: string; console: string[]; stderr: string } {
  const profile = mkdtempSync(join(tmpdir(), 'cg-chromium-profile-'));
  try {
    const r = spawnSync(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        '--enable-logging=stderr',
        '--v=0',
        ...args,
        url,
      ],
      { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.error) throw r.error;
    expect(r.status, `chromium exited with ${r.status}: ${r.stderr.slice(-2000)}`).toBe(0);
    // Page console output (console.*, uncaught exceptions) is logged as INFO:CONSOLE lines.
    const consoleLines = r.stderr.split('\n').filter((l) => /:CONSOLE[:(]|Uncaught/.test(l));
    return { stdout: r.stdout, console: consoleLines, stderr: r.stderr };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The `<img>` elements of a dumped DOM with their src and recorded natural size. */
function images(dom: string): { src: string; width: number; height: number }[] {
  return [...dom.matchAll(/<img\b[^>]*>/g)].map((m) => {
    const tag = m[0];
    const attr = (n: string) => new RegExp(`\\b${n}="([^"]*)"`).exec(tag)?.[1];
    return { src: attr('src') ?? '', width: Number(attr('data-natural-width') ?? NaN), height: Number(attr('data-natural-height') ?? NaN) };
  });
}

/** Pixel statistics of an RGBA image: distinct colours (RGB, capped count) and the fraction of pixels that are not near-white. */
function pixelStats(img: { width: number; height: number; data: Uint8Array }): { colours: number; inked: number } {
  const seen = new Set<number>();
  let inked = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const r = img.data[4 * i]!;
    const g = img.data[4 * i + 1]!;
    const b = img.data[4 * i + 2]!;
    if (seen.size < 100_000) seen.add((r << 16) | (g << 8) | b);
    if (r < 235 || g < 235 || b < 235) inked++;
  }
  return { colours: seen.size, inked: inked / n };
}

const svgSize = (svg: string) => {
  const m = /<svg\b[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"/.exec(svg)!;
  return { width: Math.round(Number(m[1])), height: Math.round(Number(m[2])) };
};

describe('the report in headless Chromium', () => {
  let dir = '';
  let parts: ReportParts;

  beforeAll(() => {
    if (!HAVE) return;
    dir = mkdtempSync(join(tmpdir(), 'cg-report-chromium-'));
    const { gantt, timeline } = schedule([8, 8, 8, 8, 16, 16], 160, 3);
    parts = {
      title: 'clustergym report (test)',
      intro: 'Synthetic data: learning curves, policy comparison, schedule & utilisation <escaped>.',
      tables: [
        {
          caption: 'Held-out evaluation',
          columns: ['policy', ...METRICS],
          rows: POLICIES.map((p) => [p.name, ...METRICS.map((m) => p.values[m] ?? null)]),
          highlight: 'ppo',
        },
      ],
      figures: [
        {
          file: 'learning_curve.svg',
          svg: learningCurveSvg(curves(), { smoothing: 0.6 }),
          title: 'Learning curve',
          caption: 'Mean return (left) and mean bsld (right) against env steps.',
        },
        {
          file: 'comparison.svg',
          svg: comparisonBarsSvg(POLICIES, METRICS, { highlight: 'ppo' }),
          title: 'Comparison',
          caption: 'One panel per metric; ppo outlined; best starred.',
        },
        { file: 'gantt.svg', svg: ganttSvg(gantt), title: 'Schedule', caption: 'Cores by time; MPI jobs across nodes hatched and joined.' },
        { file: 'utilisation.svg', svg: utilisationSvg(timeline), title: 'Utilisation', caption: 'Utilisation, queue length and power over time.' },
      ],
    };
    writeReport(dir, parts);
  });

  afterAll(() => {
    if (!dir) return;
    if (KEEP) console.info(`report and screenshot kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });

  // CI installs Debian's chromium (.ci/run): there the render checks must run, not skip.
  it.runIf(/^(1|true|yes)$/i.test(process.env.CI ?? ''))('CI has a Chromium to render the report with', () => {
    expect(HAVE).toBe(true);
  });

  it.skipIf(!HAVE)(`loads index.html with every SVG as an image and no page errors${SKIP}`, () => {
    const r = chromium(pathToFileURL(join(dir, 'index.html')).href, ['--dump-dom']);
    expect(r.console, 'page console output').toEqual([]);
    expect(r.stdout).toContain('<body data-images-ok="true">');
    const imgs = images(r.stdout);
    expect(imgs.map((i) => i.src)).toEqual(parts.figures.map((f) => f.file));
    imgs.forEach((img, k) => {
      // The browser sized each image from its SVG's width/height: it parsed and rendered.
      expect({ src: img.src, width: img.width, height: img.height }).toEqual({ src: img.src, ...svgSize(parts.figures[k]!.svg) });
    });
    expect(r.stdout).toContain('<tr class="highlight"><th scope="row">ppo</th>');
  });

  it.skipIf(!HAVE)(`parses each SVG opened on its own${SKIP}`, () => {
    for (const f of parts.figures) {
      const r = chromium(pathToFileURL(join(dir, f.file)).href, ['--dump-dom']);
      expect(r.stdout, f.file).not.toContain('parsererror');
      expect(r.stdout, f.file).toMatch(/^<svg\b/);
      expect(r.console, f.file).toEqual([]);
    }
  });

  it.skipIf(!HAVE)(`takes a non-blank screenshot of index.html${SKIP}`, () => {
    const png = join(dir, 'screenshot.png');
    chromium(pathToFileURL(join(dir, 'index.html')).href, [`--screenshot=${png}`, '--window-size=1200,900']);
    expect(existsSync(png)).toBe(true);
    // pngjs checks the signature and every chunk's CRC, and decodes to 8-bit RGBA.
    const img = PNG.sync.read(readFileSync(png));
    expect([img.width, img.height]).toEqual([1200, 900]);
    const s = pixelStats(img);
    // Text, table, axes and coloured curves: many colours, a fair share of ink, not a solid fill.
    expect(s.colours).toBeGreaterThan(100);
    expect(s.inked).toBeGreaterThan(0.02);
    expect(s.inked).toBeLessThan(0.95);
  });

  it.skipIf(!HAVE)(`detects a broken SVG (negative control)${SKIP}`, () => {
    const neg = join(dir, 'negative');
    writeReport(neg, {
      figures: [
        { file: 'ok.svg', svg: parts.figures[0]!.svg, title: 'ok', caption: 'ok' },
        { file: 'broken.svg', svg: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g></svg>', title: 'broken', caption: 'broken' },
      ],
    });
    const r = chromium(pathToFileURL(join(neg, 'index.html')).href, ['--dump-dom']);
    expect(r.stdout).toContain('<body data-images-ok="false">');
    expect(images(r.stdout).map((i) => [i.src, i.width > 0])).toEqual([
      ['ok.svg', true],
      ['broken.svg', false],
    ]);
    expect(r.stdout).toContain('Could not load: broken.svg');
    const alone = chromium(pathToFileURL(join(neg, 'broken.svg')).href, ['--dump-dom']);
    expect(alone.stdout).toContain('parsererror');
    writeFileSync(join(neg, 'error.html'), '<!DOCTYPE html><script>undefinedFunction()</script>');
    expect(chromium(pathToFileURL(join(neg, 'error.html')).href, ['--dump-dom']).console.join('\n')).toMatch(/Uncaught ReferenceError/);
  });
});

describe('the screenshot check', () => {
  // The screenshot test leans on pngjs and pixelStats: both must tell a real image from a broken one.
  it('pngjs decodes what it encodes and refuses a corrupted chunk; pixelStats counts by hand', () => {
    // 4 x 1 pixels: white, near-white (240, not ink), red, black: 4 colours, 2 of 4 inked
    const png = new PNG({ width: 4, height: 1 });
    png.data.set([255, 255, 255, 255, 240, 240, 240, 255, 255, 0, 0, 255, 0, 0, 0, 255]);
    const buf = PNG.sync.write(png);
    const img = PNG.sync.read(buf);
    expect([img.width, img.height]).toEqual([4, 1]);
    expect(pixelStats(img)).toEqual({ colours: 4, inked: 0.5 });
    // one bit of the IHDR chunk's CRC (bytes 29-32: after the signature, its length, type and 13 bytes of data)
    const bad = Buffer.from(buf);
    bad[32]! ^= 0x01;
    expect(() => PNG.sync.read(bad)).toThrow();
    expect(PNG.sync.read(bad, { checkCRC: false }).width).toBe(4); // the CRC alone refused it
  });
});
