/**
 * The Slurm preset with whole-node allocation (`nodeSelect`) and partitions that preempt
 * (`PreemptType=preempt/partition_prio`, issue 42): the one engine's Slurm main pass `within: "nodes"` preempts
 * as the Slurm engine's `preemptForNodes` does (the candidates the jobs on the preemptor's partition's nodes,
 * none preempted unless the select plugin would place it with all of them gone, then one at a time in Slurm's
 * order until it does), and a job preempted by suspension resumes at a later main pass where the select
 * plugin places it then. On random workloads over partitions of one-core nodes and of nodes of several cores,
 * suspend, requeue or cancel, sched/builtin or backfill, both engines give every job the same start, end,
 * state, suspension periods, and nodes at each start and resumption; jobs that hold other CPUs than their
 * cores too (a requeued job counts its last run's, a resumed job accrues usage at what it holds where it resumes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import type { PreemptMode } from '../../src/platform/partitions.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { runSlurmPreset, slurmPresetConfig, slurmPresetRequest } from '../../src/slurm/preset.js';
import { LAYOUT, type Layout, MULTI_CORE_NODES, WHOLE_NODES } from './layouts.js';
import {
  partitionedWorkload,
  bfSettings,
  type NodeRow,
  nodeWorkload,
  type Priority,
  presetNodeRows,
  slurmConfigOf,
  checkedNodeRows,
  willRunConfigOf,
} from './presetHarness.js';

/**
 * `base`'s groups under four partitions: `a` (tier 1, `modeA`) and `c` (tier 1, `modeC`) under `b` (tier 2), `b`
 * sharing a group with each, and `d` (tier 2) over `b`'s first group only (a job of `d` left waiting holds that
 * group out of the pass for `b`'s jobs).
 */
function preempting(base: Layout, modeA: PreemptMode, modeC: PreemptMode): Layout {
  const [g0, g1, g2] = base.groups.map((g) => g.name) as [string, string, string];
  return {
    groups: base.groups,
    partitions: [
      { name: 'a', groups: [g0, g1], priority_tier: 1, preempt_mode: modeA },
      { name: 'b', groups: [g1, g2], priority_tier: 2 },
      { name: 'c', groups: [g2], max_time: 500, priority_tier: 1, preempt_mode: modeC },
      { name: 'd', groups: [g1], priority_tier: 2 },
    ] as Layout['partitions'],
  };
}

/** What the property's runs showed (the Slurm engine's rows): preemptions by kind, and suspended jobs resumed on other nodes. */
interface Seen {
  suspended: number;
  resumed: number;
  moved: number;
  requeued: number;
  cancelled: number;
}

/** Counts in `seen` what `rows` show of `jobs` (jobs with an operator suspension left out: their periods are not a preemption's). */
function count(seen: Seen, jobs: SlurmJobInput[], rows: Map<number, NodeRow>): void {
  for (const j of jobs) {
    const r = rows.get(j.id)!;
    if (Number.isNaN(r.start) || j.opAfter !== undefined) continue;
    const runs = r.runs!;
    if (r.periods.length > 0) {
      seen.suspended++;
      if (runs.length > 1) seen.resumed++;
      if (runs.some((n) => n.join() !== runs[0]!.join())) seen.moved++;
    }
    // started more than once without a suspension: requeued
    if (r.periods.length === 0 && runs.length > 1) seen.requeued++;
    if (r.killed && r.periods.length === 0 && r.end < r.start + Math.min(j.runTime, j.timeLimit)) seen.cancelled++;
  }
}

describe('the Slurm preset with whole-node allocation and partitions that preempt', () => {
  for (const [name, base, backfill] of [
    ['a whole-node platform (one-core nodes), sched/builtin or the node-profile backfill', WHOLE_NODES, 'nodes'],
    ["nodes of several cores, sched/builtin or Slurm 22.05's will-run backfill", MULTI_CORE_NODES, 'will-run'],
  ] as const)
    it(`on ${name}: every job the same start, end, state, periods, and nodes at each start and resumption (suspend, requeue, cancel)`, () => {
      const seen: Seen = { suspended: 0, resumed: 0, moved: 0, requeued: 0, cancelled: 0 };
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom<Priority>('fifo', 'multifactor'),
          fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
          fc.constantFrom<PreemptMode>('off', 'suspend', 'requeue'),
          fc.boolean(),
          fc.boolean(),
          (seed, priority, modeA, modeC, bf, timers) => {
            const layout = preempting(base, modeA, modeC);
            const jobs = partitionedWorkload(seed, 80, layout);
            const settings = bfSettings();
            const config: Partial<SlurmConfig> = {
              ...slurmConfigOf(priority, bf ? settings : null, timers ? { schedInterval: 60, schedMinInterval: 2, schedDelay: 1 } : {}),
              nodeSelect: true,
              bfWillRun: backfill === 'will-run',
            };
            config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
            const a = checkedNodeRows(layout, config, jobs, { runs: true });
            count(seen, jobs, a);
          },
        ),
        { numRuns: 60, seed: derive(7, `preset-preempt-nodes/${name}`).int(1_000_000) },
      );
      console.log(`${name}: ${JSON.stringify(seen)}`);
      // suspended jobs resumed (most on other nodes), requeued jobs started again, cancelled jobs
      expect(seen.suspended).toBeGreaterThan(20);
      expect(seen.resumed).toBe(seen.suspended);
      expect(seen.moved).toBeGreaterThan(10);
      expect(seen.requeued).toBeGreaterThan(30);
      expect(seen.cancelled).toBeGreaterThan(8);
    });

  it("with node requests (--exclusive, -N MIN[-MAX], --mem, --mem-per-cpu), sched/builtin or Slurm 22.05's will-run backfill: the same rows and nodes", () => {
    const seen: Seen = { suspended: 0, resumed: 0, moved: 0, requeued: 0, cancelled: 0 };
    let exclusive = 0;
    let memory = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
        fc.boolean(),
        (seed, priority, mode, bf) => {
          const layout = requestLayout(mode);
          const jobs = requestWorkload(seed, 70, layout);
          const a = requestRows(layout, jobs, priority, bf);
          count(seen, jobs, a);
          // preempted jobs (suspended, requeued or cancelled) with an exclusive or a memory request
          for (const j of jobs) {
            const r = a.get(j.id)!;
            if (j.partition !== 0 || Number.isNaN(r.start) || j.opAfter !== undefined) continue;
            const hit = r.periods.length > 0 || r.runs!.length > 1 || (r.killed && r.end < r.start + Math.min(j.runTime, j.timeLimit));
            if (!hit) continue;
            if (j.shape?.whole) exclusive++;
            if ((j.shape?.memPerNode ?? 0) > 0 || (j.shape?.memPerCpu ?? 0) > 0) memory++;
          }
        },
      ),
      { numRuns: 60, seed: derive(7, 'preset-preempt-nodes/requests').int(1_000_000) },
    );
    console.log(`requests: ${JSON.stringify({ ...seen, exclusive, memory })}`);
    // suspended (and resumed, most on other nodes), requeued and cancelled jobs; preempted exclusive and memory requests
    expect(seen.suspended).toBeGreaterThan(15);
    expect(seen.resumed).toBe(seen.suspended);
    expect(seen.moved).toBeGreaterThan(10);
    expect(seen.requeued).toBeGreaterThan(20);
    expect(seen.cancelled).toBeGreaterThan(20);
    expect(exclusive).toBeGreaterThan(15);
    expect(memory).toBeGreaterThan(8);
  });
});

describe('partitions that preempt, with --mem and --mem-per-cpu together and memory on groups with and without memory_mb', () => {
  it("sched/builtin or Slurm 22.05's will-run backfill: the same rows, nodes at each start and resumption, and free memory", () => {
    const seen: Seen = { suspended: 0, resumed: 0, moved: 0, requeued: 0, cancelled: 0 };
    let both = 0;
    let unmetered = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
        fc.boolean(),
        (seed, priority, mode, bf) => {
          const layout = requestLayout(mode, true);
          const jobs = requestWorkload(seed, 70, layout, true);
          const a = requestRows(layout, jobs, priority, bf);
          count(seen, jobs, a);
          for (const j of jobs) {
            const r = a.get(j.id)!;
            if (Number.isNaN(r.start)) continue;
            if ((j.shape?.memPerNode ?? 0) > 0 && (j.shape?.memPerCpu ?? 0) > 0) both++;
            if (((j.shape?.memPerNode ?? 0) > 0 || (j.shape?.memPerCpu ?? 0) > 0) && r.memFree!.includes(Number.POSITIVE_INFINITY)) unmetered++;
          }
        },
      ),
      { numRuns: 30, seed: derive(7, 'preset-preempt-nodes/both-mixed').int(1_000_000) },
    );
    console.log(`both and mixed: ${JSON.stringify({ ...seen, both, unmetered })}`);
    // preempted jobs; requests with both ran; memory requests ran on nodes without memory_mb
    expect(seen.suspended + seen.requeued + seen.cancelled).toBeGreaterThan(20);
    expect(both).toBeGreaterThan(100);
    expect(unmetered).toBeGreaterThan(150);
  });
});

/**
 * Any node request under preemption: `a` (tier 1, `mode`) over `s0`, `s1` and `s2`, `h` (tier 2) over `s1` and
 * `s2`; nodes of 4, 3 and 4 CPUs (`oneCore`: of one core each, 4, 3 and 3 of them).
 */
function anyShapeLayout(mode: PreemptMode, oneCore: boolean): Layout {
  return {
    groups: [
      { name: 's0', count: oneCore ? 4 : 3, cores: oneCore ? 1 : 4 },
      { name: 's1', count: oneCore ? 3 : 2, cores: oneCore ? 1 : 3 },
      { name: 's2', count: oneCore ? 3 : 2, cores: oneCore ? 1 : 4 },
    ],
    partitions: [
      { name: 'a', groups: ['s0', 's1', 's2'], priority_tier: 1, preempt_mode: mode },
      { name: 'h', groups: ['s1', 's2'], priority_tier: 2 },
    ] as Layout['partitions'],
  };
}

/**
 * `nodeWorkload` on `layout` with requests whose CPUs held are not their cores: three in ten `--exclusive` on
 * `-N 1` or `-N 2`, up to one more, with 1-6 cores; four in ten `-N 1-3` with `-c` 1, 2 or 3 and 1-8 cores; the
 * rest none.
 */
function heldWorkload(seed: number, n: number, layout: Layout): SlurmJobInput[] {
  const rng = derive(seed, 'preset-preempt-nodes/held');
  return nodeWorkload(seed, n, layout).map((j) => {
    const u = rng.next();
    if (u < 0.3) {
      const min = 1 + Math.floor(rng.uniform(0, 2));
      return { ...j, cores: 1 + Math.floor(rng.uniform(0, 6)), shape: { whole: true, minNodes: min, maxNodes: rng.next() < 0.5 ? 0 : min + 1 } };
    }
    if (u < 0.7) {
      const c = [1, 2, 3][Math.floor(rng.uniform(0, 3))]!;
      return { ...j, cores: 1 + Math.floor(rng.uniform(0, 8)), shape: { minNodes: 1 + Math.floor(rng.uniform(0, 3)), cpusPerTask: c } };
    }
    return j;
  });
}

describe('the Slurm preset with whole-node allocation, partitions that preempt and jobs that hold other CPUs than their cores', () => {
  it("a requeued job counts the CPUs its last run held (Slurm's total_cpus: its size factor, the node-profile pass's nodes), a resumed job's usage the CPUs it holds where it resumes: the same rows and nodes", () => {
    const seen: Seen = { suspended: 0, resumed: 0, moved: 0, requeued: 0, cancelled: 0 };
    // preempted jobs (requeued; suspended and resumed on other nodes) whose CPUs held were not their cores
    let requeuedOther = 0;
    let movedOther = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<'cores' | 'slurm22'>('cores', 'slurm22'),
        fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
        fc.boolean(),
        fc.constantFrom<'builtin' | 'willRun' | 'profile'>('builtin', 'willRun', 'profile'),
        (seed, jobSize, mode, oneCore, pass) => {
          const layout = anyShapeLayout(mode, oneCore);
          const jobs = heldWorkload(seed, 60, layout);
          const settings = bfSettings();
          // (the node-profile pass on one-core nodes only; the will-run pass elsewhere)
          const bf = pass === 'builtin' ? null : settings;
          const config: Partial<SlurmConfig> = { ...slurmConfigOf('multifactor', bf), nodeSelect: true, bfWillRun: pass === 'willRun' || !oneCore };
          config.priority = { ...config.priority!, jobSize, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
          const a = checkedNodeRows(layout, config, jobs, { runs: true });
          count(seen, jobs, a);
          for (const j of jobs) {
            const r = a.get(j.id)!;
            if (Number.isNaN(r.start) || j.opAfter !== undefined || j.shape === undefined) continue;
            if (r.units.reduce((x, y) => x + y, 0) === j.cores) continue;
            const runs = r.runs!;
            if (r.periods.length === 0 && runs.length > 1) requeuedOther++;
            if (r.periods.length > 0 && runs.some((x) => x.join() !== runs[0]!.join())) movedOther++;
          }
        },
      ),
      { numRuns: 80, seed: derive(7, 'preset-preempt-nodes/held').int(1_000_000) },
    );
    console.log(`held: ${JSON.stringify({ ...seen, requeuedOther, movedOther })}`);
    expect(seen.requeued).toBeGreaterThan(30);
    expect(seen.moved).toBeGreaterThan(10);
    expect(requeuedOther).toBeGreaterThan(10);
    expect(movedOther).toBeGreaterThan(5);
  });
});

/**
 * Node requests under preemption: `a` (tier 1, `mode`) over `s0` (3 nodes of 4 CPUs, 8,000 MB), `s1` and `s2` (2
 * of 4 CPUs, 4,000 MB each; with `mixed`, `s2` without `memory_mb`), `h` (tier 2) over `s1` and `s2`: equal CPUs
 * everywhere (exclusive jobs), memory on every node (but `s2`'s with `mixed`).
 */
/** The preset's rows and nodes of `jobs` on `layout` (whole-node allocation; `bf`: Slurm 22.05's will-run backfill, else sched/builtin), checked against the Slurm engine's. */
function requestRows(layout: Layout, jobs: SlurmJobInput[], priority: Priority, bf: boolean): Map<number, NodeRow> {
  const settings = bfSettings();
  const config: Partial<SlurmConfig> = willRunConfigOf(priority, bf ? settings : null);
  config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
  return checkedNodeRows(layout, config, jobs, { runs: true, memory: true });
}

function requestLayout(mode: PreemptMode, mixed = false): Layout {
  return {
    groups: [
      { name: 's0', count: 3, cores: 4, memory_mb: 8000 },
      { name: 's1', count: 2, cores: 4, memory_mb: 4000 },
      // (with `mixed`, no memory_mb: memory not consumable on s2's nodes)
      mixed ? { name: 's2', count: 2, cores: 4 } : { name: 's2', count: 2, cores: 4, memory_mb: 4000 },
    ],
    partitions: [
      { name: 'a', groups: ['s0', 's1', 's2'], priority_tier: 1, preempt_mode: mode },
      { name: 'h', groups: ['s1', 's2'], priority_tier: 2 },
    ] as Layout['partitions'],
  };
}

/**
 * `partitionedWorkload` on `layout` with node requests: a quarter `--exclusive` on 1-2 whole nodes, a quarter
 * `-N MIN` or `-N MIN-MAX`, a quarter `--mem` (500-6,000 MB on each node) or `--mem-per-cpu` (250-2,000 MB), the
 * rest none (a request the preset does not model, or no node of its partition holds even idle, is dropped).
 */
function requestWorkload(seed: number, n: number, layout: Layout, both = false): SlurmJobInput[] {
  const rng = derive(seed, 'preset-preempt-nodes/requests');
  return partitionedWorkload(seed, n, layout).map((j) => {
    const u = rng.next();
    if (u < 0.25) {
      const nodes = 1 + Math.floor(rng.uniform(0, 2));
      return { ...j, cores: nodes * 4, shape: { whole: true, minNodes: nodes } };
    }
    let job: SlurmJobInput = j;
    if (u < 0.5) {
      const min = Math.min(j.cores, 1 + Math.floor(rng.uniform(0, 2)));
      job = { ...j, shape: { minNodes: min, maxNodes: rng.next() < 0.5 || j.cores > 4 * min ? 0 : min } };
    } else if (u < 0.75)
      job = {
        ...j,
        shape: rng.next() < 0.5 ? { memPerNode: 500 * (1 + Math.floor(rng.uniform(0, 12))) } : { memPerCpu: 250 * (1 + Math.floor(rng.uniform(0, 8))) },
      };
    else return j;
    // (with `both`, a third of the memory requests --mem with --mem-per-cpu)
    if (both && u >= 0.5 && rng.next() < 1 / 3)
      job = { ...job, shape: { memPerNode: 500 * (1 + Math.floor(rng.uniform(0, 12))), memPerCpu: 250 * (1 + Math.floor(rng.uniform(0, 8))) } };
    try {
      slurmPresetRequest(job, layout);
    } catch {
      return j;
    }
    // (a request no node of its partition holds even idle is dropped too: both engines refuse it at submission,
    // test/slurm/presetNodes.test.ts; the workloads this property was written on)
    const alone = { ...job, submit: 0, user: 0 };
    if (Number.isNaN(presetNodeRows(layout, { nodeSelect: true, backfill: false, users: 1 }, [alone]).get(job.id)!.start)) return j;
    return job;
  });
}

describe('preemption on nodes, PreemptMode=CANCEL, the will-run backfill: a case once divergent', () => {
  // Found when the workload above kept its requests that no node holds even idle (both engines refuse them at
  // submission): with two of them left out instead (jobs 15 and 39), the engines agreed up to 1290 s, where both
  // main passes leave job 28 (partition h, 8 CPUs) waiting without preempting, and then the one engine's
  // will-run backfill pass started job 30 (h, 2 CPUs) and the Slurm engine's did not; every later start of h
  // moved. The cause was the will-run pass's order of equal expected ends (the engines' slots: recycled, the
  // Slurm engine's after the cancellations of 22 and 23 at 1091 s); both now walk them in slurmctld's job
  // list's order (`WillRunJob.key`).
  it('seed 999986, FIFO, cancel, will-run backfill: the same rows and nodes', () => {
    const layout = requestLayout('cancel');
    const jobs = requestWorkload(999986, 70, layout).filter((j) => j.id !== 15 && j.id !== 39);
    requestRows(layout, jobs, 'fifo', true);
  });
});

describe('preemption on nodes, hand-computed', () => {
  // six one-core nodes: p = nodes 0-3, q = nodes 4-5; `low` (tier 1) over both, `high` (tier 2) over p
  const on = (mode: PreemptMode): Layout => ({
    groups: [
      { name: 'p', count: 4, cores: 1 },
      { name: 'q', count: 2, cores: 1 },
    ],
    partitions: [
      { name: 'low', groups: ['p', 'q'], priority_tier: 1, preempt_mode: mode },
      { name: 'high', groups: ['p'], priority_tier: 2 },
    ] as Layout['partitions'],
  });
  const job = (id: number, submit: number, nodes: number, runTime: number, partition: number): SlurmJobInput => ({
    id,
    submit,
    cores: nodes,
    runTime,
    timeLimit: 1_000,
    user: 0,
    partition,
  });
  const jobs = [
    // low: 1 on nodes 0-1 at 0, 2 on 2-3 at 1, 3 on 4 at 2 (ends at 22)
    job(1, 0, 2, 100, 0),
    job(2, 1, 2, 100, 0),
    job(3, 2, 1, 20, 0),
    // high, 2 nodes at 10: p is full; the candidates are 1 and 2 (3 is on q, outside high); 2 started last:
    // preempted alone, 4 runs on 2-3 until 60
    job(4, 10, 2, 50, 1),
    // high, 4 nodes at 30: with 1 gone (2 runs on q by then, no candidate) p has only 0-1: nothing preempted, it
    // waits; at 60 (4 ends) 1 gone frees p: 1 preempted, 5 runs on 0-3 until 90
    job(5, 30, 4, 30, 1),
  ];
  const config: Partial<SlurmConfig> = { ...slurmConfigOf('fifo', null), nodeSelect: true };
  const row = (start: number, end: number, killed: boolean, periods: number[], runs: number[][]): NodeRow => ({
    start,
    end,
    killed,
    periods,
    nodes: runs[0]!,
    units: runs[0]!.map(() => 1),
    runs,
  });
  const both = (mode: PreemptMode) => {
    return checkedNodeRows(on(mode), config, jobs, { runs: true });
  };

  it('suspend: a victim resumes at the first pass where the select plugin places it, on the nodes it gives it then', () => {
    expect(both('suspend')).toEqual(
      new Map([
        // 1: suspended at 60, resumed at 90 (5 ends) on the best fit of free 0-3: 0-1; 40 s left: ends at 130
        [
          1,
          row(
            0,
            130,
            false,
            [60, 90],
            [
              [0, 1],
              [0, 1],
            ],
          ),
        ],
        // 2: ran 1-10 (9 s), suspended; resumed at 22 (3 ends) on q's free 4-5, not its own 2-3 (4's); 91 s left: 113
        [
          2,
          row(
            1,
            113,
            false,
            [10, 22],
            [
              [2, 3],
              [4, 5],
            ],
          ),
        ],
        [3, row(2, 22, false, [], [[4]])],
        [4, row(10, 60, false, [], [[2, 3]])],
        [5, row(60, 90, false, [], [[0, 1, 2, 3]])],
      ]),
    );
  });

  it('requeue: a victim starts again from scratch where the select plugin places it', () => {
    const rows = both('requeue');
    // 2: back to the queue at 10, started again at 22 on 4-5, 100 s; 1: requeued at 60, again at 90 on 0-1
    expect(rows.get(2)).toEqual(
      row(
        22,
        122,
        false,
        [],
        [
          [2, 3],
          [4, 5],
        ],
      ),
    );
    expect(rows.get(1)).toEqual(
      row(
        90,
        190,
        false,
        [],
        [
          [0, 1],
          [0, 1],
        ],
      ),
    );
    expect(rows.get(5)).toEqual(row(60, 90, false, [], [[0, 1, 2, 3]]));
  });

  it("a job whose partition's nodes are held out by a blocked partition: its candidates go, all of them, and it waits (requeue)", () => {
    // one-core nodes p = 0-1, q = 2-3; `low` (tier 1, requeue) over both, `h1` (tier 2) over p, `h2` (tier 2) over both
    const layout: Layout = {
      groups: [
        { name: 'p', count: 2, cores: 1 },
        { name: 'q', count: 2, cores: 1 },
      ],
      partitions: [
        { name: 'low', groups: ['p', 'q'], priority_tier: 1, preempt_mode: 'requeue' },
        { name: 'h1', groups: ['p'], priority_tier: 2 },
        { name: 'h2', groups: ['p', 'q'], priority_tier: 2 },
      ] as Layout['partitions'],
    };
    const blocked = [
      // h2 on node 0 until 50 and node 3 (from 2) until 202; low 2 on node 1 (from 0), low 3 on node 2 (from 1)
      job(1, 0, 1, 50, 2),
      job(2, 0, 1, 100, 0),
      job(3, 1, 1, 100, 0),
      job(4, 2, 1, 200, 2),
      // at 10, h1 on p: node 0 is 1's (tier 2): nothing to preempt that makes room; it waits and holds p out of the pass
      job(5, 10, 2, 20, 1),
      // h2 on both: with 2 and 3 gone it would fit (nodes 1-2), so 3 (the last started) goes, then 2; but outside p
      // only node 2 is free: it waits. At 50 (1 ends) h1 starts on 0-1; at 70 h2 on 0-1, low 2 again on node 2; at 100 low 3 on node 0
      job(6, 10, 2, 30, 2),
    ];
    const a = checkedNodeRows(layout, config, blocked, { runs: true });
    expect(a).toEqual(
      new Map([
        [1, row(0, 50, false, [], [[0]])],
        [2, row(70, 170, false, [], [[1], [2]])],
        [3, row(100, 200, false, [], [[2], [0]])],
        [4, row(2, 202, false, [], [[3]])],
        [5, row(50, 70, false, [], [[0, 1]])],
        [6, row(70, 100, false, [], [[0, 1]])],
      ]),
    );
    // the other modes too: the same schedules on both engines
    for (const mode of ['suspend', 'cancel'] as const) {
      const other = { ...layout, partitions: layout.partitions.map((q, i) => (i === 0 ? { ...q, preempt_mode: mode } : q)) };
      checkedNodeRows(other, config, blocked, { runs: true });
    }
  });

  it('cancel: a victim ends when it is preempted', () => {
    const rows = both('cancel');
    expect(rows.get(2)).toEqual(row(1, 10, true, [], [[2, 3]]));
    expect(rows.get(1)).toEqual(row(0, 60, true, [], [[0, 1]]));
    expect([rows.get(4)!.start, rows.get(5)!.start, rows.get(5)!.end]).toEqual([10, 60, 90]);
  });
});

describe('what the preset refuses of preemption', () => {
  it('nothing with whole-node allocation; on the core capacity without it (a victim of the counted model resumes anywhere in its group): refused, named', () => {
    const layout = preempting(MULTI_CORE_NODES, 'suspend', 'requeue');
    expect(() => slurmPresetConfig(layout, { nodeSelect: true, backfill: true, bfWillRun: true })).not.toThrow();
    const jobs = partitionedWorkload(3, 20, layout);
    const { summary } = runSlurmPreset(layout, jobs, { ...slurmConfigOf('fifo', null), nodeSelect: true }, [], 'cores');
    expect(summary.jobs_finished + summary.jobs_killed + summary.jobs_rejected).toBe(20);
    const counted = preempting(LAYOUT, 'suspend', 'requeue');
    expect(() => runSlurmPreset(counted, jobs, slurmConfigOf('fifo', null), [], 'cores')).toThrow(/preempts on the counted capacity only/);
  });
});
