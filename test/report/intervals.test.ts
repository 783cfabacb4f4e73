/** `intervalsSvg`: one whisker per row on a shared axis, the point inside its interval, 0 marked (coordinates are written to 0.01 px). */
import { describe, expect, it } from 'vitest';
import { intervalsSvg } from '../../src/report/intervals.js';
import { checkSvg, findAll, num } from './svgCheck.js';

describe('intervalsSvg', () => {
  it('draws each row as whisker and point, positions linear in the value, and a dashed line at 0', () => {
    const root = checkSvg(
      intervalsSvg(
        [
          { name: 'ppo', value: -0.1, lo: -0.2, hi: 0, colour: '#d62728', bold: true },
          { name: 'f1', value: 0, lo: 0, hi: 0 },
          { name: 'sjf', value: 0.3, lo: 0.1, hi: 0.5 },
        ],
        { title: 't', percent: true, axisLabel: 'difference' },
      ),
    );
    const points = findAll(root, 'circle');
    expect(points).toHaveLength(3);
    const x = points.map((c) => num(c, 'cx'));
    // linear: (x(0.3) - x(0)) = 3 (x(0) - x(-0.1))
    expect(x[2]! - x[1]!).toBeCloseTo(3 * (x[1]! - x[0]!), 1);
    const zero = findAll(root, 'line').find((l) => l.attrs['stroke-dasharray'] !== undefined)!;
    expect(num(zero, 'x1')).toBeCloseTo(x[1]!, 1);
    // the first row's whisker spans [-0.2, 0]: its ends are 2 and 0 steps of 0.1 from the point's left
    const whisker = findAll(root, 'line').find((l) => l.attrs.stroke === '#d62728' && num(l, 'y1') === num(l, 'y2'))!;
    expect(num(whisker, 'x1')).toBeCloseTo(x[0]! - (x[1]! - x[0]!), 1);
    expect(num(whisker, 'x2')).toBeCloseTo(x[1]!, 1);
  });
});
