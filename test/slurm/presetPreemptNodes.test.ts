/**
 * The Slurm preset with whole-node allocation (`nodeSelect`) and partitions that preempt
 * (`PreemptType=preempt/partition_prio`, issue 42): the one engine's Slurm main pass `within: "nodes"` preempts
 * as the Slurm engine's `preemptForNodes` does (the candidates the jobs on the preemptor's partition's nodes,
 * none preempted unless the select plugin would place it with all of them gone, then one at a time in Slurm's
 * order until it does), and a job preempted by suspension resumes at a later main pass where the select
 * plugin places it then. On random workloads over partitions of one-core nodes and of nodes of several cores,
 * suspend, requeue or cancel, sched/builtin or backfill, both engines give every job the same start, end,
 * state, suspension periods, and nodes at each start and resumption.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import type { PreemptMode } from '../../src/platform/partitions.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { runSlurmPreset, slurmPresetRefusal } from '../../src/slurm/preset.js';
import { type Layout, MULTI_CORE_NODES, SHAPED_NODES, WHOLE_NODES } from './layouts.js';
import { type NodeRow, partitionedWorkload, presetNodeRows, type Priority, slurmConfigOf, slurmNodeRows } from './presetHarness.js';

/** `base`'s groups under three partitions: `a` (tier 1, `modeA`) and `c` (tier 1, `modeC`) under `b` (tier 2), `b` sharing a group with each. */
function preempting(base: Layout, modeA: PreemptMode, modeC: PreemptMode): Layout {
  const [g0, g1, g2] = base.groups.map((g) => g.name) as [string, string, string];
  return {
    groups: base.groups,
    partitions: [
      { name: 'a', groups: [g0, g1], priority_tier: 1, preempt_mode: modeA },
      { name: 'b', groups: [g1, g2], priority_tier: 2 },
      { name: 'c', groups: [g2], max_time: 500, priority_tier: 1, preempt_mode: modeC },
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
            const settings = { interval: 5, window: 3_600, resolution: 10, maxJobTest: 100, grid: false, slurmRounding: false, reserveIdle: 'none' as const };
            const config: Partial<SlurmConfig> = {
              ...slurmConfigOf(priority, bf ? settings : null, timers ? { schedInterval: 60, schedMinInterval: 2, schedDelay: 1 } : {}),
              nodeSelect: true,
              bfWillRun: backfill === 'will-run',
            };
            config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_SLURM.priority.calcPeriod };
            const a = slurmNodeRows(layout, config, jobs, { runs: true });
            const b = presetNodeRows(layout, config, jobs, { runs: true });
            expect(b.size).toBe(a.size);
            for (const [id, r] of a) expect(b.get(id), `job ${id}`).toEqual(r);
            count(seen, jobs, a);
          },
        ),
        { numRuns: 60, seed: derive(7, `preset-preempt-nodes/${name}`).int(1_000_000) },
      );
      console.log(`${name}: ${JSON.stringify(seen)}`);
      expect(seen.suspended).toBeGreaterThan(30);
      expect(seen.resumed).toBeGreaterThan(30);
      expect(seen.moved).toBeGreaterThan(5);
      expect(seen.requeued).toBeGreaterThan(30);
      expect(seen.cancelled).toBeGreaterThan(30);
    });
});
