/**
 * The Slurm preset with whole-node allocation (`nodeSelect`, issue 42) and memory requests: on random workloads
 * (`--mem`, `--mem-per-cpu`, both together, exclusive jobs; on nodes of several memory sizes and on partitions of
 * groups with and without `memory_mb`), under `sched/builtin` and Slurm 22.05's will-run pass, the one engine
 * gives every job the Slurm engine's start, end, state, suspension periods, nodes and the free memory of its
 * nodes once it started; and hand-computed cases. The node placements without memory: presetNodes.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { type Layout, MEMORY_NODES, MIXED_MEMORY_NODES } from './layouts.js';
import { bfSettings, checkedNodeRows, type NodeRow, nodeWorkload, type Priority, presetNodeRows, shapedJob, willRunConfigOf } from './presetHarness.js';

/**
 * `nodeWorkload` on `layout` (`MEMORY_NODES`, or `MIXED_MEMORY_NODES`: groups with and without `memory_mb`) with
 * memory requests: three in ten `--mem` of 250-6,000 MB on each node, three in ten `--mem-per-cpu` of 250-3,000
 * MB (with `both`, a quarter of these two with the other as well: `--mem` with `--mem-per-cpu`; a third with
 * `-N MIN`, at least or exactly), one in ten `--exclusive` on 1-2 whole nodes of `a` (the rest of `b`: `--mem`),
 * the rest none. A memory request the nodes of its partition cannot hold even idle is refused at submission by
 * both engines, as slurmctld refuses it.
 */
function memoryWorkload(seed: number, n: number, fractional: boolean, layout: Layout = MEMORY_NODES, both = false): SlurmJobInput[] {
  const rng = derive(seed, 'preset-nodes/memory');
  return nodeWorkload(seed, n, layout, fractional).map((j) => {
    const u = rng.next();
    const part = j.partition ?? 0;
    let shape: SlurmJobInput['shape'];
    if (u < 0.3) shape = { memPerNode: 250 * (1 + Math.floor(rng.uniform(0, 24))) };
    else if (u < 0.6) shape = { memPerCpu: 250 * (1 + Math.floor(rng.uniform(0, 12))) };
    else if (u < 0.7) {
      if (part === 1) shape = { memPerNode: 250 * (1 + Math.floor(rng.uniform(0, 24))) };
      else {
        const nodes = 1 + Math.floor(rng.uniform(0, 2));
        return { ...j, cores: nodes * 4, shape: { whole: true, minNodes: nodes } };
      }
    } else return j;
    if (both && rng.next() < 1 / 4)
      shape =
        shape.memPerNode !== undefined
          ? { ...shape, memPerCpu: 250 * (1 + Math.floor(rng.uniform(0, 12))) }
          : { ...shape, memPerNode: 250 * (1 + Math.floor(rng.uniform(0, 24))) };
    if (rng.next() < 1 / 3) {
      // (at least a core on each of its `min` nodes; exactly `min` only when they can hold its cores)
      const min = 1 + Math.floor(rng.uniform(0, 2));
      const cores = Math.max(j.cores, min);
      shape = { ...shape, minNodes: min, maxNodes: rng.next() < 0.5 || cores > min * 2 ? 0 : min };
      j = { ...j, cores };
    }
    return { ...j, shape };
  });
}

describe("the Slurm preset with whole-node allocation (nodeSelect) and memory requests gives the Slurm engine's schedules, nodes and free memory", () => {
  it("with memory requests (--mem, --mem-per-cpu) on nodes of several memory sizes, under sched/builtin and Slurm 22.05's will-run pass, either job size factor: the same starts, ends, states, periods, nodes and free memory", () => {
    let byNode = 0;
    let byCpu = 0;
    let waited = 0;
    let backfilled = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(1, 10, 60),
        fc.constantFrom<'cores' | 'slurm22'>('cores', 'slurm22'),
        (seed, priority, backfill, fractional, resolution, jobSize) => {
          const jobs = memoryWorkload(seed, 60, fractional);
          const settings = bfSettings({ resolution });
          const config: Partial<SlurmConfig> = willRunConfigOf(priority, backfill ? settings : null);
          // (Slurm 22.05's job size factor reads the select plugin's request: -N, else 1 node; an exclusive job's nodes as its CPUs)
          config.priority = { ...config.priority!, jobSize, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
          const a = checkedNodeRows(MEMORY_NODES, config, jobs, true);
          for (const [id, r] of a) {
            const shape = jobs[id]!.shape;
            if (shape === undefined) continue;
            if (Number.isNaN(r.start)) {
              // (a memory request no node of its partition holds even idle: refused at submission by both)
              if ((shape.memPerNode ?? 0) > 0 || (shape.memPerCpu ?? 0) > 0) refused++;
              continue;
            }
            if ((shape.memPerNode ?? 0) > 0) byNode++;
            if ((shape.memPerCpu ?? 0) > 0) byCpu++;
            if (shape.whole !== true && r.start > jobs[id]!.submit) {
              waited++;
              if (jobs.some((k) => k.id < id && k.partition === jobs[id]!.partition && a.get(k.id)!.start > r.start)) backfilled++;
            }
          }
        },
      ),
      { numRuns: 40, seed: derive(7, 'preset-nodes/memory').int(1_000_000) },
    );
    // both kinds of request ran, waited and were backfilled; some could never be placed, and both engines refused them
    expect(byNode).toBeGreaterThan(300);
    expect(byCpu).toBeGreaterThan(300);
    expect(waited).toBeGreaterThan(200);
    expect(backfilled).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(10);
  });

  it("with --mem and --mem-per-cpu together, and memory on partitions of groups with and without memory_mb, under sched/builtin and Slurm 22.05's will-run pass: the same starts, ends, states, periods, nodes and free memory", () => {
    let both = 0;
    let bothWaited = 0;
    let unmetered = 0;
    let metered = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.boolean(),
        fc.constantFrom(MEMORY_NODES, MIXED_MEMORY_NODES),
        (seed, priority, backfill, layout) => {
          const jobs = memoryWorkload(seed, 60, false, layout, true);
          const settings = bfSettings();
          const config: Partial<SlurmConfig> = willRunConfigOf(priority, backfill ? settings : null);
          config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
          const a = checkedNodeRows(layout, config, jobs, true);
          for (const [id, r] of a) {
            const shape = jobs[id]!.shape;
            if (shape === undefined || shape.whole === true || ((shape.memPerNode ?? 0) === 0 && (shape.memPerCpu ?? 0) === 0)) continue;
            if (Number.isNaN(r.start)) {
              refused++;
              continue;
            }
            if ((shape.memPerNode ?? 0) > 0 && (shape.memPerCpu ?? 0) > 0) {
              both++;
              if (r.start > jobs[id]!.submit) bothWaited++;
            }
            // (on a node without memory_mb the memory left free is unlimited on both engines)
            if (layout === MIXED_MEMORY_NODES) {
              if (r.memFree!.some((m) => m === Number.POSITIVE_INFINITY)) unmetered++;
              if (r.memFree!.some((m) => Number.isFinite(m))) metered++;
            }
          }
        },
      ),
      { numRuns: 40, seed: derive(7, 'preset-nodes/memory-both-mixed').int(1_000_000) },
    );
    console.log(`memory, both and mixed: ${JSON.stringify({ both, bothWaited, unmetered, metered, refused })}`);
    // requests with both ran and waited; on the mixed platform requests ran on nodes with memory and without
    expect(both).toBeGreaterThan(200);
    expect(bothWaited).toBeGreaterThan(150);
    expect(unmetered).toBeGreaterThan(250);
    expect(metered).toBeGreaterThan(180);
    expect(refused).toBeGreaterThan(200);
  });

  it('memory requests, hand-computed: a job waits for the memory of a node whose cores are free', () => {
    // one partition of 2 nodes of 4 cores: n0 4,000 MB, n1 8,000 MB; sched/builtin, FIFO, a pass at each event
    const layout: Layout = {
      groups: [
        { name: 'small', count: 1, cores: 4, memory_mb: 4000 },
        { name: 'large', count: 1, cores: 4, memory_mb: 8000 },
      ],
      partitions: [{ name: 'p', groups: ['small', 'large'] }],
    };
    const job = (id: number, submit: number, cores: number, runTime: number, shape: SlurmJobInput['shape']): SlurmJobInput => ({
      id,
      submit,
      cores,
      runTime,
      timeLimit: 1000,
      user: 0,
      shape,
    });
    const jobs = [
      // A: 1 core, --mem=5000 at 0: only n1 holds it (the shortest run that holds it: n1 alone) -> 0-100, n1 3,000 MB free
      job(0, 0, 1, 100, { memPerNode: 5000 }),
      // B: 2 cores, --mem-per-cpu=1500 (3,000 MB) at 1: n0 (the node of the fewest units that holds it) -> 1-51
      job(1, 1, 2, 50, { memPerCpu: 1500 }),
      // C: 1 core, --mem=3500 at 2: n0 has 2 cores but 1,000 MB free, n1 3 cores but 3,000 MB: waits for B's end -> 51-71
      job(2, 2, 1, 20, { memPerNode: 3500 }),
      // D: 2 cores, --mem-per-cpu=1000 at 3: behind C (FIFO, the partition blocked) -> 51, on n1 (C took n0's memory) -> 51-61
      job(3, 3, 2, 10, { memPerCpu: 1000 }),
    ];
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', null), users: 1 };
    const want = new Map<number, NodeRow>([
      [0, { start: 0, end: 100, killed: false, periods: [], nodes: [1], units: [1], memFree: [3000] }],
      [1, { start: 1, end: 51, killed: false, periods: [], nodes: [0], units: [2], memFree: [1000] }],
      [2, { start: 51, end: 71, killed: false, periods: [], nodes: [0], units: [1], memFree: [500] }],
      [3, { start: 51, end: 61, killed: false, periods: [], nodes: [1], units: [2], memFree: [1000] }],
    ]);
    expect(presetNodeRows(layout, config, jobs, true)).toEqual(want);
  });

  it('memory requests, hand-computed: --mem with --mem-per-cpu (both bind, the --mem is held); groups with and without memory_mb (none binds where it is not given)', () => {
    const job = shapedJob;
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', null), users: 1 };
    // one partition of 2 nodes of 4 cores: n0 4,000 MB, n1 8,000 MB; sched/builtin, FIFO, a pass at each event
    const both: Layout = {
      groups: [
        { name: 'small', count: 1, cores: 4, memory_mb: 4000 },
        { name: 'large', count: 1, cores: 4, memory_mb: 8000 },
      ],
      partitions: [{ name: 'p', groups: ['small', 'large'] }],
    };
    const wantBoth = new Map<number, NodeRow>([
      // A: 3 cores, --mem-per-cpu=1500 --mem=1000 at 0: n0's memory holds 2 CPUs of 1,500 MB, n1 4; the fewest-unit
      // node that holds 3: n1 -> 0-100, holding its --mem, 1,000 MB (not 3 x 1,500): 7,000 MB free
      [0, { start: 0, end: 100, killed: false, periods: [], nodes: [1], units: [3], memFree: [7000] }],
      // B: 1 core, --mem=6500 at 1: only n1 has that much free (7,000 MB; 3,500 had A held its CPUs' memory) -> 1-151
      [1, { start: 1, end: 151, killed: false, periods: [], nodes: [1], units: [1], memFree: [500] }],
      // C: 2 cores, --mem-per-cpu=2500 --mem=500 at 2: n0's memory holds 1 CPU of 2,500 MB, n1 none (no core, then
      // 1,500 MB after A's end): waits for B's end at 151; then n1 holds 3 (8,000 MB), the node that holds 2 -> 151-161
      [2, { start: 151, end: 161, killed: false, periods: [], nodes: [1], units: [2], memFree: [7500] }],
    ]);
    const bothJobs = [
      job(0, 3, 100, { memPerCpu: 1500, memPerNode: 1000 }),
      job(1, 1, 150, { memPerNode: 6500 }),
      job(2, 2, 10, { memPerCpu: 2500, memPerNode: 500 }),
    ];
    expect(presetNodeRows(both, config, bothJobs, true)).toEqual(wantBoth);
    // one partition of n0 (4 cores, 2,000 MB) and n1 (4 cores, no memory_mb: memory not consumable)
    const mixed: Layout = {
      groups: [
        { name: 'm', count: 1, cores: 4, memory_mb: 2000 },
        { name: 'u', count: 1, cores: 4 },
      ],
      partitions: [{ name: 'p', groups: ['m', 'u'] }],
    };
    const inf = Number.POSITIVE_INFINITY;
    const wantMixed = new Map<number, NodeRow>([
      // A: 1 core, --mem=3000 at 0: n0 has 2,000 MB, n1 no limit -> n1, 0-100
      [0, { start: 0, end: 100, killed: false, periods: [], nodes: [1], units: [1], memFree: [inf] }],
      // B: 2 cores, --mem-per-cpu=1500 at 1: n0's memory holds 1 CPU, n1 its 3 free: the node that holds 2, n1 -> 1-51
      [1, { start: 1, end: 51, killed: false, periods: [], nodes: [1], units: [2], memFree: [inf] }],
      // C: 1 core, --mem=1,000,000,000 at 2: n1's last core, whatever its memory -> 2-12
      [2, { start: 2, end: 12, killed: false, periods: [], nodes: [1], units: [1], memFree: [inf] }],
      // D: -N 1, 2 cores, --mem-per-cpu=1000 at 3: n1 is full, n0's 2,000 MB hold 2 CPUs -> 3-23, no memory left
      [3, { start: 3, end: 23, killed: false, periods: [], nodes: [0], units: [2], memFree: [0] }],
      // E: 1 core, --mem=1 at 4: n0 has 2 cores but no memory free, n1 no core: waits for C's end at 12 -> n1, 12-22
      [4, { start: 12, end: 22, killed: false, periods: [], nodes: [1], units: [1], memFree: [inf] }],
    ]);
    const mixedJobs = [
      job(0, 1, 100, { memPerNode: 3000 }),
      job(1, 2, 50, { memPerCpu: 1500 }),
      job(2, 1, 10, { memPerNode: 1e9 }),
      job(3, 2, 20, { memPerCpu: 1000, minNodes: 1, maxNodes: 1 }),
      job(4, 1, 10, { memPerNode: 1 }),
    ];
    expect(presetNodeRows(mixed, config, mixedJobs, true)).toEqual(wantMixed);
  });
});
