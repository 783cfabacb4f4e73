/**
 * Resource selection on a small heterogeneous platform: the cores each policy picks, by hand.
 *
 *   node  processors (cores x MOPS, busy-core power = static/cores + dynamic)   peak power  memory
 *   n0    4 x 2000, 20/4 + 10 = 15 W                                           4 x 15 = 60   16 GB   cores 0-3
 *   n1    4 x 3000, 40/4 + 20 = 30 W                                          4 x 30 = 120    8 GB   cores 4-7
 *   n2    2 x 1000, 4/2 + 2 = 4 W   |  2 x 3500, 20/2 + 10 = 20 W     2 x 4 + 2 x 20 = 48   32 GB   cores 8-9 | 10-11
 *   n3    8 x 2500, 16/8 + 3 = 5 W                                             8 x 5 = 40   64 GB   cores 12-19
 */
import { describe, expect, it } from 'vitest';
import { derive, PythonRandom } from '../../src/core/rng.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { placeInOrder, type NodeFit } from '../../src/scheduling/placement.js';
import { firstPolicy, makeResourcePolicy, RandomPolicy, RESOURCE_SELECTION_NAMES, type ResourceSelectionName } from '../../src/scheduling/resourceSelection.js';
import { makeJob, type Job } from '../../src/workload/job.js';

const CONTENTION = { b: -1.85e-5, c: 32000, da: 1.75, db: 2000, dc: 50000, dd: 6000 };

function hetero(memory: 'none' | 'irmasim-v1' = 'none'): Platform {
  const proc = (cores: number, clock: number, stat: number, dyn: number) => ({
    cores,
    clock_rate: clock,
    dpflops_per_cycle: 1,
    static_power: stat,
    dynamic_power: dyn,
    ...CONTENTION,
  });
  return parsePlatform(
    {
      name: 'hetero-4',
      models: { memory, comm: 'shared' },
      clusters: [
        {
          nodes: [
            { memory_gb: 16, processors: [proc(4, 2.0, 20, 10)] },
            { memory_gb: 8, processors: [proc(4, 3.0, 40, 20)] },
            { memory_gb: 32, processors: [proc(2, 1.0, 4, 2), proc(2, 3.5, 20, 10)] },
            { memory_gb: 64, processors: [proc(8, 2.5, 16, 3)] },
          ],
        },
      ],
    },
    'hetero-4',
  );
}

const seqJob = (n: number, fields: Partial<Job> = {}) => makeJob({ id: `s${n}`, subtime: 0, ntasks: n, runtime: 10, type: 'seq', nodes: 1, ...fields });
const mpiJob = (n: number, fields: Partial<Job> = {}) => makeJob({ id: `m${n}`, subtime: 0, ntasks: n, runtime: 10, ...fields });

/** A simulator at t=0 with `busy` already started (each [job, cores]). */
function simWith(platform: Platform, busy: [Job, number[]][] = []): ClusterSimulator {
  const sim = new ClusterSimulator(
    platform,
    busy.map(([j]) => j),
  );
  sim.advance();
  for (const [j, cores] of busy) sim.startJob(j, cores);
  return sim;
}

function place(name: ResourceSelectionName, job: Job, sim = simWith(hetero()), fit: NodeFit = 'first_fit'): number[] | null {
  const cores = makeResourcePolicy(name, derive(3, 'policy')).place(sim, job, fit);
  return cores ? Array.from(cores) : null;
}

describe('static orders', () => {
  it('first: node ids as strings (here node0..node3, the platform order)', () => {
    expect(place('first', seqJob(2))).toEqual([0, 1]);
    expect(place('first', mpiJob(6))).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('high_gflops: by the first processor (n1 3000, n3 2500, n0 2000, n2 1000), cores by id', () => {
    expect(place('high_gflops', seqJob(2))).toEqual([4, 5]);
    expect(place('high_gflops', seqJob(3))).toEqual([4, 5, 6]);
    expect(place('high_gflops', mpiJob(8))).toEqual([4, 5, 6, 7, 12, 13, 14, 15]);
    expect(place('high_gflops', seqJob(5))).toEqual([12, 13, 14, 15, 16]); // only n3 has 5 cores
  });

  it('low_power: by peak power, sum of dynamic + static/cores (n3 40 W, n2 48, n0 60, n1 120)', () => {
    expect(place('low_power', seqJob(2))).toEqual([12, 13]);
    expect(place('low_power', mpiJob(6))).toEqual([12, 13, 14, 15, 16, 17]);
    expect(place('low_power', mpiJob(10))).toEqual([12, 13, 14, 15, 16, 17, 18, 19, 8, 9]);
  });

  it('low_core_power: the cheapest busy core (n2 4 W, n3 5, n0 15, n1 30); inside n2 the 4 W processor first', () => {
    expect(place('low_core_power', seqJob(2))).toEqual([8, 9]);
    expect(place('low_core_power', mpiJob(6))).toEqual([8, 9, 10, 11, 12, 13]);
  });

  it('platform: node index order', () => {
    expect(place('platform', seqJob(2))).toEqual([0, 1]);
  });

  it('static orders follow the free state through the engine-maintained tree', () => {
    const sim = simWith(hetero(), [[mpiJob(4, { id: 'busy' }), [4, 5, 6, 7]]]); // n1 busy: high_gflops goes to n3
    expect(place('high_gflops', seqJob(2), sim)).toEqual([12, 13]);
    const sim2 = simWith(hetero(), [[mpiJob(8, { id: 'busy' }), [12, 13, 14, 15, 16, 17, 18, 19]]]); // n3 busy: low_power goes to n2
    expect(place('low_power', seqJob(2), sim2)).toEqual([8, 9]);
  });

  it('first sorts ids as strings, as IRMaSim does: node10 before node2', () => {
    const nodes = Array.from({ length: 12 }, () => ({ memory_gb: 8, processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1 }] }));
    const p = parsePlatform({ name: 'twelve', clusters: [{ nodes }] }, 'twelve');
    const sim = simWith(p);
    // node0, node1, node10, node11, node2, ...: the third node in that order is node10 (index 10)
    expect(place('first', mpiJob(4), sim)).toEqual([0, 1, 10, 11]);
    expect(place('platform', mpiJob(4), sim)).toEqual([0, 1, 2, 3]);
  });
});

describe('dynamic orders', () => {
  it('high_cores: the node with the most free cores (ties: platform order)', () => {
    expect(place('high_cores', seqJob(2))).toEqual([12, 13]); // n3 has 8
    const sim = simWith(hetero(), [[mpiJob(6, { id: 'busy' }), [12, 13, 14, 15, 16, 17]]]);
    expect(place('high_cores', seqJob(2), sim)).toEqual([0, 1]); // n0, n1, n2 have 4, n3 2
    // spilling: nodes by free cores descending: n0 (4), n1 (4), n2 (4), n3 (2)
    expect(place('high_cores', mpiJob(9), sim)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('low_cores: the node with the fewest free cores that still fits', () => {
    expect(place('low_cores', seqJob(2))).toEqual([0, 1]); // n0, n1, n2 have 4 (platform order), n3 8
    const sim = simWith(hetero(), [[mpiJob(2, { id: 'busy' }), [0, 1]]]);
    expect(place('low_cores', seqJob(2), sim)).toEqual([2, 3]); // n0 has 2 left, the fewest
    expect(place('low_cores', seqJob(3), sim)).toEqual([4, 5, 6]); // n0 no longer fits: n1 (4)
  });

  it("high_mem: the node with the most memory IN USE (IRMaSim's code)", () => {
    expect(place('high_mem', seqJob(1))).toEqual([0]); // nothing in use: platform order
    const sim = simWith(hetero(), [[mpiJob(1, { id: 'big', mem: 40 * 1024 }), [12]]]);
    expect(place('high_mem', seqJob(1), sim)).toEqual([13]); // n3 holds 40 GB
  });

  it("high_free_mem: the node with the most free memory (IRMaSim's documented intent)", () => {
    expect(place('high_free_mem', seqJob(1))).toEqual([12]); // n3: 64 GB
    // a task holding 40 GB on n3 leaves it 24 GB: n2 (32 GB) comes first
    const sim = simWith(hetero(), [[mpiJob(1, { id: 'big', mem: 40 * 1024 }), [12]]]);
    expect(place('high_free_mem', seqJob(1), sim)).toEqual([8]);
  });

  it('high_mem_bw: the node whose FIRST processor carries the least memory traffic', () => {
    const platform = hetero('irmasim-v1');
    const hog = (id: string) => makeJob({ id, subtime: 0, ntasks: 1, runtime: 0, work: 'ops', ops: 1e12, memVol: 1e6, type: 'mpi' });
    const sim = simWith(platform, [[hog('hog'), [0]]]);
    expect(sim.procMemLoad[0]).toBeGreaterThan(0);
    // n0 carries traffic; n1, n2, n3 none: n1 first (platform order among equals)
    expect(place('high_mem_bw', seqJob(1), sim)).toEqual([4]);
    // traffic on n2's second processor only: every first processor is idle, platform order
    expect(place('high_mem_bw', seqJob(1), simWith(platform, [[hog('hog2'), [10]]]))).toEqual([0]);
    // the bandwidth is tracked under memory model none as well (it is a request, not a slowdown)
    const none = simWith(hetero('none'), [[hog('hog3'), [0]]]);
    expect(place('high_mem_bw', seqJob(1), none)).toEqual([4]);
  });

  it('random: a seeded choice among the nodes that fit', () => {
    const sim = simWith(hetero(), [[mpiJob(4, { id: 'busy' }), [0, 1, 2, 3]]]);
    const picks = new Set<string>();
    const policy = makeResourcePolicy('random', derive(5, 'policy'));
    for (let i = 0; i < 40; i++) {
      const c = Array.from(policy.place(sim, seqJob(3), 'first_fit')!);
      const node = sim.platform.coreNode[c[0]!]!;
      expect(c.every((x) => sim.platform.coreNode[x] === node)).toBe(true);
      expect(node).not.toBe(0); // n0 is busy
      picks.add(String(node));
    }
    expect(picks).toEqual(new Set(['1', '2', '3']));
    const again = makeResourcePolicy('random', derive(5, 'policy'));
    const first = makeResourcePolicy('random', derive(5, 'policy'));
    expect(Array.from(again.place(sim, mpiJob(7), 'first_fit')!)).toEqual(Array.from(first.place(sim, mpiJob(7), 'first_fit')!));
  });

  it('random shuffles the viable nodes at every attempt, even one that fails (IRMaSim draws then too)', () => {
    const sim = simWith(hetero());
    const r1 = new PythonRandom(3);
    const r2 = new PythonRandom(3);
    expect(new RandomPolicy(r1).place(sim, seqJob(9), 'first_fit')).toBeNull(); // no node has 9 cores: nothing viable, no draw
    expect(new RandomPolicy(r1).place(sim, mpiJob(30), 'first_fit')).toBeNull(); // 4 viable nodes shuffled, then too big
    r2.shuffle([0, 1, 2, 3]);
    expect(r1.next()).toBe(r2.next());
  });
});

describe('placement rules shared by every policy', () => {
  it('seq jobs use one node; mpi jobs with nodes use exactly that many; memory is respected', () => {
    for (const name of RESOURCE_SELECTION_NAMES) {
      const sim = simWith(hetero());
      const s = place(name, seqJob(4), sim)!;
      expect(new Set(s.map((c) => sim.platform.coreNode[c])).size).toBe(1);
      const m = place(name, mpiJob(4, { nodes: 2, ntasksPerNode: 2 }), sim)!;
      expect(new Set(m.map((c) => sim.platform.coreNode[c])).size).toBe(2);
      // 5 GB per task: n1 (8 GB) holds one task, n0 (16) three, n2 (32) four, n3 (64) eight
      const heavy = place(name, seqJob(4, { mem: 5 * 1024 }), sim)!;
      expect([2, 3]).toContain(sim.platform.coreNode[heavy[0]!]);
      expect(place(name, seqJob(9), sim)).toBeNull();
    }
  });

  it('a placement limit keeps cores for a reservation', () => {
    const sim = simWith(hetero());
    const limit = { cores: (n: number) => (n === 0 ? 1 : Infinity), mem: () => Infinity };
    expect(Array.from(firstPolicy.place(sim, seqJob(2), 'first_fit', limit)!)).toEqual([4, 5]);
    expect(Array.from(firstPolicy.place(sim, mpiJob(3), 'first_fit', limit)!)).toEqual([0, 4, 5]);
    // the same through placeInOrder with an explicit order
    const order = { next: (from: number, k: number) => (from <= 0 && sim.nodeFree[3]! >= k ? 0 : -1), node: () => 3 };
    expect(Array.from(placeInOrder(sim, seqJob(2), 'first_fit', order)!)).toEqual([12, 13]);
  });
});
