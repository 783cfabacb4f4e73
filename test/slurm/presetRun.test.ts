/**
 * The stepped Slurm preset (`SlurmPresetRun`, src/slurm/presetRun.ts) against the Slurm engine stepped the same way:
 * random workloads on partitions that preempt, random timers, and a random `setScheduling` (priority weights and
 * favour-small, backfill on or off, `bf_window`) at every step; after every step what the Slurm engine shows (the
 * clock, cores in use, the pending jobs in order, running and preempted jobs, submissions, backfill starts, `busy`)
 * and at the end every job's row are the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobPhase } from '../../src/core/engine.js';
import type { PreemptMode } from '../../src/platform/partitions.js';
import { DEFAULT_PRIORITY, type PriorityConfig } from '../../src/scheduling/multifactor.js';
import type { SlurmBackfillSettings } from '../../src/scheduling/slurmBackfill.js';
import type { SlurmConfig, SlurmJobInput, SlurmSchedulingChange } from '../../src/slurm/config.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { SlurmPresetRun } from '../../src/slurm/presetRun.js';
import { LAYOUT, type Layout, MULTI_CORE_NODES } from './layouts.js';
import { bfSettings, partitionedWorkload, type Priority, type Row, slurmConfigOf, willRunConfigOf } from './presetHarness.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';

/** The weights an operator switches between (Slurm-v0's profiles, and FIFO). */
const PROFILES: Partial<PriorityConfig>[] = [
  { weightAge: 1000, weightFairshare: 10000, weightJobSize: 1000, weightPartition: 1000, favorSmall: false },
  { weightAge: 10000, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, favorSmall: false },
  { weightAge: 1000, weightFairshare: 1000, weightJobSize: 10000, weightPartition: 0, favorSmall: true },
  { weightAge: 0, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 1000 },
];

/** What the Slurm engine shows of its state, and the stepped preset's. */
function slurmState(e: SlurmEngine) {
  return {
    now: e.now,
    busy: e.busy,
    used: e.usedCores(),
    pending: e.pending.map((s) => e.jobs.id[s]!),
    running: e.runningCount,
    suspended: e.suspendedCount,
    submitted: e.stats.submitted,
    backfilled: e.stats.backfilled,
  };
}
function presetState(r: SlurmPresetRun) {
  return {
    now: r.now,
    busy: r.busy,
    used: r.usedCores(),
    pending: r.pendingInOrder().map((j) => Number(j.id)),
    running: r.runningCount,
    suspended: r.suspendedCount,
    submitted: r.submitted,
    backfilled: r.backfilled,
  };
}

/** A step's change (`script`'s): a profile of `PROFILES`, backfill on or off, a window; null: unchanged. */
interface ScriptedChange {
  profile: number | null;
  backfill: boolean | null;
  window: number | null;
}

/** The Slurm engine's states after each step and rows at the end, stepped as `stepBoth` steps the preset (the reference, while it exists). */
function slurmSteps(layout: Layout, jobs: SlurmJobInput[], config: Partial<SlurmConfig>, period: number, changes: SlurmSchedulingChange[]) {
  const e = new SlurmEngine(new SlurmPlatform(layout), config);
  const rows = new Map<number, Row>();
  e.onFinish((J, s) => {
    const refused = J.state[s] === JobPhase.Rejected;
    rows.set(J.id[s]!, {
      start: refused ? Number.NaN : J.start[s]!,
      end: refused ? Number.NaN : J.end[s]!,
      killed: J.state[s] !== JobPhase.Completed,
      periods: refused ? [] : J.periods(s).flat(),
    });
  });
  e.stream(jobs);
  const states: ReturnType<typeof slurmState>[] = [];
  for (const change of changes) {
    e.setScheduling(change);
    e.runUntil(e.now + period);
    states.push(slurmState(e));
  }
  return { states, busy: e.busy, rows };
}

/**
 * Runs `jobs` on `layout` under `config` on the stepped preset, each step `period` s after `script`'s change
 * (cycled), and expects the Slurm engine's state after every step and its rows at the end (stepped alike: its
 * recorded golden, test/golden/slurmEngine.ts).
 */
function stepBoth(layout: Layout, jobs: SlurmJobInput[], config: Partial<SlurmConfig>, period: number, script: ScriptedChange[], what: string) {
  let reordered = 0;
  let suspendedSeen = 0;
  const got = new Map<number, Row>();
  const r = new SlurmPresetRun(layout, jobs, config, [
    {
      onEnd: (_s, rec) =>
        void got.set(Number(rec.job.id), {
          start: rec.start,
          end: rec.finish,
          killed: rec.state === 'killed',
          periods: rec.suspensions ? [...rec.suspensions] : [],
        }),
      onReject: (_s, rec) => void got.set(Number(rec.job.id), { start: Number.NaN, end: Number.NaN, killed: true, periods: [] }),
    },
  ]);
  const changes: SlurmSchedulingChange[] = [];
  const states: ReturnType<typeof presetState>[] = [];
  for (let step = 0; r.busy && step < 400; step++) {
    const s = script[step % script.length]!;
    const change: SlurmSchedulingChange = {};
    if (s.profile !== null) change.priority = PROFILES[s.profile];
    if (s.backfill !== null && (s.backfill === false || r.clock.backfill !== null)) change.backfill = s.backfill;
    if (s.window !== null) change.bfWindow = s.window;
    const before = r
      .pendingInOrder()
      .map((j) => j.id)
      .join();
    r.setScheduling(change);
    if (
      r
        .pendingInOrder()
        .map((j) => j.id)
        .join() !== before
    )
      reordered++;
    changes.push(change);
    r.runUntil(r.now + period);
    const a = presetState(r);
    states.push(a);
    suspendedSeen += a.suspended;
  }
  expect(r.busy, what).toBe(false);
  expectSlurmEngine('steps', { layout, config, jobs, period, changes }, { states, busy: r.busy, rows: got }, () =>
    slurmSteps(layout, jobs, config, period, changes),
  );
  return { changes: changes.length, reordered, suspendedSeen };
}

/** A script of changes, one a step: a priority profile, backfill on or off, a `bf_window` (null: unchanged). */
const changeScript = fc.array(
  fc.record({
    profile: fc.option(fc.integer({ min: 0, max: PROFILES.length - 1 }), { nil: null }),
    backfill: fc.option(fc.boolean(), { nil: null }),
    window: fc.option(fc.constantFrom(120, 3600, 86_400), { nil: null }),
  }),
  { minLength: 1, maxLength: 30 },
);

describe('the stepped Slurm preset (SlurmPresetRun) against the Slurm engine stepped alike', () => {
  it('a random setScheduling at every step: the same state after each step and the same rows', () => {
    let changes = 0;
    let suspendedSeen = 0;
    let reordered = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.constantFrom<PreemptMode>('suspend', 'requeue', 'cancel'),
        fc.boolean(),
        // (a pass asked for runs at once: with a deferred one, `busy` after the last job is not the Slurm engine's, `quietAt`)
        fc.record({ schedOnSubmit: fc.boolean(), schedInterval: fc.constantFrom(0, 60) }),
        fc.constantFrom(20, 60, 300),
        changeScript,
        (seed, priority, mode, backfill, timers, period, script) => {
          const layout: Layout = {
            groups: LAYOUT.groups,
            partitions: [
              { name: 'a', groups: ['g0', 'g1'], priority_tier: 1, preempt_mode: mode },
              { name: 'b', groups: ['g1', 'g2'], priority_tier: 2 },
              { name: 'c', groups: ['g2'], max_time: 500, priority_tier: 1 },
            ],
          };
          const jobs: SlurmJobInput[] = partitionedWorkload(seed, 80, layout);
          const bf: SlurmBackfillSettings | null = backfill
            ? { interval: 30, grid: false, window: 86_400, resolution: 60, maxJobTest: 100, slurmRounding: false, reserveIdle: 'none' }
            : null;
          const r = stepBoth(layout, jobs, slurmConfigOf(priority, bf, timers), period, script, `seed ${seed}`);
          changes += r.changes;
          reordered += r.reordered;
          suspendedSeen += r.suspendedSeen;
        },
      ),
      { numRuns: 40, seed: 2026 },
    );
    console.log(`stepped preset: ${changes} changes, ${reordered} reordered the queue, ${suspendedSeen} preempted jobs seen suspended after a step`);
    // the changes reordered waiting jobs, and preempted jobs were seen suspended between steps
    expect(reordered).toBeGreaterThan(20);
    expect(suspendedSeen).toBeGreaterThan(0);
    expect(changes).toBeGreaterThan(200);
  });

  it("whole-node allocation (the select plugin, Slurm 22.05's will-run backfill): the same state after each step and the same rows", () => {
    let changes = 0;
    let reordered = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.boolean(),
        fc.constantFrom(20, 60, 300),
        changeScript,
        (seed, priority, backfill, period, script) => {
          const jobs = partitionedWorkload(seed, 60, MULTI_CORE_NODES);
          const r = stepBoth(MULTI_CORE_NODES, jobs, willRunConfigOf(priority, backfill ? bfSettings() : null), period, script, `seed ${seed}`);
          changes += r.changes;
          reordered += r.reordered;
        },
      ),
      { numRuns: 20, seed: 2027 },
    );
    expect(reordered).toBeGreaterThan(10);
    expect(changes).toBeGreaterThan(100);
  });
});

describe('the stepped preset at the edges of a run', () => {
  it('a change before the first submission starts the priority ticks, each a main pass that moves deferring timers (a job at 602, PriorityCalcPeriod 300)', () => {
    const platform = { groups: [{ name: 'n', count: 1, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const jobs: SlurmJobInput[] = [{ id: 1, submit: 602, cores: 1, runTime: 10, timeLimit: 10, user: 0 }];
    // the Slurm engine's starts: its ticks at 300 and 600 ran main passes, which the timers count from
    const want: [Partial<SlurmConfig>, number][] = [
      [{ schedMinInterval: 5 }, 605],
      [{ batchSchedDelay: 3 }, 603.5],
      [{ schedDelay: 2 }, 602],
      [{}, 602],
    ];
    for (const [timers, start] of want) {
      const config: Partial<SlurmConfig> = { ...timers, priority: { ...DEFAULT_PRIORITY, calcPeriod: 300 } };
      const starts: number[] = [];
      const r = new SlurmPresetRun(platform, jobs, config, [{ onStart: (s) => void starts.push(s.now) }]);
      r.setScheduling({ priority: { weightAge: 5 } });
      r.runUntil(10_000);
      expect(starts, JSON.stringify(timers)).toEqual([start]);
    }
  });

  it('runUntil(Infinity) ends where the Slurm engine ended, after its last timer (the priority tick at 300), no longer busy', () => {
    const platform = { groups: [{ name: 'n', count: 1, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const jobs: SlurmJobInput[] = [{ id: 1, submit: 0, cores: 1, runTime: 30, timeLimit: 30, user: 0 }];
    const r = new SlurmPresetRun(platform, jobs, {});
    r.setScheduling({ priority: { weightAge: 5 } });
    r.runUntil(Number.POSITIVE_INFINITY);
    expect(r.busy).toBe(false);
    // (the Slurm engine's end: 300)
    expect(r.now).toBe(300);
  });
});
