import { describe, expect, it } from 'vitest';
import { type ComparisonRow, comparisonBarsSvg, resolveMetric } from '../../src/report/comparisonBars.js';
import { learningCurveSvg, smoothSeries } from '../../src/report/learningCurve.js';
import { stepPath, timeWeightedMean, utilisationSvg } from '../../src/report/utilisation.js';
import { paletteColour } from '../../src/report/svg.js';
import { curves, METRICS, POLICIES, schedule } from './fixtures.js';
import { checkSvg, findAll, findWhere, num, type XmlElement } from './svgCheck.js';

const byClass = (root: XmlElement, cls: string) => findWhere(root, (e) => e.attrs.class === cls);

describe('learningCurveSvg', () => {
  it('smooths exponentially with debiasing', () => {
    expect(smoothSeries([1, 3], 0.5)).toEqual([1, (0.5 * 0.5 + 0.5 * 3) / 0.75]);
    // A constant series stays constant (debiasing), and non-finite values pass through.
    const s = smoothSeries([4, NaN, 4], 0.9);
    expect(s[0]).toBeCloseTo(4, 12);
    expect(s[1]).toBeNaN();
    expect(s[2]).toBeCloseTo(4, 12);
    expect(smoothSeries([1, 2], 0)).toEqual([1, 2]);
    expect(() => smoothSeries([1], 1)).toThrow(RangeError);
  });

  it('draws each series on its axis, with axes, ticks, legend and title', () => {
    const root = checkSvg(learningCurveSvg(curves(), { title: 'PPO on Job-v0', smoothing: 0.6 }));
    expect(root.children[0]!.text).toBe('PPO on Job-v0');
    // Two y axes (left, right) and one x axis, each with tick labels.
    expect(byClass(root, 'y-axis')).toHaveLength(2);
    const x = byClass(root, 'x-axis')[0]!;
    expect(findAll(x, 'text').map((t) => t.text)).toEqual(['0', '20k', '40k', '60k', '80k', '100k', '120k', '140k', 'env steps']);
    expect(findAll(byClass(root, 'legend')[0]!, 'text').map((t) => t.text)).toEqual(['mean return (left)', 'mean bsld (right)']);
    // Raw (faint) and smoothed path per series.
    const curvesG = byClass(root, 'curve');
    expect(curvesG.map((g) => findAll(g, 'path').length)).toEqual([2, 2]);
    expect(findAll(curvesG[0]!, 'path')[1]!.attrs.stroke).toBe(paletteColour(0));
  });

  it('maps points exactly and breaks lines at non-finite values', () => {
    // width 400: plot x from 76 to 376 (24 px right margin); the x axis widens to [0, 4].
    const svg = learningCurveSvg(
      [
        {
          name: 's',
          points: [
            { x: 0, y: 0 },
            { x: 1, y: 10 },
            { x: 2, y: NaN },
            { x: 4, y: 10 },
          ],
        },
      ],
      { width: 400, height: 300 },
    );
    const root = checkSvg(svg);
    const d = findAll(byClass(root, 'curve')[0]!, 'path')[0]!.attrs.d!;
    const moves = d.match(/M/g)!.length;
    expect(moves).toBe(2);
    const xs = [...d.matchAll(/[ML]([\d.]+) /g)].map((m) => Number(m[1]));
    expect(xs).toEqual([76, 151, 376]);
  });

  it('shows "no data" for empty series and stays well-formed', () => {
    const root = checkSvg(learningCurveSvg([{ name: 'empty <x>', points: [] }]));
    expect(findWhere(root, (e) => e.name === 'text' && e.text === 'no data')).toHaveLength(1);
  });
});

describe('comparisonBarsSvg', () => {
  it('draws one panel per metric, bars proportional to values, best starred, highlight outlined', () => {
    const rows: ComparisonRow[] = [
      { name: 'fcfs', values: { mean_bsld: 40, utilisation: 0.5 } },
      { name: 'ppo', values: { mean_bsld: 10, utilisation: 0.75 } },
      { name: 'odd', values: { mean_bsld: 20 } },
    ];
    const root = checkSvg(comparisonBarsSvg(rows, ['mean_bsld', 'utilisation'], { highlight: 'ppo' }));
    const panels = byClass(root, 'panel');
    expect(panels).toHaveLength(2);
    const bars = (p: XmlElement) => findAll(p, 'rect');
    const [b0, b1, b2] = bars(panels[0]!);
    // Same baseline, heights in proportion 40 : 10 : 20.
    const bottom = (r: XmlElement) => num(r, 'y') + num(r, 'height');
    expect(bottom(b0!)).toBeCloseTo(bottom(b1!), 1);
    expect(num(b0!, 'height') / num(b1!, 'height')).toBeCloseTo(4, 1);
    expect(num(b2!, 'height') / num(b1!, 'height')).toBeCloseTo(2, 1);
    expect(b1!.attrs.stroke).toBe('#111');
    expect(b0!.attrs['fill-opacity']).toBe('0.6');
    const texts = (p: XmlElement) => findAll(p, 'text').map((t) => t.text);
    expect(texts(panels[0]!)).toEqual(expect.arrayContaining(['mean bounded slowdown', 'lower is better', '40', '\u2605 10', '20']));
    // Utilisation: percentages, higher is better, the missing value shown as n/a.
    expect(texts(panels[1]!)).toEqual(expect.arrayContaining(['utilisation', 'higher is better', '50%', '\u2605 75%', 'n/a']));
    expect(bars(panels[1]!)).toHaveLength(2);
  });

  it('resolves metric labels and escapes names', () => {
    expect(resolveMetric('mean_wait')).toEqual({ key: 'mean_wait', label: 'mean wait (s)', percent: false, better: 'lower' });
    expect(resolveMetric({ key: 'x', label: 'X', better: 'higher' })).toEqual({ key: 'x', label: 'X', percent: false, better: 'higher' });
    const svg = comparisonBarsSvg([{ name: '<p&"1">', values: { m: 1 } }], [{ key: 'm<' }]);
    expect(svg).not.toContain('<p&');
    const root = checkSvg(svg);
    expect(findWhere(root, (e) => e.name === 'text' && e.text === '<p&"1">').length).toBeGreaterThan(0);
  });

  it('renders the evaluation table deterministically', () => {
    const a = comparisonBarsSvg(POLICIES, METRICS, { highlight: 'ppo' });
    expect(comparisonBarsSvg(structuredClone(POLICIES), [...METRICS], { highlight: 'ppo' })).toBe(a);
    checkSvg(a);
  });
});

describe('utilisationSvg', () => {
  it('builds exact step paths', () => {
    expect(
      stepPath(
        [0, 10, 20],
        [1, 0.5, 0],
        (t) => t * 2,
        (v) => v * 100,
        100,
      ),
    ).toBe('M0 100H20V50H40V0');
    expect(
      stepPath(
        [],
        [],
        (t) => t,
        (v) => v,
        10,
      ),
    ).toBe('');
  });

  it('merges rows that fall into one pixel column', () => {
    const n = 100_000;
    const ts = Array.from({ length: n }, (_, i) => i);
    const vs = ts.map((i) => (i % 7) / 6);
    const d = stepPath(
      ts,
      vs,
      (t) => (t / n) * 500,
      (v) => 100 - v * 100,
      500,
    );
    expect(d.match(/H/g)!.length).toBeLessThanOrEqual(501);
    // Every column shows the full range of values in it.
    expect(d).toContain('V0V100');
  });

  it('computes time-weighted means', () => {
    expect(timeWeightedMean([0, 10, 20], [100, 200, 0])).toBe(150);
    expect(timeWeightedMean([5], [3])).toBe(3);
  });

  it('draws three panels with summaries (mean utilisation, peak queue, energy)', () => {
    const rows = [
      { time: 0, utilisation: 0.5, queue: 2, power: 100 },
      { time: 10, utilisation: 1, queue: 0, power: 200 },
      { time: 20, utilisation: 0, queue: 0, power: 0 },
    ];
    const root = checkSvg(utilisationSvg(rows, { width: 476 }));
    const panels = findWhere(root, (e) => e.name === 'g' && (e.attrs.class ?? '').startsWith('panel'));
    expect(panels.map((p) => p.attrs.class)).toEqual(['panel utilisation', 'panel queue', 'panel power']);
    const heads = panels.map((p) => findAll(p, 'text')[0]!.text);
    expect(heads).toEqual([
      'utilisation (time-weighted mean 75%)',
      'queue length (jobs waiting; mean 1, peak 2)',
      'power (mean 150 W, peak 200 W, energy 3000 J)',
    ]);
    // Plot x from 76 to 456 over 0..20 s (19 px/s); utilisation panel y from 64 (100%) to 204 (0%).
    const [area, line] = findAll(panels[0]!, 'path');
    expect(line!.attrs.d).toBe('M76 134H266V64H456V204');
    expect(area!.attrs.d).toBe('M76 134H266V64H456V204V204H76Z');
    const yTicks = findAll(findWhere(panels[0]!, (e) => e.attrs.class === 'y-axis')[0]!, 'text').map((t) => t.text);
    expect(yTicks).toEqual(['0%', '20%', '40%', '60%', '80%', '100%', 'busy cores']);
  });

  it('handles empty input and a long fixture timeline', () => {
    checkSvg(utilisationSvg([]));
    const { timeline } = schedule([8, 8, 16], 300, 2);
    const svg = utilisationSvg(timeline, { panels: ['utilisation', 'power'] });
    expect(svg).toBe(utilisationSvg(structuredClone(timeline), { panels: ['utilisation', 'power'] }));
    const root = checkSvg(svg);
    expect(findWhere(root, (e) => (e.attrs.class ?? '').startsWith('panel '))).toHaveLength(2);
  });
});
