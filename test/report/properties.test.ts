/**
 * Property tests (fast-check): whatever names, ids and numbers the plots get, including control
 * characters, lone surrogates, markup, NaN and infinities, every SVG stays well-formed with finite
 * geometry, and text comes back unchanged (up to U+FFFD for characters XML cannot carry, and CR read
 * as LF as XML reads line ends).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparisonBarsSvg } from '../../src/report/comparisonBars.js';
import { type GanttJob, ganttSvg } from '../../src/report/gantt.js';
import { learningCurveSvg } from '../../src/report/learningCurve.js';
import { utilisationSvg } from '../../src/report/utilisation.js';
import { checkSvg, findWhere } from './svgCheck.js';

const anyText = fc.string({ unit: 'binary', maxLength: 12 });
const anyNumber = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, 0, -0), fc.integer({ min: -1e6, max: 1e6 }));
/**
 * A string as an XML reader gets it back from the report: U+FFFD for the characters XML cannot carry,
 * and a carriage return (alone or before a line feed) read as a line feed, XML's end-of-line handling
 * (XML 1.0 §2.11): the report writes CR as it is, not as `&#13;`.
 */
const XML_SAFE = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/\r\n?/g, '\n');

describe('report plots on arbitrary input', () => {
  it('learning curves stay well-formed', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: anyText,
            points: fc.array(fc.record({ x: anyNumber, y: anyNumber }), { maxLength: 20 }),
            axis: fc.constantFrom<'left' | 'right'>('left', 'right'),
          }),
          { maxLength: 3 },
        ),
        fc.constantFrom(0, 0.5),
        (series, smoothing) => {
          checkSvg(learningCurveSvg(series, { smoothing }));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('comparison bars stay well-formed and keep policy names', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(anyText, { maxLength: 5 }),
        fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 3 }),
        fc.array(anyNumber, { minLength: 15, maxLength: 15 }),
        (names, metrics, nums) => {
          const rows = names.map((name, i) => ({ name, values: Object.fromEntries(metrics.map((m, k) => [m, nums[(i * 3 + k) % 15]!])) }));
          const root = checkSvg(comparisonBarsSvg(rows, metrics, { highlight: names[0] }));
          for (const n of names) expect(findWhere(root, (e) => e.name === 'text' && e.text === XML_SAFE(n)).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('Gantt charts stay well-formed and keep job ids', () => {
    const job = fc.record({
      id: anyText,
      type: fc.constantFrom<'seq' | 'mpi'>('seq', 'mpi'),
      start: fc.double({ min: 0, max: 1e6, noNaN: true }),
      len: fc.double({ min: 0, max: 1e5, noNaN: true }),
      cores: fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(fc.array(job, { maxLength: 15 }), (js) => {
        const jobs: GanttJob[] = js.map((j) => ({
          id: j.id,
          type: j.type,
          start: j.start,
          finish: j.start + j.len,
          cores: j.cores,
          nodes: [...new Set(j.cores.map((c) => c >> 2))],
        }));
        const nodes = [0, 1, 2].map((i) => ({ name: `n${i}`, firstCore: 4 * i, coreCount: 4 }));
        const root = checkSvg(ganttSvg({ coreCount: 12, nodes, jobs }));
        const drawn = findWhere(root, (e) => e.attrs['data-job'] !== undefined).map((e) => e.attrs['data-job']);
        expect(drawn).toEqual(jobs.filter((j) => j.cores.length > 0).map((j) => XML_SAFE(j.id)));
      }),
      { numRuns: 150 },
    );
  });

  it('utilisation plots stay well-formed', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ time: anyNumber, utilisation: anyNumber, queue: anyNumber, power: anyNumber }), { maxLength: 30 }), (rows) => {
        checkSvg(utilisationSvg(rows));
      }),
      { numRuns: 150 },
    );
  });
});
