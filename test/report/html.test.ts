import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatCell, reportIndexHtml, writeReport } from '../../src/report/html.js';
import { learningCurveSvg } from '../../src/report/learningCurve.js';
import { curves } from './fixtures.js';
import { checkSvg } from './svgCheck.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cg-report-'));
  dirs.push(d);
  return d;
};

describe('reportIndexHtml', () => {
  it('shows each SVG as a linked image with its caption, escaped', () => {
    const html = reportIndexHtml(
      [
        { title: 'Gantt <1>', svgFile: 'gantt.svg', caption: 'jobs & cores' },
        { title: 'odd', svgFile: 'sub dir/a"b.svg', caption: 'c', alt: 'alt "x"' },
      ],
      undefined,
      { title: 'R&D', intro: '<b>not bold</b>' },
    );
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<title>R&amp;D</title>');
    expect(html).toContain('<h2>Gantt &lt;1&gt;</h2>');
    expect(html).toContain(
      '<a href="gantt.svg" title="open the SVG on its own (tooltips, zoom)"><img class="figure" src="gantt.svg" alt="Gantt &lt;1&gt;"></a>',
    );
    expect(html).toContain('<figcaption>jobs &amp; cores</figcaption>');
    expect(html).toContain('src="sub%20dir/a%22b.svg" alt="alt &quot;x&quot;"');
    expect(html).toContain('<p class="intro">&lt;b&gt;not bold&lt;/b&gt;</p>');
    expect(html).not.toContain('<table>');
  });

  it('renders result tables with formatted numbers and a highlighted row', () => {
    const html = reportIndexHtml([], {
      caption: 'Held-out',
      columns: ['policy', 'mean_bsld', 'energy'],
      rows: [
        ['fcfs', 42.123456, 1.92e9],
        ['ppo', 11.8, null],
      ],
      highlight: 'ppo',
    });
    expect(html).toContain('<caption>Held-out</caption>');
    expect(html).toContain('<tr><th scope="row">fcfs</th><td class="num">42.12</td><td class="num">1,920,000,000</td></tr>');
    expect(html).toContain('<tr class="highlight"><th scope="row">ppo</th><td class="num">11.8</td><td></td></tr>');
  });

  it('formats table cells independently of the locale', () => {
    expect([formatCell(0.7123456), formatCell(-12345.6), formatCell(3), formatCell(0.00001234), formatCell(null), formatCell('x'), formatCell(NaN)]).toEqual([
      '0.7123',
      '-12,346',
      '3',
      '1.234e-5',
      '',
      'x',
      'NaN',
    ]);
  });
});

describe('writeReport', () => {
  it('writes the SVGs and index.html', () => {
    const dir = join(tmp(), 'report');
    const svg = learningCurveSvg(curves());
    const out = writeReport(dir, { title: 'T', figures: [{ file: 'curves/lc.svg', svg, title: 'LC', caption: 'c' }], tables: [] });
    expect(out).toEqual({ index: join(dir, 'index.html'), figures: [join(dir, 'curves/lc.svg')] });
    expect(readFileSync(out.figures[0]!, 'utf8')).toBe(svg);
    checkSvg(readFileSync(out.figures[0]!, 'utf8'));
    expect(readFileSync(out.index, 'utf8')).toContain('src="curves/lc.svg"');
  });

  it.each(['../x.svg', '/abs/x.svg', 'x.png', 'a/../../x.svg'])('refuses the figure path %s', (file) => {
    const dir = tmp();
    expect(() =>
      writeReport(dir, {
        figures: [
          { file: 'ok.svg', svg: '<svg/>', title: 't', caption: 'c' },
          { file, svg: '<svg/>', title: 't', caption: 'c' },
        ],
      }),
    ).toThrow(/writeReport: figure file .* must be a relative path/);
    expect(existsSync(join(dir, 'index.html')) || existsSync(join(dir, 'ok.svg'))).toBe(false);
  });
});
