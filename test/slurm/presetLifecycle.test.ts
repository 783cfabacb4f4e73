/**
 * The Slurm preset's lifecycle beside the Slurm engine (issue 42): partitions that preempt (suspend,
 * requeue, cancel inside Slurm's main pass, within one group), and GPU jobs counted per node group,
 * suspended by an operator too; each a differential property over random workloads (presetHarness.ts; the
 * Slurm engine's hand-computed scenarios run on both engines in engine.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import type { PreemptMode } from '../../src/platform/partitions.js';
import type { SlurmBackfillSettings } from '../../src/scheduling/slurmBackfill.js';
import { runSlurmPreset } from '../../src/slurm/preset.js';
import { LAYOUT, type Layout } from './layouts.js';
import { checkedRecs, checkedRows, partitionedWorkload, type Priority, slurmConfigOf, workload } from './presetHarness.js';

describe('the Slurm preset with partitions that preempt (PreemptType=preempt/partition_prio)', () => {
  // (the Slurm engine's hand-computed scenarios, low 4 x 100 s at 0 and high 4 x 50 s at 20 on one 4-core node,
  // run on both engines in test/slurm/engine.test.ts)
  it('on the core capacity a preempted job would resume on its own cores only: refused', () => {
    const layout: Layout = {
      groups: [{ name: 'n', count: 1, cores: 4 }],
      partitions: [
        { name: 'low', groups: ['n'], priority_tier: 1, preempt_mode: 'suspend' },
        { name: 'high', groups: ['n'], priority_tier: 2 },
      ],
    };
    expect(() => runSlurmPreset(layout, [], slurmConfigOf('fifo', null), [], 'cores')).toThrow(/preempts on the counted capacity only/);
  });

  it("gives the Slurm engine's schedules: suspend, requeue or cancel within one group, inside the main pass's walk", () => {
    let cancelled = 0;
    let resumed = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
        fc.constantFrom<PreemptMode>('off', 'suspend', 'requeue'),
        fc.boolean(),
        fc.record({
          schedOnSubmit: fc.boolean(),
          schedDelay: fc.constantFrom(0, 0.25),
          schedMinInterval: fc.constantFrom(0, 1),
          schedInterval: fc.constantFrom(0, 60),
          batchSchedDelay: fc.constantFrom(0, 0, 2),
        }),
        // ends reported by an epilog message (a pass at once under the background thread)
        fc.constantFrom(0, 0.3),
        (seed, priority, modeA, modeC, backfill, timers, endShare) => {
          // a (tier 1) and c (tier 1) under b (tier 2), which shares g1 with a and g2 with c
          const layout: Layout = {
            groups: LAYOUT.groups,
            partitions: [
              { name: 'a', groups: ['g0', 'g1'], priority_tier: 1, preempt_mode: modeA },
              { name: 'b', groups: ['g1', 'g2'], priority_tier: 2 },
              { name: 'c', groups: ['g2'], max_time: 500, priority_tier: 1, preempt_mode: modeC },
            ],
          };
          const jobs = partitionedWorkload(seed, 120, layout);
          const bf: SlurmBackfillSettings | null = backfill
            ? { interval: 30, grid: true, window: 86_400, resolution: 60, maxJobTest: 100, slurmRounding: false, reserveIdle: 'none' }
            : null;
          const config = slurmConfigOf(priority, bf, {
            ...timers,
            schedOnSubmit: timers.schedOnSubmit && timers.batchSchedDelay === 0,
            endSchedShare: endShare,
          });
          const a = checkedRows(jobs, layout, config);
          for (const j of jobs) {
            const r = a.get(j.id)!;
            if (j.partition !== 1 && r.periods.length > 0 && j.opAfter === undefined) resumed++;
          }
          // cancelled by a preemption: ended, killed, before its run or its limit was up (no operator suspension to move it)
          cancelled += jobs.filter((j) => {
            const r = a.get(j.id)!;
            return j.opAfter === undefined && r.killed && r.periods.length === 0 && r.end < r.start + Math.min(j.runTime, j.timeLimit);
          }).length;
        },
      ),
      { numRuns: 150, seed: 61 },
    );
    // jobs suspended by a preemption and resumed by a later pass, and jobs cancelled by one, in the runs compared
    expect(resumed).toBeGreaterThan(50);
    expect(cancelled).toBeGreaterThan(50);
  });
});

describe('the Slurm preset with GPUs (counted per node group beside the cores, of a type or any)', () => {
  /** g0: 2 nodes x 8 cores x 2 v100; g1: 1 x 8 x 2 k80; g2: 2 x 4 without GPUs. `gpu` {g1, g0}, `cpu` {g2, g0}. */
  const GPUS: Layout = {
    groups: [
      { name: 'g0', count: 2, cores: 8, gpus: { count: 2, type: 'v100' } },
      { name: 'g1', count: 1, cores: 8, gpus: { count: 2, type: 'k80' } },
      { name: 'g2', count: 2, cores: 4 },
    ],
    partitions: [
      { name: 'gpu', groups: ['g1', 'g0'] },
      { name: 'cpu', groups: ['g2', 'g0'] },
    ],
  };
  it("gives the Slurm engine's schedules, sched/builtin or backfill, FIFO or multifactor", () => {
    let gpuStarts = 0;
    let gpuSuspended = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom<Priority>('fifo', 'multifactor'), fc.boolean(), (seed, priority, backfill) => {
        const rng = derive(seed, 'one-engine/gpus');
        const jobs = workload(seed, 120, 8).map((j) => {
          if (rng.next() < 0.5) return { ...j, partition: 1, cores: 1 + Math.floor(rng.uniform(0, 4)) };
          // a GPU job (with its operator suspension, if drawn: it keeps its cores and GPUs), of 1-3 GPUs of a type or any (k80 jobs fit only g1's 2)
          const type = rng.next() < 0.3 ? 'k80' : rng.next() < 0.5 ? 'v100' : undefined;
          return { ...j, partition: 0, gpus: 1 + Math.floor(rng.uniform(0, type === 'k80' ? 2 : 3)), ...(type ? { gpuType: type } : {}) };
        });
        const bf: SlurmBackfillSettings | null = backfill
          ? { interval: 30, grid: false, window: 86_400, resolution: 60, maxJobTest: 100, slurmRounding: false, reserveIdle: 'none' }
          : null;
        const a = checkedRows(jobs, GPUS, slurmConfigOf(priority, bf));
        gpuStarts += jobs.filter((j) => (j.gpus ?? 0) > 0 && !Number.isNaN(a.get(j.id)!.start)).length;
        gpuSuspended += jobs.filter((j) => (j.gpus ?? 0) > 0 && a.get(j.id)!.periods.length > 0).length;
      }),
      { numRuns: 30, seed: 45 },
    );
    expect(gpuStarts).toBeGreaterThan(1000);
    expect(gpuSuspended).toBeGreaterThan(100);
  });
});

describe('an operator suspension after a preemption (the Slurm engine counts the run stretch by stretch)', () => {
  it('off-the-second times: the suspension, resumption and end of the preempted job the same to the bit on both engines', () => {
    const layout = {
      groups: [{ name: 'n', count: 1, cores: 4 }],
      partitions: [
        { name: 'low', groups: ['n'], priority_tier: 1, preempt_mode: 'suspend' as const },
        { name: 'high', groups: ['n'], priority_tier: 2 },
      ],
    };
    const rng = derive(2026, 'preset/operator-after-preemption');
    // times of three decimals and an odd tenth: sums of them are not exact in binary
    const t = (a: number) => Math.round(a * rng.uniform(1, 2) * 1000) / 1000 + 0.1;
    let suspendedTwice = 0;
    for (let k = 0; k < 300; k++) {
      const start = t(1);
      // the high job preempts the low one before its operator event (its run so far then a sum of two stretches)
      const jobs = [
        { id: 1, submit: start, cores: 4, runTime: t(100), timeLimit: 1000, user: 0, partition: 0, opAfter: t(3), opFor: t(2) },
        { id: 2, submit: start + t(1), cores: 4, runTime: t(3), timeLimit: 1000, user: 0, partition: 1 },
      ];
      const slurm = [...checkedRecs(layout, jobs).values()].map((r) => [r.id, r.start, r.end, r.periods]);
      const low = slurm.find((r) => r[0] === 1)!;
      if ((low[3] as unknown[]).length === 2) suspendedTwice++;
    }
    // (the low job was preempted, then suspended by its operator event, in most cases)
    expect(suspendedTwice).toBeGreaterThan(200);
  });
});
