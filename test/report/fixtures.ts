/**
 * Synthetic but realistic inputs for the report tests: a small heterogeneous cluster, a job stream
 * placed by a tiny FCFS list scheduler (so the Gantt chart has no overlaps and MPI jobs really
 * span nodes), the timeline that schedule produces, learning curves and a policy table. All of it
 * comes from a seeded generator, so the tests are deterministic.
 */
import type { ComparisonRow } from '../../src/report/comparisonBars.js';
import type { GanttInput, GanttJob, GanttNode } from '../../src/report/gantt.js';
import type { CurveSeries } from '../../src/report/learningCurve.js';
import type { UtilisationRow } from '../../src/report/utilisation.js';

/** Mulberry32: a small seeded generator in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nodes of `sizes[i]` cores each, named `prefix + i`. */
export function makeNodes(sizes: number[], prefix = 'node'): GanttNode[] {
  let first = 0;
  return sizes.map((n, i) => {
    const node = { name: `${prefix}${String(i).padStart(2, '0')}`, firstCore: first, coreCount: n };
    first += n;
    return node;
  });
}

/**
 * Places `jobCount` jobs FCFS (each as soon as enough cores are free; `seq` jobs on one node, `mpi`
 * jobs on the earliest-free cores anywhere) and returns the Gantt input and the timeline.
 */
export function schedule(nodeSizes: number[], jobCount: number, seed = 1): { gantt: GanttInput; timeline: UtilisationRow[] } {
  const r = rng(seed);
  const nodes = makeNodes(nodeSizes);
  const coreCount = nodeSizes.reduce((a, b) => a + b, 0);
  const coreNode: number[] = [];
  nodes.forEach((n, i) => {
    for (let c = 0; c < n.coreCount; c++) coreNode.push(i);
  });
  const free = new Array<number>(coreCount).fill(0);
  const jobs: GanttJob[] = [];
  const maxNode = Math.max(...nodeSizes);
  let submit = 0;
  const submits: number[] = [];
  for (let k = 0; k < jobCount; k++) {
    submit += r() * 40;
    submits.push(submit);
    const mpi = r() < 0.3;
    const ntasks = mpi ? 2 + Math.floor(r() * Math.min(coreCount / 2, maxNode * 2)) : 1 + Math.floor(r() * Math.min(8, maxNode));
    const run = 20 + r() ** 2 * 900;
    let cores: number[];
    let start: number;
    if (mpi) {
      const order = [...free.keys()].sort((a, b) => free[a]! - free[b]! || a - b);
      cores = order.slice(0, ntasks).sort((a, b) => a - b);
      start = Math.max(submit, ...cores.map((c) => free[c]!));
    } else {
      let best: { start: number; cores: number[] } | null = null;
      for (const n of nodes) {
        if (n.coreCount < ntasks) continue;
        const ids = Array.from({ length: n.coreCount }, (_, i) => n.firstCore + i).sort((a, b) => free[a]! - free[b]! || a - b);
        const pick = ids.slice(0, ntasks);
        const s = Math.max(submit, ...pick.map((c) => free[c]!));
        if (!best || s < best.start) best = { start: s, cores: pick.sort((a, b) => a - b) };
      }
      start = best!.start;
      cores = best!.cores;
    }
    start = Math.round(start * 10) / 10;
    const finish = Math.round((start + run) * 10) / 10;
    for (const c of cores) free[c] = finish;
    const nodeIds = [...new Set(cores.map((c) => coreNode[c]!))].sort((a, b) => a - b);
    jobs.push({ id: String(k + 1), type: mpi ? 'mpi' : 'seq', start, finish, cores, nodes: nodeIds, ntasks: cores.length });
  }
  // Timeline: busy cores at each change point (queue: jobs submitted but not started).
  const times = [...new Set(jobs.flatMap((j) => [j.start, j.finish]).concat([0], submits))].sort((a, b) => a - b);
  const timeline: UtilisationRow[] = times.map((t) => {
    let busy = 0;
    let queue = 0;
    jobs.forEach((j, k) => {
      if (j.start <= t && t < j.finish) busy += j.cores.length;
      if (submits[k]! <= t && t < j.start) queue++;
    });
    const u = busy / coreCount;
    return { time: t, utilisation: u, queue, power: 1800 + 9000 * u };
  });
  return { gantt: { coreCount, nodes, jobs }, timeline };
}

/** Learning curves over `n` evaluation points: mean return rising, mean bsld falling, with noise. */
export function curves(n = 60, seed = 7): CurveSeries[] {
  const r = rng(seed);
  const ret: { x: number; y: number }[] = [];
  const bsld: { x: number; y: number }[] = [];
  for (let i = 0; i < n; i++) {
    const x = (i + 1) * 2048;
    ret.push({ x, y: -40 + 32 * (1 - Math.exp(-i / 15)) + (r() - 0.5) * 8 });
    bsld.push({ x, y: 40 - 30 * (1 - Math.exp(-i / 12)) + (r() - 0.5) * 6 });
  }
  return [
    { name: 'mean return', points: ret },
    { name: 'mean bsld', points: bsld, axis: 'right' },
  ];
}

/** A policy table like `evaluation.json`'s. */
export const POLICIES: ComparisonRow[] = [
  { name: 'fcfs', values: { mean_bsld: 42.1, mean_wait: 5120, utilisation: 0.712, makespan: 182_400, energy: 1.92e9 } },
  { name: 'sjf', values: { mean_bsld: 18.7, mean_wait: 2210, utilisation: 0.734, makespan: 179_900, energy: 1.9e9 } },
  { name: 'f1', values: { mean_bsld: 15.2, mean_wait: 1980, utilisation: 0.738, makespan: 178_100, energy: 1.89e9 } },
  { name: 'easy-fcfs', values: { mean_bsld: 21.4, mean_wait: 2630, utilisation: 0.781, makespan: 171_300, energy: 1.85e9 } },
  { name: 'easy-sjf', values: { mean_bsld: 12.9, mean_wait: 1700, utilisation: 0.784, makespan: 170_800, energy: 1.85e9 } },
  { name: 'ppo', values: { mean_bsld: 11.8, mean_wait: 1650, utilisation: 0.779, makespan: 171_900, energy: 1.86e9 } },
];

/** The metrics of DESIGN §7's evaluation table. */
export const METRICS = ['mean_bsld', 'mean_wait', 'utilisation', 'makespan', 'energy'];
