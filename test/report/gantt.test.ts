import { describe, expect, it } from 'vitest';
import { type GanttInput, ganttJobsFromRecords, ganttNodesFromPlatform, ganttSvg, jobRuns } from '../../src/report/gantt.js';
import { hashColour } from '../../src/report/svg.js';
import { schedule } from './fixtures.js';
import { checkSvg, findAll, findWhere, num, type XmlElement } from './svgCheck.js';

/** 2 nodes x 2 cores; a seq job on core 0, then another, and an MPI job on cores 1 (node 0) and 2-3 (node 1). */
const TINY: GanttInput = {
  coreCount: 4,
  nodes: [
    { name: 'n0', firstCore: 0, coreCount: 2 },
    { name: 'n1', firstCore: 2, coreCount: 2 },
  ],
  jobs: [
    { id: 'a', type: 'seq', start: 0, finish: 50, cores: [0], nodes: [0] },
    { id: 'm', type: 'mpi', start: 20, finish: 100, cores: [3, 1, 2], nodes: [0, 1] },
    { id: 'b', type: 'seq', start: 50, finish: 100, cores: [0], nodes: [0], ntasks: 1 },
  ],
};
// width 500, right margin 16, left margin 84: the plot spans x 84..484 (400 px for 100 s, 4 px/s);
// rows are 10 px from y = 60, so core c is at y = 60 + 10 c.
const OPTS = { width: 500, rowHeight: 10, marginLeft: 84 };

function jobGroup(root: XmlElement, id: string): XmlElement {
  const g = findWhere(root, (e) => e.name === 'g' && e.attrs['data-job'] === id);
  expect(g).toHaveLength(1);
  return g[0]!;
}
const geom = (e: XmlElement) => ({ x: num(e, 'x'), y: num(e, 'y'), width: num(e, 'width'), height: num(e, 'height') });

describe('ganttSvg', () => {
  it('draws the hand-computed geometry of a 2-node, 4-core schedule', () => {
    const svg = ganttSvg(TINY, OPTS);
    const root = checkSvg(svg);
    expect(root.attrs).toMatchObject({ width: '500', height: '152', viewBox: '0 0 500 152' });

    const a = jobGroup(root, 'a');
    expect(a.attrs.class).toBe('job seq');
    expect(findAll(a, 'rect').map(geom)).toEqual([{ x: 84, y: 60, width: 200, height: 10 }]);
    expect(a.attrs.fill).toBe(hashColour('a'));

    const b = jobGroup(root, 'b');
    expect(findAll(b, 'rect').map(geom)).toEqual([{ x: 284, y: 60, width: 200, height: 10 }]);

    // The MPI job: one block per node (core 1 on n0; cores 2-3 merged on n1), hatched by one path.
    const m = jobGroup(root, 'm');
    expect(m.attrs.class).toBe('job mpi multi-node');
    expect(m.attrs.stroke).toBe('#111111');
    expect(m.attrs.fill).toBe(hashColour('m'));
    expect(findAll(m, 'rect').map(geom)).toEqual([
      { x: 164, y: 70, width: 320, height: 10 },
      { x: 164, y: 80, width: 320, height: 20 },
    ]);
    const hatch = findAll(m, 'path');
    expect(hatch.map((h) => [h.attrs.d, h.attrs.fill])).toEqual([['M164 70h320v10h-320ZM164 80h320v20h-320Z', 'url(#gantt-hatch)']]);
    // The connector at the middle of the run (t = 60 -> x = 324) joins the blocks' centres.
    const [line] = findAll(m, 'line');
    expect({ x1: num(line!, 'x1'), y1: num(line!, 'y1'), x2: num(line!, 'x2'), y2: num(line!, 'y2') }).toEqual({ x1: 324, y1: 75, x2: 324, y2: 90 });
    expect(findAll(m, 'circle').map((c) => [num(c, 'cx'), num(c, 'cy')])).toEqual([
      [324, 75],
      [324, 90],
    ]);
    expect(findAll(m, 'title')[0]!.text).toBe('job m · mpi · 3 tasks · 2 nodes (n0, n1)\nstart 20 s · finish 100 s · run 80 s');

    // Node boundary between n0 and n1 at core 2 (y = 80), from the core labels to the right edge.
    const bounds = findWhere(root, (e) => e.name === 'g' && e.attrs.class === 'node-boundaries')[0]!;
    const lines = findAll(bounds, 'line');
    expect(lines.map((l) => [num(l, 'x1'), num(l, 'y1'), num(l, 'x2'), num(l, 'y2')])).toEqual([[58, 80, 484, 80]]);
    expect(geom(findAll(bounds, 'rect')[0]!)).toEqual({ x: 84, y: 60, width: 400, height: 40 });
    // Node names and core numbers are labelled.
    const labels = findWhere(root, (e) => e.name === 'g' && e.attrs.class === 'node-labels')[0]!;
    expect(findAll(labels, 'text').map((t) => t.text)).toEqual(['n0', 'n1', '0', '1', '2', '3']);
  });

  it('clips bars to a time window', () => {
    const root = checkSvg(ganttSvg(TINY, { ...OPTS, timeRange: [25, 75] }));
    // 400 px for 50 s: 8 px/s. Job a (0..50) is cut to 25..50.
    expect(findAll(jobGroup(root, 'a'), 'rect').map(geom)).toEqual([{ x: 84, y: 60, width: 200, height: 10 }]);
    expect(findAll(jobGroup(root, 'b'), 'rect').map(geom)).toEqual([{ x: 284, y: 60, width: 200, height: 10 }]);
  });

  it('ends each core of a seq job at its own release time and merges runs of cores', () => {
    const input: GanttInput = {
      coreCount: 8,
      nodes: [{ name: 'n', firstCore: 0, coreCount: 8 }],
      jobs: [
        { id: 's', type: 'seq', start: 0, finish: 50, cores: [0, 1, 2], nodes: [0], releases: [25, 50, 50] },
        { id: 'p', type: 'mpi', start: 50, finish: 100, cores: [0, 1, 3, 4, 5], nodes: [0] },
      ],
    };
    const root = checkSvg(ganttSvg(input, OPTS));
    expect(findAll(jobGroup(root, 's'), 'rect').map(geom)).toEqual([
      { x: 84, y: 60, width: 100, height: 10 },
      { x: 84, y: 70, width: 200, height: 20 },
    ]);
    const p = jobGroup(root, 'p');
    // An MPI job on one node is outlined but not hatched and has no connector.
    expect(p.attrs.class).toBe('job mpi');
    expect(findAll(p, 'rect').map(geom)).toEqual([
      { x: 284, y: 60, width: 200, height: 20 },
      { x: 284, y: 90, width: 200, height: 30 },
    ]);
    expect(findAll(p, 'line')).toHaveLength(0);
    expect(jobRuns(input.jobs[0]!, 8)).toEqual([
      { first: 0, count: 1, node: -1, end: 25 },
      { first: 1, count: 2, node: -1, end: 50 },
    ]);
  });

  it('shades the last commTime seconds of a job limited by communication, and says so in its tooltip and the legend', () => {
    const input: GanttInput = {
      coreCount: 8,
      nodes: [{ name: 'n', firstCore: 0, coreCount: 8 }],
      jobs: [
        { id: 'p', type: 'mpi', start: 0, finish: 100, cores: [0, 1], nodes: [0], commTime: 25 },
        { id: 'q', type: 'mpi', start: 0, finish: 100, cores: [2, 3], nodes: [0] },
      ],
    };
    const svg = ganttSvg(input, OPTS);
    const root = checkSvg(svg);
    // 400 px for 100 s: 4 px/s; the shade covers 75..100 s, x = 84 + 300 = 384, 100 px wide, rows 0-1
    const shade = findAll(jobGroup(root, 'p'), 'path').filter((e) => e.attrs.class === 'comm');
    expect(shade.map((e) => e.attrs.d)).toEqual(['M384 60h100v20h-100Z']);
    expect(svg).toContain('communication-limited 25 s (25% of its run)');
    expect(svg).toContain('dark end: time limited by communication');
    expect(findAll(jobGroup(root, 'q'), 'path').filter((e) => e.attrs.class === 'comm')).toHaveLength(0);
    expect(ganttSvg({ ...input, jobs: [input.jobs[1]!] }, OPTS)).not.toContain('limited by communication');
  });

  it('escapes job ids and node names', () => {
    const id = `<j&"1'>\u0007`;
    const input: GanttInput = {
      coreCount: 2,
      nodes: [{ name: 'n<&>', firstCore: 0, coreCount: 2 }],
      jobs: [{ id, type: 'seq', start: 0, finish: 10, cores: [0, 1], nodes: [0] }],
    };
    const svg = ganttSvg(input, OPTS);
    expect(svg).not.toContain('<j&');
    expect(svg).toContain('data-job="&lt;j&amp;&quot;1&#39;&gt;\ufffd"');
    const root = checkSvg(svg);
    const g = jobGroup(root, `<j&"1'>\ufffd`);
    expect(findAll(g, 'title')[0]!.text.startsWith(`job <j&"1'>\ufffd · seq`)).toBe(true);
    expect(findWhere(root, (e) => e.name === 'text' && e.text === 'n<&>')).toHaveLength(1);
  });

  it('is deterministic', () => {
    const copy = structuredClone(TINY);
    expect(ganttSvg(copy, OPTS)).toBe(ganttSvg(TINY, OPTS));
    const big = schedule([8, 8, 16], 80, 5).gantt;
    expect(ganttSvg(big)).toBe(ganttSvg(structuredClone(big)));
  });

  it('rejects cores and nodes outside the machine, and jobs ending before they start', () => {
    const bad =
      (jobs: GanttInput['jobs'], nodes = TINY.nodes) =>
      () =>
        ganttSvg({ coreCount: 4, nodes, jobs });
    expect(bad([{ id: 'x', type: 'seq', start: 0, finish: 1, cores: [4], nodes: [1] }])).toThrow(/job "x" holds core 4, outside 0..3/);
    expect(bad([{ id: 'y', type: 'seq', start: 5, finish: 1, cores: [0], nodes: [0] }])).toThrow(/job "y" finishes \(1\) before it starts \(5\)/);
    expect(bad([{ id: 'z', type: 'seq', start: 0, finish: Infinity, cores: [0], nodes: [0] }])).toThrow(
      /job "z" has a non-finite start \(0\) or finish \(Infinity\)/,
    );
    expect(bad([{ id: 'r', type: 'seq', start: 5, finish: 9, cores: [0, 1], nodes: [0], releases: [9, 4] }])).toThrow(
      /job "r" releases core 1 at 4, before its start/,
    );
    expect(bad([], [{ name: 'big', firstCore: 2, coreCount: 4 }])).toThrow(/node 0 \(big\)/);
    expect(() => ganttSvg({ coreCount: 0, nodes: [], jobs: [] })).toThrow(/coreCount/);
  });

  it('skips jobs without cores and handles an empty schedule', () => {
    const root = checkSvg(ganttSvg({ ...TINY, jobs: [{ id: 'r', type: 'seq', start: 0, finish: 0, cores: [], nodes: [] }] }));
    expect(findWhere(root, (e) => e.attrs['data-job'] !== undefined)).toHaveLength(0);
  });

  it('scales to thousands of jobs on hundreds of cores with one rect per run of cores', () => {
    const { gantt } = schedule(
      Array.from({ length: 32 }, (_, i) => (i % 4 === 3 ? 16 : 8)),
      3000,
      11,
    );
    expect(gantt.coreCount).toBe(320);
    const t = performance.now();
    const svg = ganttSvg(gantt);
    const ms = performance.now() - t;
    const root = checkSvg(svg);
    expect(ms).toBeLessThan(3000);
    // Size stays proportional to the jobs (not to jobs x cores).
    expect(svg.length).toBeLessThan(3000 * 700);
    const groups = findWhere(root, (e) => e.name === 'g' && e.attrs['data-job'] !== undefined);
    expect(groups).toHaveLength(3000);
    const rowH = Math.max(1.5, Math.min(14, 640 / 320));
    let rects = 0;
    let coresHeld = 0;
    for (const g of groups) {
      const job = gantt.jobs[Number(g.attrs['data-job']) - 1]!;
      const own = findAll(g, 'rect');
      rects += own.length;
      // The job's blocks cover exactly its cores.
      const rows = own.reduce((s, r) => s + num(r, 'height') / rowH, 0);
      expect(Math.round(rows)).toBe(job.cores.length);
      coresHeld += job.cores.length;
      const multi = job.type === 'mpi' && job.nodes.length > 1;
      expect(g.attrs.class!.includes('multi-node')).toBe(multi);
      expect(findAll(g, 'path')).toHaveLength(multi ? 1 : 0);
      expect(findAll(g, 'circle')).toHaveLength(multi ? job.nodes.length : 0);
    }
    expect(rects).toBeLessThan(coresHeld / 2);
  });

  it('adapts compiled platforms and simulator job records', () => {
    const nodes = ganttNodesFromPlatform({
      coreCount: 4,
      nodeName: ['x', 'y'],
      nodeFirstCore: Int32Array.from([0, 2]),
      nodeCoreCount: Int32Array.from([2, 2]),
    });
    expect(nodes).toEqual(TINY.nodes.map((n, i) => ({ ...n, name: ['x', 'y'][i] })));
    // Names repeated across clusters are qualified with the cluster.
    const dup = ganttNodesFromPlatform({
      coreCount: 4,
      nodeName: ['node0', 'node0'],
      nodeFirstCore: [0, 2],
      nodeCoreCount: [2, 2],
      clusterNames: ['edge', 'core'],
      nodeCluster: [0, 1],
    });
    expect(dup.map((n) => n.name)).toEqual(['edge/node0', 'core/node0']);
    const jobs = ganttJobsFromRecords([
      {
        job: { id: 'ok', type: 'seq', ntasks: 2 },
        start: 1,
        finish: 5,
        state: 'finished',
        cores: Int32Array.from([0, 1]),
        nodes: Int32Array.from([0]),
        releases: Float64Array.from([3, 5]),
      },
      { job: { id: 'rej', type: 'mpi', ntasks: 9 }, start: 0, finish: 0, state: 'rejected', cores: new Int32Array(0), nodes: new Int32Array(0) },
    ]);
    expect(jobs.map((j) => j.id)).toEqual(['ok']);
    const root = checkSvg(ganttSvg({ coreCount: 4, nodes, jobs }, OPTS));
    expect(findAll(jobGroup(root, 'ok'), 'rect')).toHaveLength(2);
  });
});
