/**
 * The Slurm engine and the one engine side by side (issue 42: the Slurm engine as a preset of the one
 * engine, step by step). Where their rules are the same, their schedules must be: under `sched/builtin`
 * (no backfill) with the main scheduler at every instant with a change (no `sched_interval`,
 * `batch_sched_delay`, `sched_min_interval` nor delay), one partition over one node group, a FIFO
 * priority (every multifactor weight 0) or the multifactor priority with fair share (the default
 * weights, a main pass at every `PriorityCalcPeriod` tick), time limits that kill, and operator
 * suspensions, the one engine with `fcfs:first` or `multifactor:first` (`passAtTick`; cores on any
 * nodes: Slurm's counted cores of a group) gives every job the Slurm engine's start, end, state and
 * suspension periods, on random workloads. Then the same under Slurm's main-scheduler timers
 * (`schedOnSubmit`, a scheduling delay, `sched_min_interval`, the periodic `sched_interval` pass and the
 * pass after each priority recalculation) with the one engine's `SlurmPassClock`, and through the engine
 * configuration (`pass_clock.slurm`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import { platformFromNodeGroups } from '../../src/platform/views.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import type { PriorityConfig } from '../../src/scheduling/multifactor.js';
import { JobPhase } from '../../src/core/engine.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import type { PreemptMode } from '../../src/platform/partitions.js';
import { runSlurmPreset, slurmPresetConfig, slurmPresetRefusal } from '../../src/slurm/preset.js';
import { SlurmPassClock, type SlurmPassTimers } from '../../src/scheduling/slurmPassClock.js';
import { SlurmBackfill, type SlurmBackfillSettings } from '../../src/scheduling/slurmBackfill.js';
import type { PolicyScheduler } from '../../src/scheduling/scheduler.js';
import { multifactorOptionsOf, parseEngineConfig, schedulerOf } from '../../src/scheduling/engineConfig.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { parseEnvConfig } from '../../envs/config.js';
import { DEFAULT_PRIORITY } from '../../src/scheduling/multifactor.js';
import { makeJob } from '../../src/workload/job.js';
import { LAYOUT, type Layout } from './layouts.js';

interface Row {
  start: number;
  end: number;
  killed: boolean;
  periods: number[];
}

function workload(seed: number, n: number, cores: number): SlurmJobInput[] {
  const rng = derive(seed, 'one-engine/slurm-builtin');
  const jobs: SlurmJobInput[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += Math.floor(rng.exponential(1 / 30));
    const run = 1 + Math.floor(rng.uniform(10, 600));
    const job: SlurmJobInput = {
      id: i,
      submit: t,
      cores: 1 + Math.floor(rng.uniform(0, cores)),
      // some jobs run past their limit and are killed
      timeLimit: Math.floor(run * rng.uniform(0.7, 2)) + 1,
      runTime: run,
      user: Math.floor(rng.uniform(0, 4)),
    };
    if (rng.next() < 0.15) {
      job.opAfter = Math.floor(rng.uniform(0, run));
      job.opFor = 1 + Math.floor(rng.uniform(0, 300));
    }
    jobs.push(job);
  }
  return jobs;
}

/** `fifo`: every multifactor weight 0; `multifactor`: the default weights (fair share, age, size, partition) of 4 users. */
type Priority = 'fifo' | 'multifactor';

/** The Slurm engine's run (no backfill; the timers of `timers`, by default a main pass at every instant with a change). */
function slurmRun(jobs: SlurmJobInput[], nodes: number, cores: number, priority: Priority, timers: Partial<SlurmConfig> = {}): Map<number, Row> {
  const platform = new SlurmPlatform({ groups: [{ name: 'g', count: nodes, cores }], partitions: [{ name: 'p', groups: ['g'] }] });
  const config = slurmConfigOf(priority, null, timers);
  // (multifactor: the PriorityCalcPeriod ticks on the one engine's grid, which starts at the first submission)
  config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_PRIORITY.calcPeriod };
  return slurmRows(platform, config, jobs);
}

/** Every job's row of the Slurm engine's run of `jobs` on `platform` under `config` (a refused job's: NaN times). */
function slurmRows(platform: SlurmPlatform, config: Partial<SlurmConfig>, jobs: SlurmJobInput[]): Map<number, Row> {
  const e = new SlurmEngine(platform, config);
  const out = new Map<number, Row>();
  e.onFinish((J, s) => {
    const refused = J.state[s] === JobPhase.Rejected;
    out.set(J.id[s]!, {
      start: refused ? Number.NaN : J.start[s]!,
      end: refused ? Number.NaN : J.end[s]!,
      killed: J.state[s] !== JobPhase.Completed,
      periods: refused ? [] : J.periods(s).flat(),
    });
  });
  e.stream(jobs);
  e.run();
  return out;
}

/** The multifactor weights of `priority` (FIFO: all 0; else the defaults). */
function weightsOf(priority: Priority): Partial<PriorityConfig> {
  return priority === 'fifo' ? { weightAge: 0, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 0 } : {};
}

/** A one-engine run's rows (its end records). */
function rowsOf(sim: ClusterSimulator): Map<number, Row> {
  const out = new Map<number, Row>();
  sim.addListener({
    onEnd: (_s, r: JobRecord) => {
      out.set(Number(r.job.id), { start: r.start, end: r.finish, killed: r.state === 'killed', periods: r.suspensions ? [...r.suspensions] : [] });
    },
  });
  return out;
}

function oneEngineRun(jobs: SlurmJobInput[], nodes: number, cores: number, priority: Priority): Map<number, Row> {
  const sim = new ClusterSimulator(platformFromNodeGroups({ groups: [{ name: 'g', count: nodes, cores }] }), oneEngineJobs(jobs), {
    walltimeKill: true,
    timeOrigin: 0,
  });
  // multifactor: every user known from the start (the Slurm engine numbers them), a pass at every tick
  const scheduler =
    priority === 'fifo'
      ? makeScheduler('fcfs:first')
      : makeScheduler('multifactor:first', { multifactor: { passAtTick: true, shares: { u0: 1, u1: 1, u2: 1, u3: 1 } } });
  sim.setScheduler(scheduler);
  const out = rowsOf(sim);
  sim.runUntil(Number.POSITIVE_INFINITY);
  return out;
}

describe("the one engine gives the Slurm engine's schedules where their rules agree (sched/builtin, no timers, one group, FIFO)", () => {
  it('on random workloads with time-limit kills and operator suspensions: every job the same start, end, state and periods', () => {
    let killed = 0;
    let suspended = 0;
    let waited = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(4, 8, 16),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        (seed, nodes, cores, priority) => {
          const jobs = workload(seed, 120, Math.min(nodes * cores, 24));
          const a = slurmRun(jobs, nodes, cores, priority);
          const b = oneEngineRun(jobs, nodes, cores, priority);
          expect(b.size).toBe(a.size);
          for (const [id, r] of a) {
            expect(b.get(id), `job ${id}`).toEqual(r);
            if (r.killed) killed++;
            if (r.periods.length > 0) suspended++;
            if (r.start > jobs[id]!.submit) waited++;
          }
        },
      ),
      { numRuns: 60, seed: 42 },
    );
    // the runs exercise what they compare: kills, suspensions and queueing
    expect(killed).toBeGreaterThan(100);
    expect(suspended).toBeGreaterThan(100);
    expect(waited).toBeGreaterThan(500);
  });
});

/** The Slurm engine and the one engine under Slurm's main-scheduler timers (`SlurmPassClock`). */
function timedRuns(
  jobs: SlurmJobInput[],
  nodes: number,
  cores: number,
  priority: Priority,
  timers: SlurmPassTimers,
  backfill: SlurmBackfillSettings | null = null,
): [Map<number, Row>, Map<number, Row>] {
  const a = slurmRun(jobs, nodes, cores, priority, { ...timers, ...backfillConfigOf(backfill) });
  const sim = new ClusterSimulator(platformFromNodeGroups({ groups: [{ name: 'g', count: nodes, cores }] }), oneEngineJobs(jobs), {
    walltimeKill: true,
    timeOrigin: 0,
    passClock: 'requested',
  });
  // the Slurm engine runs a main pass after every PriorityCalcPeriod recalculation, whatever the weights
  const inner = makeScheduler('multifactor:first', { multifactor: { priority: weightsOf(priority), shares: { u0: 1, u1: 1, u2: 1, u3: 1 } } });
  const clock = new SlurmPassClock(
    inner,
    { ...timers, priorityTicks: { period: DEFAULT_PRIORITY.calcPeriod } },
    backfill === null ? null : new SlurmBackfill(inner as PolicyScheduler, backfill),
  );
  clock.attach(sim);
  sim.setScheduler(clock);
  const b = rowsOf(sim);
  sim.runUntil(Number.POSITIVE_INFINITY);
  return [a, b];
}

/** The Slurm engine's settings of `sched/backfill` with `backfill` (null: `sched/builtin`). */
function backfillConfigOf(backfill: SlurmBackfillSettings | null): Partial<SlurmConfig> {
  if (backfill === null) return { backfill: false };
  return {
    backfill: true,
    bfInterval: backfill.interval,
    bfWindow: backfill.window,
    bfResolution: backfill.resolution,
    bfMaxJobTest: backfill.maxJobTest,
    bfGrid: backfill.grid,
    bfSlurmRounding: backfill.slurmRounding,
    bfReserveIdle: backfill.reserveIdle,
  };
}

/** The one engine's jobs of a Slurm workload (an `mpi` job of `cores` tasks; the limit kills; operator events). */
function oneEngineJobs(jobs: SlurmJobInput[]) {
  return jobs.map((j) => ({
    ...makeJob({
      id: String(j.id),
      subtime: j.submit,
      ntasks: j.cores,
      type: 'mpi',
      runtime: j.runTime,
      user: `u${j.user}`,
      ...(j.opAfter !== undefined ? { operatorEvents: [{ after: j.opAfter, duration: j.opFor! }] } : {}),
    }),
    reqTime: j.timeLimit,
  }));
}

/**
 * The random cases of the timed properties: a seed, 1-4 nodes of 4 or 8 cores, FIFO or multifactor, and
 * Slurm's main-scheduler timers (`sched_on_submit`, the scheduling delay, `sched_min_interval`, `sched_interval`).
 */
const timedCase = [
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.integer({ min: 1, max: 4 }),
  fc.constantFrom(4, 8),
  fc.constantFrom<Priority>('fifo', 'multifactor'),
  fc.record({
    schedOnSubmit: fc.boolean(),
    schedDelay: fc.constantFrom(0, 0.25, 2),
    schedMinInterval: fc.constantFrom(0, 1, 7),
    schedInterval: fc.constantFrom(0, 30, 60),
    batchSchedDelay: fc.constantFrom(0, 0, 1, 3),
    bgTickPhase: fc.constantFrom(0.5, 0.25),
  }),
] as const;

describe("the one engine under Slurm's main-scheduler clock (SlurmPassClock) gives the Slurm engine's schedules", () => {
  it('sched_on_submit or not, a scheduling delay, sched_min_interval and the periodic sched_interval pass, FIFO or multifactor', () => {
    let delayed = 0;
    fc.assert(
      fc.property(...timedCase, (seed, nodes, cores, priority, timers) => {
        const jobs = workload(seed, 100, Math.min(nodes * cores, 24));
        const [a, b] = timedRuns(jobs, nodes, cores, priority, timers);
        expect(b.size).toBe(a.size);
        for (const [id, r] of a) {
          expect(b.get(id), `job ${id}`).toEqual(r);
          if (r.start !== Math.floor(r.start)) delayed++;
        }
      }),
      { numRuns: 60, seed: 7 },
    );
    // the timers do move starts off the events' whole seconds
    expect(delayed).toBeGreaterThan(50);
  });
});

describe("the one engine with Slurm's backfill scheduler (SlurmBackfill on SlurmPassClock) gives the Slurm engine's schedules", () => {
  it('sched/backfill: bf_interval on its grid or not, window, resolution, max job test, Slurm rounding, idle nodes held; FIFO or multifactor', () => {
    let backfilled = 0;
    let compared = 0;
    fc.assert(
      fc.property(
        ...timedCase,
        fc.record({
          interval: fc.constantFrom(5, 30, 45),
          grid: fc.boolean(),
          window: fc.constantFrom(600, 3600, 86_400),
          resolution: fc.constantFrom(10, 60, 120),
          maxJobTest: fc.constantFrom(1, 5, 100),
          slurmRounding: fc.boolean(),
          reserveIdle: fc.constantFrom<SlurmBackfillSettings['reserveIdle']>('none', 'first', 'proportional'),
        }),
        (seed, nodes, cores, priority, timers, backfill) => {
          const jobs = workload(seed, 100, Math.min(nodes * cores, 24));
          const [a, b] = timedRuns(jobs, nodes, cores, priority, timers, backfill);
          const [c] = timedRuns(jobs, nodes, cores, priority, timers);
          expect(b.size).toBe(a.size);
          for (const [id, r] of a) {
            expect(b.get(id), `job ${id}`).toEqual(r);
            // a start backfill moved (the same run without it starts the job at another time)
            if (c.get(id)!.start !== r.start) backfilled++;
            compared++;
          }
        },
      ),
      { numRuns: 60, seed: 11 },
    );
    // backfill changes the schedules it is compared on
    expect(backfilled).toBeGreaterThan(compared / 2);
  });
});

/**
 * `workload` with each job in a random partition, of at most its smallest group's cores (it fits one group),
 * and a random QOS of two; one job in twenty asks for more than any one group of its partition holds (but no
 * more than the partition: the Slurm engine refuses it, the one engine's capacity alone would not).
 */
function partitionedWorkload(seed: number, n: number, layout: Layout): SlurmJobInput[] {
  const rng = derive(seed, 'one-engine/partitions');
  const cores = new Map(layout.groups.map((g) => [g.name, g.count * g.cores]));
  return workload(seed, n, 1).map((j) => {
    const part = Math.floor(rng.uniform(0, layout.partitions.length));
    const sizes = layout.partitions[part]!.groups.map((g) => cores.get(g)!);
    const smallest = Math.min(...sizes);
    const largest = Math.max(...sizes);
    const total = sizes.reduce((a, b) => a + b, 0);
    const c = rng.next() < 0.05 && total > largest ? largest + 1 + Math.floor(rng.uniform(0, total - largest)) : 1 + Math.floor(rng.uniform(0, smallest));
    return { ...j, partition: part, cores: c, qos: rng.next() < 0.3 ? 1 : 0 };
  });
}

/** Both engines on `layout` with the Slurm configuration `config`: the Slurm engine, and the one engine through the Slurm preset. Refused jobs' rows: NaN times. */
function presetRuns(jobs: SlurmJobInput[], layout: Layout, config: Partial<SlurmConfig>): [Map<number, Row>, Map<number, Row>] {
  const a = slurmRows(new SlurmPlatform(layout), config, jobs);
  const b = new Map<number, Row>();
  runSlurmPreset(layout, jobs, config, [
    {
      onEnd: (_s, r) =>
        void b.set(Number(r.job.id), { start: r.start, end: r.finish, killed: r.state === 'killed', periods: r.suspensions ? [...r.suspensions] : [] }),
      onReject: (_s, r) => void b.set(Number(r.job.id), { start: Number.NaN, end: Number.NaN, killed: true, periods: [] }),
    },
  ]);
  return [a, b];
}

/** `got` is `want` but for the last bits of its times (1e-9 relative): the same start, end, state and suspension periods. */
function expectSameRow(got: Row | undefined, want: Row, what: string): void {
  expect(got, what).toBeDefined();
  const close = (x: number, y: number) => (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
  const ok =
    got!.killed === want.killed &&
    close(got!.start, want.start) &&
    close(got!.end, want.end) &&
    got!.periods.length === want.periods.length &&
    got!.periods.every((t, i) => close(t, want.periods[i]!));
  expect(ok, `${what}: ${JSON.stringify(got)} against ${JSON.stringify(want)}`).toBe(true);
}

/** The Slurm configuration of a FIFO or multifactor priority (4 users, QOS priorities 0 and 500) with `backfill` (null: sched/builtin) and `timers`. */
function slurmConfigOf(priority: Priority, backfill: SlurmBackfillSettings | null, timers: Partial<SlurmConfig> = {}): Partial<SlurmConfig> {
  return {
    users: 4,
    qosPriorities: [0, 500],
    ...backfillConfigOf(backfill),
    schedOnSubmit: true,
    schedDelay: 0,
    schedInterval: 0,
    batchSchedDelay: 0,
    schedMinInterval: 0,
    ...timers,
    priority: { ...DEFAULT_SLURM.priority, ...weightsOf(priority) },
  };
}

describe("the Slurm preset of the one engine (src/slurm/preset.ts: Slurm's main scheduler on several node groups and partitions) gives the Slurm engine's schedules", () => {
  it('each job within one group of its partition, a job left waiting blocking its partition and its groups; sched/builtin or backfill', () => {
    let overtaken = 0;
    let backfilled = 0;
    let refused = 0;
    let tooLarge = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<Priority>('fifo', 'multifactor'),
        fc.option(
          fc.record({
            interval: fc.constantFrom(5, 30),
            grid: fc.boolean(),
            window: fc.constantFrom(3600, 86_400),
            resolution: fc.constantFrom(10, 60),
            maxJobTest: fc.constantFrom(5, 100),
            slurmRounding: fc.boolean(),
            reserveIdle: fc.constantFrom<SlurmBackfillSettings['reserveIdle']>('none', 'first', 'proportional'),
          }),
          { nil: null },
        ),
        fc.constantFrom(0, 2),
        // Slurm 22.05's job size factor, and priority ticks on a phase of their own (a log's slurmctld start)
        fc.record({
          jobSize: fc.constantFrom<'cores' | 'slurm22'>('cores', 'slurm22'),
          calcPhase: fc.option(fc.constantFrom(0, 17.25, 123, 299.5), { nil: undefined }),
        }),
        // ends reported by an epilog message (a pass at once under the background thread), drawn or by endSchedShare
        fc.constantFrom(0, 0.3),
        // the clocks of a live run's log: slurmctld's start, the background thread's measured ticks, the backfill passes'
        fc.option(fc.record({ origin: fc.constantFrom(0.37, 13.25), bgTicks: fc.boolean(), bfTicks: fc.boolean() }), { nil: null }),
        (seed, priority, backfill, batch, { jobSize, calcPhase }, endShare, log) => {
          const epilogs = derive(seed, 'one-engine/epilog');
          // (and nodes left COMPLETING for a while, which only whole-node allocation counts)
          const jobs = partitionedWorkload(seed, 120, LAYOUT).map((j) =>
            epilogs.next() < 0.2 ? { ...j, epilogPass: true, completing: 1.5 } : epilogs.next() < 0.1 ? { ...j, completing: 3 } : j,
          );
          const config = slurmConfigOf(priority, backfill, { batchSchedDelay: batch, schedOnSubmit: batch === 0, endSchedShare: endShare });
          if (log !== null) {
            const last = jobs[jobs.length - 1]!.submit;
            config.timerOrigin = log.origin;
            // measured ticks drift: about a second apart, sampled every ~50 s, over the first half of the submissions
            if (log.bgTicks) config.bgTickTimes = Array.from({ length: Math.ceil(last / 100) }, (_, k) => log.origin + 0.21 + k * 50.013);
            if (log.bfTicks && backfill !== null)
              config.bfTickTimes = Array.from(
                { length: Math.ceil(last / (2 * backfill.interval)) },
                (_, k) => log.origin + 1.5 + k * (backfill.interval + 0.004),
              );
          }
          config.priority = { ...config.priority!, jobSize, ...(calcPhase !== undefined ? { calcPhase } : {}) };
          const [a, b] = presetRuns(jobs, LAYOUT, config);
          expect(b.size).toBe(a.size);
          const bySubmit = [...a.entries()].sort((x, y) => jobs[x[0]]!.submit - jobs[y[0]]!.submit || x[0] - y[0]);
          let latest = Number.NEGATIVE_INFINITY;
          for (const [id, r] of bySubmit) {
            // on a log's clocks (times of no short binary form) a suspended job's end is a sum the two engines take
            // in another order: equal to 1e-9 relative, as at Raijin's scale (bench slurm-preset); else to the bit
            if (log === null) expect(b.get(id), `job ${id}`).toEqual(r);
            else expectSameRow(b.get(id), r, `job ${id}`);
            if (Number.isNaN(r.start)) {
              refused++;
              if (jobs[id]!.partition !== 2) tooLarge++;
              continue;
            }
            // a job that starts before one submitted earlier: another partition went on (or backfill)
            if (r.start < latest) {
              if (backfill === null) overtaken++;
              else backfilled++;
            }
            latest = Math.max(latest, r.start);
          }
        },
      ),
      { numRuns: 40, seed: 5 },
    );
    // the partitions do not block each other, and backfill moves jobs, in the runs compared
    expect(overtaken).toBeGreaterThan(100);
    expect(backfilled).toBeGreaterThan(100);
    // partition c's time limit and the jobs larger than any one group of their partition are refused at submission in both
    expect(refused).toBeGreaterThan(100);
    expect(tooLarge).toBeGreaterThan(50);
  });
});

describe("the Slurm preset on groups with memory and threads (which Slurm's counted model does not use)", () => {
  it("gives the Slurm engine's schedules, with Slurm 22.05's job size factor over the threads too", () => {
    // (and partitions that name their groups out of platform order: the Slurm engine tries them in that order)
    const threaded: Layout = {
      groups: LAYOUT.groups.map((g) => ({ ...g, memory_mb: 4096, cpus: 2 * g.cores })),
      partitions: LAYOUT.partitions.map((q) => ({ ...q, groups: [...q.groups].reverse() })),
    };
    for (const seed of [11, 12, 13, 14, 15, 16]) {
      const jobs = partitionedWorkload(seed, 120, threaded);
      const config = slurmConfigOf(seed % 3 === 0 ? 'fifo' : 'multifactor', null);
      if (seed % 2 === 0) config.priority = { ...config.priority!, jobSize: 'slurm22' };
      const [a, b] = presetRuns(jobs, threaded, config);
      expect(b).toEqual(a);
    }
    expect(slurmPresetRefusal({ priority: { ...DEFAULT_SLURM.priority, jobSize: 'slurm22' } })).toBeNull();
  });
});

describe('the Slurm preset with partitions that preempt (PreemptType=preempt/partition_prio)', () => {
  it('the Slurm engine scenarios (docs/slurm.md): low 4 x 100 s at 0, high 4 x 50 s at 20 on one 4-core node', () => {
    const on = (mode: PreemptMode) => {
      const layout: Layout = {
        groups: [{ name: 'n', count: 1, cores: 4 }],
        partitions: [
          { name: 'low', groups: ['n'], priority_tier: 1, preempt_mode: mode },
          { name: 'high', groups: ['n'], priority_tier: 2 },
        ],
      };
      const jobs: SlurmJobInput[] = [
        { id: 1, submit: 0, cores: 4, runTime: 100, timeLimit: 1000, user: 0, partition: 0 },
        { id: 2, submit: 20, cores: 4, runTime: 50, timeLimit: 1000, user: 0, partition: 1 },
      ];
      const [slurm, one] = presetRuns(jobs, layout, slurmConfigOf('fifo', null));
      expect(one).toEqual(slurm);
      return one;
    };
    // suspend: high runs 20-70, low resumes at 70 and ends at 150
    expect(on('suspend').get(1)).toEqual({ start: 0, end: 150, killed: false, periods: [20, 70] });
    expect(on('suspend').get(2)).toEqual({ start: 20, end: 70, killed: false, periods: [] });
    // requeue: low starts again at 70 and ends at 170
    expect(on('requeue').get(1)).toEqual({ start: 70, end: 170, killed: false, periods: [] });
    // cancel: low ends at 20
    expect(on('cancel').get(1)).toEqual({ start: 0, end: 20, killed: true, periods: [] });
    // on the core capacity a preempted job would resume on its own cores only: refused
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
          const [a, b] = presetRuns(jobs, layout, config);
          expect(b.size).toBe(a.size);
          for (const [id, r] of a) expect(b.get(id), `job ${id}`).toEqual(r);
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

describe('the Slurm preset refuses what it does not model yet, naming the settings', () => {
  it('whole-node allocation', () => {
    expect(slurmPresetRefusal({})).toBeNull();
    expect(slurmPresetRefusal({ nodeSelect: true, bfWillRun: true, bfTickTimes: [30, 60] })).toBe(
      'the Slurm preset of the one engine does not model nodeSelect (whole-node allocation), bfWillRun yet',
    );
    expect(() => slurmPresetConfig(LAYOUT, { nodeSelect: true }, 'raijin.json')).toThrow(
      /raijin\.json: .*does not model nodeSelect \(whole-node allocation\) yet/,
    );
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
        const [a, b] = presetRuns(jobs, GPUS, slurmConfigOf(priority, bf));
        expect(b.size).toBe(a.size);
        for (const [id, r] of a) expect(b.get(id), `job ${id}`).toEqual(r);
        gpuStarts += jobs.filter((j) => (j.gpus ?? 0) > 0 && !Number.isNaN(a.get(j.id)!.start)).length;
        gpuSuspended += jobs.filter((j) => (j.gpus ?? 0) > 0 && a.get(j.id)!.periods.length > 0).length;
      }),
      { numRuns: 30, seed: 45 },
    );
    expect(gpuStarts).toBeGreaterThan(1000);
    expect(gpuSuspended).toBeGreaterThan(100);
  });
});

describe('the Slurm pass clock through the engine configuration', () => {
  it("simulate's path (runSimulation with pass_clock.slurm) gives the Slurm engine's schedule", () => {
    const jobs = workload(4242, 150, 16);
    const timers = { schedOnSubmit: false, schedDelay: 0.25, schedMinInterval: 1, schedInterval: 60 };
    const [slurm] = timedRuns(jobs, 2, 8, 'multifactor', timers);
    const engine = parseEngineConfig({
      pass_clock: { slurm: { sched_on_submit: false, sched_delay: 0.25, sched_min_interval: 1, sched_interval: 60 } },
      multifactor: { shares: { u0: 1, u1: 1, u2: 1, u3: 1 } },
    });
    const starts = new Map<number, number>();
    const { summary } = runSimulation(
      platformFromNodeGroups({ groups: [{ name: 'g', count: 2, cores: 8 }] }),
      oneEngineJobs(jobs),
      makeScheduler('multifactor:first', { multifactor: multifactorOptionsOf(engine) }),
      { engine, walltimeKill: true, timeOrigin: 0, listeners: [{ onEnd: (_s, r) => void starts.set(Number(r.job.id), r.start) }] },
    );
    expect(summary.jobs_finished + summary.jobs_killed).toBe(150);
    for (const [id, r] of slurm) expect(starts.get(id), `job ${id}`).toBe(r.start);
  });

  it("pass_clock.slurm.backfill through runSimulation gives the Slurm engine's schedule with sched/backfill", () => {
    const jobs = workload(777, 150, 16);
    const timers = { schedOnSubmit: false, schedDelay: 0, schedMinInterval: 0, schedInterval: 60 };
    const backfill: SlurmBackfillSettings = {
      interval: 30,
      window: 7200,
      resolution: 60,
      maxJobTest: 50,
      grid: true,
      slurmRounding: true,
      reserveIdle: 'first',
    };
    const [slurm] = timedRuns(jobs, 2, 8, 'multifactor', timers, backfill);
    const [builtin] = timedRuns(jobs, 2, 8, 'multifactor', timers);
    const engine = parseEngineConfig({
      pass_clock: {
        slurm: {
          sched_on_submit: false,
          sched_interval: 60,
          backfill: { interval: 30, window: 7200, resolution: 60, max_job_test: 50, grid: true, slurm_rounding: true, reserve_idle: 'first' },
        },
      },
      multifactor: { shares: { u0: 1, u1: 1, u2: 1, u3: 1 } },
    });
    const starts = new Map<number, number>();
    runSimulation(
      platformFromNodeGroups({ groups: [{ name: 'g', count: 2, cores: 8 }] }),
      oneEngineJobs(jobs),
      makeScheduler('multifactor:first', { multifactor: multifactorOptionsOf(engine) }),
      { engine, walltimeKill: true, timeOrigin: 0, listeners: [{ onEnd: (_s, r) => void starts.set(Number(r.job.id), r.start) }] },
    );
    let moved = 0;
    for (const [id, r] of slurm) {
      expect(starts.get(id), `job ${id}`).toBe(r.start);
      if (builtin.get(id)!.start !== r.start) moved++;
    }
    expect(moved).toBeGreaterThan(50);
  });

  it("Slurm's backfill needs a scheduler with a queue order: an input error naming the field", () => {
    const engine = parseEngineConfig({ pass_clock: { slurm: { backfill: {} } } });
    expect(() => schedulerOf(engine, { name: 'opaque', schedule: () => {} })).toThrow(/pass_clock\.slurm\.backfill: .*opaque has none/);
    expect(() => parseEngineConfig({ pass_clock: { slurm: { backfill: { interval: 0 } } } })).toThrow(/pass_clock\.slurm\.backfill\.interval/);
  });

  it('the cluster environments refuse it, saying why', () => {
    expect(() => parseEnvConfig('clustergym/JobNode-v0', { engine: { pass_clock: { slurm: {} } } })).toThrow(
      /pass_clock.*Slurm's pass clock runs under simulate/,
    );
  });
});
