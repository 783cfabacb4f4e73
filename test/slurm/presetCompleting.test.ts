/**
 * Nodes left `COMPLETING` after a job in the Slurm preset (issue 42; docs/slurm.md "Issue 43's last rules", item
 * 2): with whole-node allocation and Slurm 22.05's will-run backfill, a job's `completing` time (slurmd's
 * answer, or its epilog message) keeps its nodes out of the main pass after its end while its CPUs are free, a
 * will-run backfill start on them waits a second, and the release, not the end, asks for the pass (an epilog
 * message's at once under the background thread). The one engine models it as a lifecycle rule of its own
 * (`Job.completing`, `ClusterSimulator`'s release, `Allocation.completingNodes`); the preset gives the Slurm
 * engine's schedules and nodes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { ClusterSimulator } from '../../src/execution/simulator.js';
import { platformFromNodeGroups } from '../../src/platform/views.js';
import { makeJob } from '../../src/workload/job.js';
import { platformPolicy } from '../../src/scheduling/placement.js';
import { InputError } from '../../src/core/errors.js';
import { type Layout, MULTI_CORE_NODES, SHAPED_NODES, WHOLE_NODES } from './layouts.js';
import { bfSettings, checkedNodeRows, type NodeRow, nodeWorkload, type Priority, presetNodeRows, slurmConfigOf, willRunConfigOf } from './presetHarness.js';

/** Two nodes of two cores, one partition. */
const TWO_NODES: Layout = { groups: [{ name: 'n', count: 2, cores: 2 }], partitions: [{ name: 'p', groups: ['n'] }] };

/**
 * `jobs` with, drawn per job, nodes left COMPLETING after it (six in ten: 0.2 s to 40 s, some off the whole
 * second) and, for a third of those, released by an epilog message.
 */
function withCompleting(seed: number, jobs: SlurmJobInput[], fractional: boolean): SlurmJobInput[] {
  const rng = derive(seed, 'preset-completing/times');
  return jobs.map((j) => {
    if (rng.next() >= 0.6) return j;
    const completing =
      [1, 2, 3, 12, 40][Math.floor(rng.uniform(0, 5))]! + (fractional && rng.next() < 0.5 ? [0.2, 0.37, 0.5][Math.floor(rng.uniform(0, 3))]! : 0);
    return rng.next() < 1 / 3 ? { ...j, completing, epilogPass: true } : { ...j, completing };
  });
}

describe("the Slurm preset with nodes left COMPLETING after a job gives the Slurm engine's schedules", () => {
  it("on random workloads (whole-node and multi-core nodes), sched/builtin and Slurm 22.05's will-run pass, with and without the background thread: the same starts, ends, states, periods and nodes", () => {
    const counts = { completing: 0, epilogReleases: 0, moved: 0, atRelease: 0, backfilled: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.constantFrom<Layout>(WHOLE_NODES, MULTI_CORE_NODES),
        fc.boolean(),
        fc.constantFrom(0, 0, 1, 2),
        fc.boolean(),
        (seed, priority, layout, backfill, batch, fractional) => {
          const plain = nodeWorkload(seed, 60, layout, fractional);
          const jobs = withCompleting(seed, plain, fractional);
          const settings = bfSettings();
          const timers: Partial<SlurmConfig> = batch > 0 ? { batchSchedDelay: batch, schedOnSubmit: false, schedInterval: 60 } : {};
          const config: Partial<SlurmConfig> = willRunConfigOf(priority, backfill ? settings : null, timers);
          config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
          const a = checkedNodeRows(layout, config, jobs);
          // the feature at work: jobs whose nodes completed, epilog releases under the background thread, starts
          // it moved (against the same jobs without it), starts at a release, backfill starts
          const without = checkedNodeRows(layout, config, plain);
          const releases = new Set<number>();
          for (const j of jobs) {
            const r = a.get(j.id)!;
            if (j.completing === undefined || Number.isNaN(r.start)) continue;
            counts.completing++;
            if (j.epilogPass && batch > 0) counts.epilogReleases++;
            releases.add(r.end + j.completing);
          }
          for (const [id, r] of a) {
            if (without.get(id)!.start !== r.start) counts.moved++;
            if (releases.has(r.start)) counts.atRelease++;
            if (jobs.some((j) => j.id < id && j.partition === jobs[id]!.partition && a.get(j.id)!.start > r.start)) counts.backfilled++;
          }
        },
      ),
      { numRuns: 60, seed: derive(7, 'preset-completing/random').int(1_000_000), endOnFailure: true },
    );
    console.log(`completing: ${JSON.stringify(counts)}`);
    expect(counts.completing).toBeGreaterThan(1_000);
    expect(counts.epilogReleases).toBeGreaterThan(100);
    expect(counts.moved).toBeGreaterThan(500);
    expect(counts.atRelease).toBeGreaterThan(100);
    expect(counts.backfilled).toBeGreaterThan(100);
  });

  it('with node requests (--exclusive, -N MIN[-MAX], -c) and COMPLETING nodes: the same starts, ends, states, periods, nodes and CPUs', () => {
    let completing = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.boolean(), fc.constantFrom(0, 2), (seed, backfill, batch) => {
        const jobs = withCompleting(seed, shaped(seed), false);
        const settings = bfSettings();
        const timers: Partial<SlurmConfig> = batch > 0 ? { batchSchedDelay: batch, schedOnSubmit: false } : {};
        const config: Partial<SlurmConfig> = willRunConfigOf('multifactor', backfill ? settings : null, timers);
        const a = checkedNodeRows(SHAPED_NODES, config, jobs);
        completing += jobs.filter((j) => j.completing !== undefined && j.shape !== undefined && !Number.isNaN(a.get(j.id)!.start)).length;
      }),
      { numRuns: 25, seed: derive(7, 'preset-completing/shaped').int(1_000_000), endOnFailure: true },
    );
    expect(completing).toBeGreaterThan(300);
  });
});

/**
 * `nodeWorkload` on `SHAPED_NODES` with node requests: a quarter `--exclusive` on whole nodes, every other job of
 * partition `a` `-N MIN` of `-c 2` tasks (no job of one CPU there: odd free counts would make Slurm oversubscribe
 * a `-c 2` job, which the preset refuses), the rest of `b` none.
 */
function shaped(seed: number): SlurmJobInput[] {
  const rng = derive(seed, 'preset-completing/shapes');
  return nodeWorkload(seed, 60, SHAPED_NODES).map((j) => {
    const u = rng.next();
    const part = j.partition ?? 0;
    if (u < 0.25) {
      const nodes = 1 + Math.floor(rng.uniform(0, 2));
      return { ...j, cores: nodes * (part === 0 ? 4 : 2), shape: { whole: true, minNodes: nodes } };
    }
    if (part === 0) {
      const min = 1 + Math.floor(rng.uniform(0, 2));
      const tasks = min + Math.floor(rng.uniform(0, 4));
      return { ...j, cores: 2 * tasks, shape: { minNodes: min, cpusPerTask: 2 } };
    }
    return j;
  });
}

describe('nodes left COMPLETING, hand-computed', () => {
  /** Two nodes of two cores; job 0 (2 CPUs, 10 s, nodes COMPLETING 5 s after) on node 0, job 1 (2 CPUs, 20 s) on node 1, job 3 (1 CPU, 2 s) submitted at `late`. */
  const jobs = (late: number, epilog: boolean): SlurmJobInput[] => [
    { id: 0, submit: 0, cores: 2, runTime: 10, timeLimit: 100, user: 0, completing: 5, ...(epilog ? { epilogPass: true } : {}) },
    { id: 1, submit: 1, cores: 2, runTime: 20, timeLimit: 100, user: 0 },
    { id: 3, submit: late, cores: 1, runTime: 2, timeLimit: 100, user: 0 },
  ];
  const row = (start: number, end: number, node: number, units: number): NodeRow => ({ start, end, killed: false, periods: [], nodes: [node], units: [units] });

  it('a node COMPLETING takes no job while its CPUs are free; its release starts the job waiting (both engines)', () => {
    const config: Partial<SlurmConfig> = { ...willRunConfigOf('fifo', null), users: 1 };
    // job 0 ends at 10 on node 0, which completes until 15: job 3 (submitted at 12, node 0's two CPUs free) waits
    // for the release at 15, which asks for the pass that starts it there (without COMPLETING: at 12)
    const want = new Map([
      [0, row(0, 10, 0, 2)],
      [1, row(1, 21, 1, 2)],
      [3, row(15, 17, 0, 1)],
    ]);
    expect(presetNodeRows(TWO_NODES, config, jobs(12, false))).toEqual(want);
    const plain = jobs(12, false).map(({ completing: _c, ...j }) => j);
    expect(presetNodeRows(TWO_NODES, config, plain).get(3)).toEqual(row(12, 14, 0, 1));
  });

  it("the release by an epilog message runs the pass at once; slurmd's answer waits for the background thread (both engines)", () => {
    // batch_sched_delay 2 s, ticks at k + 0.5: job 0 starts at 0.5 (ends 10.5, node 0 completing until 15.5), job 1
    // at 2.5, job 3 (submitted at 14) is tested at 14.5 (node 0 still completing). The release at 15.5 queues a
    // pass for the thread's first tick 2 s after 14.5: 16.5; an epilog message's release runs it at 15.5.
    const config: Partial<SlurmConfig> = {
      ...slurmConfigOf('fifo', null, { batchSchedDelay: 2, bgTickPhase: 0.5, schedOnSubmit: false }),
      users: 1,
      nodeSelect: true,
      bfWillRun: true,
    };
    for (const [epilog, start] of [
      [false, 16.5],
      [true, 15.5],
    ] as const) {
      const want = new Map([
        [0, row(0.5, 10.5, 0, 2)],
        [1, row(2.5, 22.5, 1, 2)],
        [3, row(start, start + 2, 0, 1)],
      ]);
      expect(presetNodeRows(TWO_NODES, config, jobs(14, epilog)), `epilog ${epilog}`).toEqual(want);
    }
  });

  it('on the one engine alone: the core capacity refuses a placement on a COMPLETING node, any resource selection skips it, the release is heard', () => {
    const platform = platformFromNodeGroups({ groups: [{ name: 'n', count: 2, cores: 2 }] });
    const a = makeJob({ id: 'a', subtime: 0, ntasks: 2, runtime: 10, completing: 5 });
    const b = makeJob({ id: 'b', subtime: 11, ntasks: 2, runtime: 1 });
    const sim = new ClusterSimulator(platform, [a, b]);
    const released: [string, number][] = [];
    sim.addListener({ onRelease: (s, r) => void released.push([r.job.id, s.now]) });
    expect(sim.advance()).toBe(true);
    sim.startJob(a, [0, 1]);
    expect(sim.advance()).toBe(true);
    expect(sim.now).toBe(11);
    expect(sim.completingNodes?.[0]).toBe(1);
    expect(sim.placementError(b, [0, 1])).toMatch(/node 0 is COMPLETING/);
    expect(sim.placementError(b, [2, 3])).toBeNull();
    expect([...platformPolicy.place(sim, b, 'first_fit')!]).toEqual([2, 3]);
    sim.runUntil(15);
    expect(released).toEqual([['a', 15]]);
    expect(sim.completingNodes).toBeNull();
    expect(sim.placementError(b, [0, 1])).toBeNull();
    // the counted capacity has no nodes to keep COMPLETING
    expect(() => new ClusterSimulator(platform, [a], { capacity: 'counted' }).advance()).toThrow(InputError);
  });
});
