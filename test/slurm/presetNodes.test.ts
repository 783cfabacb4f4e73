/**
 * The Slurm preset with whole-node allocation (`nodeSelect`, issue 42): the one engine's Slurm main pass
 * `within: "nodes"` places each job where Slurm's select plugin would (`src/scheduling/slurmSelect.ts` over
 * `nodeSelection.ts`, the code the Slurm engine's `NodeMap` runs), on the core capacity. On random workloads
 * over several groups and partitions, on a whole-node platform (nodes of one core: a job of `n` units asks
 * for `n` nodes whole) and on nodes of several cores (units anywhere), under `sched/builtin`, and with
 * `sched/backfill` on the whole-node platform (the node-profile pass, src/scheduling/nodeProfileBackfill.ts,
 * which both engines run), the one engine gives every job the Slurm engine's start, end, state, suspension
 * periods and nodes (with memory requests: presetMemory.test.ts); with any node request the Slurm engine takes (`anyShapeWorkload`: `--exclusive` ranges, on unequal nodes, with other
 * cores than its nodes'; `-N` above the tasks; cores that are not whole tasks of `-c`; placements Slurm
 * oversubscribes; shapes on one-core nodes), the CPUs held on each node too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { runSlurmPreset, slurmPresetConfig } from '../../src/slurm/preset.js';
import { SlurmNodeSelection } from '../../src/scheduling/slurmSelect.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { platformFromNodeGroups } from '../../src/platform/views.js';
import { type Job, makeJob } from '../../src/workload/job.js';
import { parseEngineConfig } from '../../src/scheduling/engineConfig.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { type Layout, MEMORY_NODES, MULTI_CORE_NODES, SHAPED_NODES, WHOLE_NODES } from './layouts.js';
import {
  bfSettings,
  type NodeRow,
  nodeWorkload,
  type Priority,
  presetNodeRows,
  shapedJob,
  slurmConfigOf,
  checkedNodeRows,
  willRunConfigOf,
} from './presetHarness.js';

/**
 * `nodeWorkload` on `SHAPED_NODES` with node requests: a third of the jobs `--exclusive` on 1-3 whole nodes
 * (their cores those nodes' cores); the others, on partition `a`'s 4-CPU nodes, tasks of `-c 2` on `-N MIN`
 * or `-N MIN-MAX` nodes; on partition `b`'s 2-CPU nodes, half `-N MIN[-MAX]` (of one CPU per task or, a
 * tenth, `-c 2`: a whole node each), half none (units anywhere). At least a task on each of `MIN` nodes, and
 * exactly `MIN` nodes only when they hold every task. (Jobs of one CPU per task stay off partition `a`,
 * where they would leave odd free counts that make Slurm oversubscribe a `-c 2` job's CPUs: a placement the
 * preset refuses, below.)
 */
function shapedWorkload(seed: number, n: number): SlurmJobInput[] {
  const rng = derive(seed, 'preset-nodes/shapes');
  const perNode = [4, 2];
  return nodeWorkload(seed, n, SHAPED_NODES).map((j) => {
    const u = rng.next();
    const part = j.partition ?? 0;
    if (u < 1 / 3) {
      const nodes = 1 + Math.floor(rng.uniform(0, 3));
      return { ...j, cores: nodes * perNode[part]!, shape: { whole: true, minNodes: nodes } };
    }
    if (part === 1 && u >= 2 / 3) return j;
    const c = part === 0 || rng.next() < 0.1 ? 2 : 1;
    const min = 1 + Math.floor(rng.uniform(0, 2));
    const tasks = min + Math.floor(rng.uniform(0, part === 0 ? 6 : 4));
    const cores = c * tasks;
    // no maximum, exactly MIN (when MIN nodes hold every task), or a range MIN-MAX
    const v = rng.next();
    const max = v < 1 / 3 ? 0 : v < 2 / 3 && cores <= min * perNode[part]! ? min : min + 1 + Math.floor(rng.uniform(0, 3));
    return { ...j, cores, shape: { minNodes: min, maxNodes: max, cpusPerTask: c } };
  });
}

/** Nodes of 4 and of 3 CPUs, where `-c 2` and `-c 3` tasks leave CPUs no whole task uses (Slurm's relief valve then oversubscribes). */
const ODD_NODES: Layout = {
  groups: [
    { name: 'q', count: 4, cores: 4 },
    { name: 'r', count: 3, cores: 3 },
  ],
  partitions: [
    { name: 'a', groups: ['q', 'r'] },
    { name: 'b', groups: ['r'] },
  ],
};

/**
 * `nodeWorkload` on `layout` with any node request the preset models: a quarter `--exclusive` on `-N MIN`,
 * `-N MIN-MIN` or `-N MIN-MAX` whole nodes with 1-6 cores whatever their nodes' (on partitions of unequal
 * nodes too), half `-N MIN[-MAX]` with `-c` 1, 2 or 3 and 1-10 cores (not always whole tasks, `-N` above the
 * task count a third of the time: the job holds its tasks' CPUs, `distTasks`), the rest none. Jobs of one CPU
 * per task beside `-c` jobs leave odd free counts where Slurm's relief valve oversubscribes a `-c` job. On
 * one-core nodes a shape is whole nodes by default (`-N` of them, whatever its cores); with `notWhole`, three
 * in ten say otherwise (`whole: false`).
 */
function anyShapeWorkload(seed: number, n: number, layout: Layout, notWhole: boolean): SlurmJobInput[] {
  const rng = derive(seed, 'preset-nodes/any-shape');
  const oneCore = layout.groups.every((g) => g.cores === 1);
  const range = (min: number): number => {
    const v = rng.next();
    return v < 1 / 3 ? 0 : v < 2 / 3 ? min : min + 1 + Math.floor(rng.uniform(0, 3));
  };
  return nodeWorkload(seed, n, layout).map((j) => {
    const u = rng.next();
    if (u < 0.25) {
      const min = 1 + Math.floor(rng.uniform(0, 3));
      return { ...j, cores: 1 + Math.floor(rng.uniform(0, 6)), shape: { whole: true, minNodes: min, maxNodes: range(min) } };
    }
    if (u >= 0.75) return j;
    const c = [1, 1, 2, 3, 3][Math.floor(rng.uniform(0, 5))]!;
    const cores = 1 + Math.floor(rng.uniform(0, 10));
    const tasks = Math.max(1, Math.floor(cores / c));
    const min = rng.next() < 1 / 3 ? tasks + 1 + Math.floor(rng.uniform(0, 2)) : 1 + Math.floor(rng.uniform(0, Math.min(tasks, 3)));
    const shape: NonNullable<SlurmJobInput['shape']> = { minNodes: min, maxNodes: range(min), cpusPerTask: c };
    if (oneCore && notWhole && rng.next() < 0.3) shape.whole = false;
    return { ...j, cores, shape };
  });
}

describe("the Slurm preset with whole-node allocation (nodeSelect) gives the Slurm engine's schedules and nodes", () => {
  for (const [name, layout] of [
    ['a whole-node platform (one-core nodes)', WHOLE_NODES],
    ['nodes of several cores', MULTI_CORE_NODES],
  ] as const)
    it(`under sched/builtin on ${name}: every job the same start, end, state, periods and nodes (random workloads, both priorities, timers)`, () => {
      let waited = 0;
      let spread = 0;
      let refused = 0;
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom<Priority>('fifo', 'multifactor'), fc.boolean(), (seed, priority, timers) => {
          const jobs = nodeWorkload(seed, 60, layout);
          const config: Partial<SlurmConfig> = {
            ...slurmConfigOf(priority, null, timers ? { schedInterval: 60, schedMinInterval: 2, schedDelay: 1 } : {}),
            nodeSelect: true,
          };
          config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
          const a = checkedNodeRows(layout, config, jobs);
          for (const [id, r] of a) {
            if (r.start > jobs[id]!.submit) waited++;
            if (r.nodes.length > 1) spread++;
            if (Number.isNaN(r.start)) refused++;
          }
        }),
        { numRuns: 40, seed: derive(7, `preset-nodes/${name}`).int(1_000_000) },
      );
      // the property reaches the cases that matter: jobs that wait, jobs on several nodes, refused jobs
      expect(waited).toBeGreaterThan(200);
      expect(spread).toBeGreaterThan(200);
      expect(refused).toBeGreaterThan(10);
    });

  for (const [name, layout, willRun] of [
    ['the node-profile pass on a whole-node platform', WHOLE_NODES, false],
    ["Slurm 22.05's will-run pass on a whole-node platform", WHOLE_NODES, true],
    ["Slurm 22.05's will-run pass on nodes of several cores", MULTI_CORE_NODES, true],
  ] as const)
    it(`with sched/backfill, ${name} (written once): the same starts, ends, states, periods and nodes`, () => {
      let backfilled = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom<Priority>('fifo', 'multifactor'),
          fc.record({
            interval: fc.constantFrom(1, 5, 30),
            window: fc.constantFrom(600, 3_600, 86_400),
            resolution: fc.constantFrom(1, 10, 60),
            maxJobTest: fc.constantFrom(2, 10, 100),
            grid: fc.boolean(),
            slurmRounding: fc.boolean(),
            reserveIdle: fc.constant<'none'>('none'),
          }),
          fc.boolean(),
          fc.boolean(),
          (seed, priority, backfill, timers, fractional) => {
            const jobs = nodeWorkload(seed, 60, layout, fractional);
            const config: Partial<SlurmConfig> = {
              ...slurmConfigOf(priority, backfill, timers ? { schedInterval: 60, schedMinInterval: 2, schedDelay: 1 } : {}),
              nodeSelect: true,
              bfWillRun: willRun,
            };
            config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
            const a = checkedNodeRows(layout, config, jobs);
            // a job that started before an earlier-submitted job of its partition still waiting: backfilled
            for (const [id, r] of a) if (jobs.some((j) => j.id < id && j.partition === jobs[id]!.partition && a.get(j.id)!.start > r.start)) backfilled++;
          },
        ),
        { numRuns: 40, seed: derive(7, `preset-nodes/backfill/${name}`).int(1_000_000) },
      );
      expect(backfilled).toBeGreaterThan(100);
    });

  it("with node requests (--exclusive whole nodes, -N MIN[-MAX], -c), under sched/builtin and Slurm 22.05's will-run pass: the same starts, ends, states, periods, nodes and CPUs on each", () => {
    let exclusive = 0;
    let spread = 0;
    let ranged = 0;
    let tasks = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom<Priority>('fifo', 'multifactor'), fc.boolean(), (seed, priority, backfill) => {
        const jobs = shapedWorkload(seed, 60);
        const settings = bfSettings();
        const config: Partial<SlurmConfig> = willRunConfigOf(priority, backfill ? settings : null);
        config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
        const a = checkedNodeRows(SHAPED_NODES, config, jobs);
        for (const [id, r] of a) {
          const shape = jobs[id]!.shape;
          if (shape === undefined) continue;
          if (Number.isNaN(r.start)) {
            refused++;
            continue;
          }
          if (shape.whole) exclusive++;
          else if (r.nodes.length > 1) spread++;
          // a range that ran on more nodes than its minimum; -c 2 tasks that ran on several nodes
          if ((shape.maxNodes ?? 0) > (shape.minNodes ?? 1) && r.nodes.length > (shape.minNodes ?? 1)) ranged++;
          if ((shape.cpusPerTask ?? 1) > 1 && r.nodes.length > 1) tasks++;
        }
      }),
      { numRuns: 40, seed: derive(7, 'preset-nodes/shapes').int(1_000_000) },
    );
    // exclusive jobs ran, jobs with a node request ran on several nodes, ranges beyond their minimum, -c 2 on several nodes; some refused
    expect(exclusive).toBeGreaterThan(200);
    expect(spread).toBeGreaterThan(200);
    expect(ranged).toBeGreaterThan(100);
    expect(tasks).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(10);
    console.log(`shaped: ${JSON.stringify({ exclusive, spread, ranged, tasks, refused })}`);
  });

  it('hand-computed: a node range holds its tasks (2 + 2 + 1 + 1 of four 2-CPU nodes), -c 2 tasks wait for two whole CPUs on a node, an unplaceable -c refused', () => {
    const layout: Layout = { groups: [{ name: 'n', count: 4, cores: 2 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const job = shapedJob;
    const jobs = [
      // -N 2-4 -n 6: _eval_nodes chooses 2 + 2 + 2 + 1; the job holds 2 + 2 + 1 + 1 (6 tasks, one on each node, then two more)
      job(0, 6, 100, { minNodes: 2, maxNodes: 4 }),
      // -N 2 -n 2: nodes 2 and 3 have a CPU free each (with 2 + 2 + 2 + 1 held it would wait for job 0's end)
      job(1, 2, 50, { minNodes: 2, maxNodes: 2 }),
      // -N 2 -n 2 -c 2: no node has 2 CPUs free until job 0 ends at 100: nodes 0 and 1
      job(2, 4, 10, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }),
      // -N 1 -n 1 -c 2: behind job 2 (its partition blocked); at 100 the fewest-CPU node that holds it: node 2
      job(3, 2, 5, { minNodes: 1, maxNodes: 1, cpusPerTask: 2 }),
      // -N 1 -n 3 -c 2: no node of 6 CPUs: refused at submission
      job(4, 6, 5, { minNodes: 1, maxNodes: 1, cpusPerTask: 2 }),
    ];
    const config: Partial<SlurmConfig> = willRunConfigOf('fifo', null);
    const row = (start: number, end: number, nodes: number[], units: number[]): NodeRow => ({ start, end, killed: false, periods: [], nodes, units });
    const want = new Map<number, NodeRow>([
      [0, row(0, 100, [0, 1, 2, 3], [2, 2, 1, 1])],
      [1, row(1, 51, [2, 3], [1, 1])],
      [2, row(100, 110, [0, 1], [2, 2])],
      [3, row(100, 105, [2], [2])],
      [4, { start: Number.NaN, end: Number.NaN, killed: true, periods: [], nodes: [], units: [] }],
    ]);
    expect(presetNodeRows(layout, config, jobs)).toEqual(want);
  });

  it('with any node request (--exclusive ranges, unequal nodes and other cores, -N above the tasks, cores not whole tasks of -c, oversubscribed -c, shapes on one-core nodes), under sched/builtin and each backfill pass, either job size factor: the same starts, ends, states, periods, nodes and CPUs on each', () => {
    const seen = {
      notWholeTasks: 0,
      moreNodes: 0,
      exclusiveRange: 0,
      exclusiveOther: 0,
      exclusiveUnequal: 0,
      oneCoreShape: 0,
      notWhole: 0,
      oversubscribed: 0,
      refused: 0,
    };
    for (const [name, layout] of [
      ['whole', WHOLE_NODES],
      ['multi', MULTI_CORE_NODES],
      ['shaped', SHAPED_NODES],
      ['odd', ODD_NODES],
    ] as const) {
      const oneCore = layout.groups.every((g) => g.cores === 1);
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom<Priority>('fifo', 'multifactor'),
          fc.constantFrom<'cores' | 'slurm22'>('cores', 'slurm22'),
          // sched/builtin, Slurm 22.05's will-run pass, or (one-core nodes) the node-profile pass
          fc.constantFrom<'builtin' | 'willRun' | 'profile'>('builtin', 'willRun', ...(oneCore ? (['profile'] as const) : [])),
          (seed, priority, jobSize, pass) => {
            // (the Slurm engine's node-profile pass sees only nodes held whole: no `whole: false` with it)
            const jobs = anyShapeWorkload(seed, 60, layout, pass !== 'profile');
            const settings = bfSettings();
            const config: Partial<SlurmConfig> = {
              ...slurmConfigOf(priority, pass === 'builtin' ? null : settings),
              nodeSelect: true,
              bfWillRun: pass !== 'profile',
            };
            config.priority = { ...config.priority!, jobSize, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
            const a = checkedNodeRows(layout, config, jobs);
            for (const [id, r] of a) {
              const { cores, shape } = jobs[id]!;
              if (shape === undefined) continue;
              if (Number.isNaN(r.start)) {
                seen.refused++;
                continue;
              }
              const held = r.units.reduce((x, y) => x + y, 0);
              const min = shape.minNodes ?? 1;
              const cpt = shape.cpusPerTask ?? 1;
              const whole = shape.whole ?? oneCore;
              if (whole) {
                if ((shape.maxNodes ?? 0) > min && r.nodes.length > min) seen.exclusiveRange++;
                if (held !== cores) seen.exclusiveOther++;
                if (new Set(r.units).size > 1) seen.exclusiveUnequal++;
                if (oneCore && r.nodes.length !== cores) seen.oneCoreShape++;
                continue;
              }
              if (oneCore) seen.notWhole++;
              const tasks = Math.max(1, Math.floor(cores / cpt));
              if (cores % cpt !== 0) seen.notWholeTasks++;
              if (min > tasks) seen.moreNodes++;
              // (its tasks' CPUs, `distTasks`: max(tasks, -N) tasks of -c; fewer where the relief valve oversubscribes)
              if (held < Math.max(tasks, min) * cpt) seen.oversubscribed++;
            }
          },
        ),
        { numRuns: 30, seed: derive(7, `preset-nodes/any-shape/${name}`).int(1_000_000) },
      );
    }
    console.log(`any shape: ${JSON.stringify(seen)}`);
    // each shape the preset refused before ran (and matched), many times; some requests refused by both
    expect(seen.notWholeTasks).toBeGreaterThan(100);
    expect(seen.moreNodes).toBeGreaterThan(100);
    expect(seen.exclusiveRange).toBeGreaterThan(50);
    expect(seen.exclusiveOther).toBeGreaterThan(100);
    expect(seen.exclusiveUnequal).toBeGreaterThan(20);
    expect(seen.oneCoreShape).toBeGreaterThan(50);
    expect(seen.notWhole).toBeGreaterThan(20);
    expect(seen.oversubscribed).toBeGreaterThanOrEqual(8);
    expect(seen.refused).toBeGreaterThan(10);
  });

  it("hand-computed: a job holds its tasks' CPUs whatever its cores (-n 5 -c 2: 2 + 2; -N 3 of 2 CPUs: 1 + 1 + 1; --exclusive -N 1-2 of 3 CPUs: one whole node), and what it holds decides who waits", () => {
    const layout: Layout = { groups: [{ name: 'n', count: 4, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const job = shapedJob;
    const jobs = [
      // 5 CPUs of -c 2: 2 tasks (at most 2 nodes); _eval_nodes chooses 4 on node 0, then 2 (a task) on node 1: 2 + 2 held
      job(0, 5, 100, { cpusPerTask: 2 }),
      // -N 3 with 2 CPUs: 3 nodes (more than its tasks), one CPU each on nodes 0, 1, 2 (free 2, 2, 4: _cpus_to_use keeps one for each node to come)
      job(1, 2, 50, { minNodes: 3 }),
      // --exclusive -N 1-2 with 3 CPUs: only node 3 is idle: one whole node, its 4 CPUs (the range aims at 2)
      job(2, 3, 30, { whole: true, minNodes: 1, maxNodes: 2 }),
      // -N 1 of 4 CPUs: no node has 4 free (1, 1, 3, 0) until job 2 ends at 32: node 3
      job(3, 4, 10, { minNodes: 1, maxNodes: 1 }),
      // 1 CPU: behind job 3 (FIFO, the partition blocked); at 32 the node of the fewest free CPUs that holds it: node 0
      job(4, 1, 5, { minNodes: 1 }),
    ];
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', null), users: 1 };
    const row = (start: number, end: number, nodes: number[], units: number[]): NodeRow => ({ start, end, killed: false, periods: [], nodes, units });
    const want = new Map<number, NodeRow>([
      [0, row(0, 100, [0, 1], [2, 2])],
      [1, row(1, 51, [0, 1, 2], [1, 1, 1])],
      [2, row(2, 32, [3], [4])],
      [3, row(32, 42, [3], [4])],
      [4, row(32, 37, [0], [1])],
    ]);
    expect(presetNodeRows(layout, config, jobs)).toEqual(want);
  });

  it('hand-computed: --exclusive on unequal nodes holds them whole (4 + 2 for 3 cores), a shape on one-core nodes holds -N nodes (not its cores), -N 1-3 whole takes the idle nodes there are', () => {
    const unequal: Layout = {
      groups: [
        { name: 'big', count: 1, cores: 4 },
        { name: 'small', count: 2, cores: 2 },
      ],
      partitions: [{ name: 'p', groups: ['big', 'small'] }],
    };
    const job = shapedJob;
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', null), users: 1 };
    const row = (start: number, end: number, nodes: number[], units: number[]): NodeRow => ({ start, end, killed: false, periods: [], nodes, units });
    // --exclusive -N 2 with 3 cores: the first two idle nodes of the one run, 4 + 2 CPUs; then 1 CPU on the node left: node 2
    const a = [job(0, 3, 100, { whole: true, minNodes: 2 }), job(1, 1, 10, {})];
    const wantA = new Map<number, NodeRow>([
      [0, row(0, 100, [0, 1], [4, 2])],
      [1, row(1, 11, [2], [1])],
    ]);
    expect(presetNodeRows(unequal, config, a)).toEqual(wantA);
    // four one-core nodes: -N 2 with 3 cores holds nodes 0 and 1 (whole, by default); -N 1-3 with 1 core: the idle nodes 2 and 3
    const ones: Layout = { groups: [{ name: 'w', count: 4, cores: 1 }], partitions: [{ name: 'p', groups: ['w'] }] };
    const b = [job(0, 3, 100, { minNodes: 2 }), job(1, 1, 10, { minNodes: 1, maxNodes: 3 }), job(2, 1, 10, {})];
    const wantB = new Map<number, NodeRow>([
      [0, row(0, 100, [0, 1], [1, 1])],
      [1, row(1, 11, [2, 3], [1, 1])],
      // 1 core, no shape (one whole node): waits for job 1's nodes
      [2, row(11, 21, [2], [1])],
    ]);
    expect(presetNodeRows(ones, config, b)).toEqual(wantB);
    // --exclusive without -N: as many whole nodes as its cores (3), on unequal nodes too (3 cores: nodes 0 and 1, 4 + 2)
    const c = [job(0, 3, 10, { whole: true })];
    const wantC = new Map<number, NodeRow>([[0, row(0, 10, [0, 1, 2], [1, 1, 1])]]);
    expect(presetNodeRows(ones, config, c)).toEqual(wantC);
    const wantD = new Map<number, NodeRow>([[0, row(0, 10, [0, 1, 2], [4, 2, 2])]]);
    expect(presetNodeRows(unequal, config, c)).toEqual(wantD);
  });

  it("holds what the Slurm engine holds where Slurm oversubscribes a -c job's CPUs (-n 4 -c 3 on idle 4-CPU nodes: 4 + 3 + 3), the CPUs its usage counts", () => {
    // -n 4 -c 3 on partition a's idle 4-CPU nodes: Slurm gives 4 + 3 + 3 = 10 CPUs for 12 (two tasks on node 0's 4)
    const job: SlurmJobInput = { id: 1, submit: 0, cores: 12, runTime: 10, timeLimit: 20, user: 0, shape: { cpusPerTask: 3 } };
    const config: Partial<SlurmConfig> = { nodeSelect: true, backfill: false, users: 1 };
    const want = new Map<number, NodeRow>([[1, { start: 0, end: 10, killed: false, periods: [], nodes: [0, 1, 2], units: [4, 3, 3] }]]);
    // (the Slurm engine's job holds them, as the live Slurm's does: test/slurm/nodeRangesLive.test.ts)
    expect(presetNodeRows(SHAPED_NODES, config, [job])).toEqual(want);
    const cores: number[] = [];
    runSlurmPreset(SHAPED_NODES, [job], config, [{ onStart: (_s, rj) => void cores.push(rj.cores.length) }]);
    expect(cores).toEqual([10]);
  });

  it('the preset refuses the node-profile planner on nodes of several cores (no model of Slurm), as an input error', () => {
    // it takes a job's units for whole nodes and sees nodes shared by jobs as free: the Slurm engine once started
    // a job on a node already running another (seed 1 of nodeWorkload on these nodes: "job 13 given node 1 whole")
    const why = /slurm config: nodeSelect with sched\/backfill on nodes of several cores needs bfWillRun: .*set bfWillRun, or backfill: false/;
    const jobs = nodeWorkload(1, 60, MULTI_CORE_NODES);
    const config: Partial<SlurmConfig> = {
      ...slurmConfigOf('fifo', { interval: 5, window: 3_600, resolution: 10, maxJobTest: 100, grid: false, slurmRounding: false, reserveIdle: 'none' }),
      nodeSelect: true,
    };
    expect(() => runSlurmPreset(MULTI_CORE_NODES, jobs, config)).toThrow(InputError);
    expect(() => runSlurmPreset(MULTI_CORE_NODES, jobs, config)).toThrow(why);
    // on one-core nodes the planner is the whole-node model (above); with bfWillRun or without backfill, any nodes
    expect(() => runSlurmPreset(WHOLE_NODES, [], config)).not.toThrow();
    expect(() => runSlurmPreset(MULTI_CORE_NODES, [], { ...config, bfWillRun: true })).not.toThrow();
    expect(() => runSlurmPreset(MULTI_CORE_NODES, [], { ...config, backfill: false })).not.toThrow();
  });

  it('refuses what it does not model yet, naming it', () => {
    expect(() => slurmPresetConfig(MULTI_CORE_NODES, { nodeSelect: true, bfWillRun: true })).not.toThrow();
    expect(() => slurmPresetConfig(WHOLE_NODES, { nodeSelect: true, backfill: true })).not.toThrow();
    expect(() => slurmPresetConfig(MULTI_CORE_NODES, { nodeSelect: true, backfill: false })).not.toThrow();
    const preempting: Layout = {
      groups: MULTI_CORE_NODES.groups,
      partitions: [
        { name: 'low', groups: ['m0'], preempt_mode: 'requeue' },
        { name: 'high', groups: ['m0'], priority_tier: 2 },
      ] as Layout['partitions'],
    };
    // partitions that preempt are modelled with whole-node allocation too (test/slurm/presetPreemptNodes.test.ts)
    expect(() => slurmPresetConfig(preempting, { nodeSelect: true, backfill: false })).not.toThrow();
    expect(() =>
      slurmPresetConfig(
        { ...MULTI_CORE_NODES, groups: [{ name: 'm0', count: 2, cores: 4, gpus: { count: 2, type: 'a100' } }] },
        { nodeSelect: true, backfill: false },
      ),
    ).not.toThrow(); // GPUs on nodes: test/slurm/presetGpuNodes.test.ts
    const job: SlurmJobInput = { id: 1, submit: 0, cores: 2, runTime: 10, timeLimit: 20, user: 0 };
    const run =
      (j: SlurmJobInput, layout: Layout = MULTI_CORE_NODES) =>
      () =>
        runSlurmPreset(layout, [j], { nodeSelect: true, backfill: false, users: 1 });
    const mem = { ...MEMORY_NODES, partitions: [{ name: 'a', groups: ['x0', 'x1'] }] };
    // --mem with --mem-per-cpu: both bind, the --mem is held (test/slurm/presetNodes.test.ts, memory hand-computed)
    expect(run({ ...job, shape: { memPerNode: 100, memPerCpu: 100 } }, mem)().summary.jobs_finished).toBe(1);
    // no node holds 9,000 MB, nor 3 CPUs of 3,000 MB: refused at submission (the Slurm engine refuses them too)
    expect(run({ ...job, shape: { memPerNode: 9000 } }, mem)().summary.jobs_rejected).toBe(1);
    expect(run({ ...job, cores: 3, shape: { memPerCpu: 3000, minNodes: 1, maxNodes: 1 } }, mem)().summary.jobs_rejected).toBe(1);
    const mixed = { groups: [...MEMORY_NODES.groups, { name: 'y', count: 1, cores: 4 }], partitions: [{ name: 'a', groups: ['x0', 'y'] }] };
    // groups with and without memory_mb: the nodes without have unlimited memory (the Slurm engine's Infinity)
    expect(run({ ...job, shape: { memPerNode: 1e9 } }, mixed)().summary.jobs_finished).toBe(1);
    // memory not consumable (no memory_mb): the request is dropped, as the Slurm engine ignores it
    expect(run({ ...job, shape: { memPerNode: 1e9 } })().summary.jobs_finished).toBe(1);
    // shapes are no longer refused (above): --exclusive on unequal nodes, a node range, other cores; -N above the tasks; -c not dividing the cores; whole: false on one-core nodes
    expect(run({ ...job, shape: { whole: true } })().summary.jobs_finished).toBe(1);
    expect(run({ ...job, cores: 8, shape: { whole: true, minNodes: 2, maxNodes: 3 } }, SHAPED_NODES)().summary.jobs_finished).toBe(1);
    expect(run({ ...job, cores: 5, shape: { minNodes: 2, cpusPerTask: 2 } }, SHAPED_NODES)().summary.jobs_finished).toBe(1);
    expect(run({ ...job, cores: 4, shape: { minNodes: 3, cpusPerTask: 2 } }, SHAPED_NODES)().summary.jobs_finished).toBe(1);
    expect(run({ ...job, shape: { whole: false } }, WHOLE_NODES)().summary.jobs_finished).toBe(1);
    expect(() => runSlurmPreset(MULTI_CORE_NODES, [], { nodeSelect: true, backfill: false, users: 1 }, [], 'counted')).toThrow(/capacity "cores" only/);
  });
});

describe('Slurm\'s main pass within: "nodes" through the engine configuration', () => {
  it("refuses at submission the node requests the select plugin cannot give as the job's tasks, naming why", () => {
    const engine = parseEngineConfig({ pass_clock: { slurm: { main: 'slurm', within: 'nodes', sched_on_submit: true, sched_interval: 0 } } });
    const run = (job: Job) => () =>
      runSimulation(platformFromNodeGroups(SHAPED_NODES), [job], makeScheduler('fcfs:first'), { engine, timeOrigin: 0, unfit: 'error' });
    const base = { id: 'j', subtime: 0, runtime: 10, reqTime: 10, partition: 'a' };
    // -N 1 -c 2 of 6 CPUs on 4-CPU nodes: no node holds it (Slurm: "Requested node configuration is not available")
    expect(run(makeJob({ ...base, ntasks: 6, slurmRequest: { minNodes: 1, maxNodes: 1, cpusPerTask: 2 } }))).toThrow(
      /asks for 6 CPUs \(3 tasks of 2\) on 1 nodes, which Slurm's select plugin cannot place on its partition's nodes even when all are idle/,
    );
    // -N 2-3 -n 4 -c 2 on partition b's 2-CPU nodes: 8 CPUs on at most 3 nodes of 2
    expect(run(makeJob({ ...base, partition: 'b', ntasks: 8, slurmRequest: { minNodes: 2, maxNodes: 3, cpusPerTask: 2 } }))).toThrow(/on 2-3 nodes, which/);
    expect(run(makeJob({ ...base, ntasks: 6, nodes: 2, ntasksPerNode: 3, slurmRequest: { exclusive: true, minNodes: 2 } }))).toThrow(
      /is exclusive but its shape is not 2 whole nodes/,
    );
    expect(run(makeJob({ ...base, ntasks: 8, nodes: 2, ntasksPerNode: 4, slurmRequest: { exclusive: true, minNodes: 2, memPerNode: 10 } }))).toThrow(
      /is exclusive and asks for memory on each node \(--mem\)/,
    );
    // --mem above every node's memory (1024 GB here): never placeable
    expect(run(makeJob({ ...base, ntasks: 2, slurmRequest: { memPerNode: 2e6 } }))).toThrow(
      /asks for 2000000 MB on each of its nodes \(--mem\); the largest node of partition a has 1048576 MB/,
    );
    // whole 4-core nodes: placed, on two idle nodes, all their cores
    const started: number[][] = [];
    const ok = runSimulation(
      platformFromNodeGroups(SHAPED_NODES),
      [makeJob({ ...base, ntasks: 8, nodes: 2, ntasksPerNode: 4, slurmRequest: { exclusive: true, minNodes: 2 } })],
      makeScheduler('fcfs:first'),
      { engine, timeOrigin: 0, unfit: 'error', listeners: [{ onStart: (_s, rj) => void started.push([...rj.nodes]) }] },
    );
    expect([ok.summary.jobs_finished, ok.summary.jobs_rejected]).toEqual([1, 0]);
    expect(started).toEqual([[0, 1]]);
  });
});

describe('SlurmNodeSelection (the select plugin on the core capacity), hand-computed', () => {
  it('takes the shortest run of free nodes that holds the job, and the fewest-unit node for a last node', () => {
    // six nodes of 2 cores (node n: cores 2n, 2n + 1); nodes 1 and 4 busy: runs of free nodes {0}, {2, 3}, {5}
    const platform = platformFromNodeGroups({ groups: [{ name: 'g', count: 6, cores: 2 }] });
    const hold = (id: string, n: number) => makeJob({ id, subtime: 0, ntasks: n, runtime: 100, reqTime: 100 });
    const x = hold('x', 2);
    const y = hold('y', 2);
    const sim = new ClusterSimulator(platform, [x, y], { timeOrigin: 0 });
    sim.runUntil(0);
    const select = new SlurmNodeSelection();
    sim.startJob(x, Int32Array.of(2, 3));
    sim.startJob(y, Int32Array.of(8, 9));
    // 4 units: the run {2,3} (nodes 2 and 3, 4 free cores) is the shortest sufficient one
    expect([...select.place(sim, hold('a', 4), 'first_fit')!]).toEqual([4, 5, 6, 7]);
    // 1 unit: one node left to choose: the first run's node with the fewest units that holds it (node 0)
    expect([...select.place(sim, hold('b', 1), 'first_fit')!]).toEqual([0]);
    // 7 units: no run holds them; the largest run gives 2 + 2 (nodes 2, 3), then the first of the equal runs
    // ({0}: 2), then {5}, sufficient now, gives the last unit (one core of node 5)
    expect([...select.place(sim, hold('c', 7), 'first_fit')!]).toEqual([0, 1, 4, 5, 6, 7, 10]);
    // 9 units: more than the 8 free
    expect(select.place(sim, hold('d', 9), 'first_fit')).toBeNull();
  });
});
