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
import { runSlurmPreset, slurmPresetConfig } from '../../src/slurm/preset.js';
import { SlurmPassClock, type SlurmPassTimers } from '../../src/scheduling/slurmPassClock.js';
import { SlurmBackfill, type SlurmBackfillSettings } from '../../src/scheduling/slurmBackfill.js';
import type { PolicyScheduler } from '../../src/scheduling/scheduler.js';
import { multifactorOptionsOf, parseEngineConfig, schedulerOf } from '../../src/scheduling/engineConfig.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { parseEnvConfig } from '../../envs/config.js';
import { DEFAULT_PRIORITY } from '../../src/scheduling/multifactor.js';
import { makeJob } from '../../src/workload/job.js';
import { LAYOUT, type Layout } from './layouts.js';
import {
  backfillConfigOf,
  bfSettings,
  checkedRecs,
  checkedRows,
  expectSlurmRows,
  partitionedWorkload,
  type Priority,
  type Row,
  slurmConfigOf,
  weightsOf,
  workload,
} from './presetHarness.js';

/**
 * Expects `rows` to be the Slurm engine's rows of `jobs` on one group of `nodes` nodes of `cores` cores (no backfill
 * unless `timers` says; the timers of `timers`, by default a main pass at every instant with a change).
 */
function expectSlurmRun(
  rows: Map<number, Row>,
  jobs: SlurmJobInput[],
  nodes: number,
  cores: number,
  priority: Priority,
  timers: Partial<SlurmConfig> = {},
): void {
  const layout = { groups: [{ name: 'g', count: nodes, cores }], partitions: [{ name: 'p', groups: ['g'] }] };
  const config = slurmConfigOf(priority, null, timers);
  // (multifactor: the PriorityCalcPeriod ticks on the one engine's grid, which starts at the first submission)
  config.priority = { ...config.priority!, calcPhase: jobs[0]!.submit % DEFAULT_PRIORITY.calcPeriod };
  expectSlurmRows(layout, config, jobs, rows);
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
          const a = oneEngineRun(jobs, nodes, cores, priority);
          expectSlurmRun(a, jobs, nodes, cores, priority);
          for (const [id, r] of a) {
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

/** The one engine's rows under Slurm's main-scheduler timers (`SlurmPassClock`), expected to be the Slurm engine's. */
function timedRuns(
  jobs: SlurmJobInput[],
  nodes: number,
  cores: number,
  priority: Priority,
  timers: SlurmPassTimers,
  backfill: SlurmBackfillSettings | null = null,
): Map<number, Row> {
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
  expectSlurmRun(b, jobs, nodes, cores, priority, { ...timers, ...backfillConfigOf(backfill) });
  return b;
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
        const a = timedRuns(jobs, nodes, cores, priority, timers);
        for (const r of a.values()) if (r.start !== Math.floor(r.start)) delayed++;
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
          const a = timedRuns(jobs, nodes, cores, priority, timers, backfill);
          const c = timedRuns(jobs, nodes, cores, priority, timers);
          for (const [id, r] of a) {
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
          const a = checkedRows(jobs, LAYOUT, config);
          const bySubmit = [...a.entries()].sort((x, y) => jobs[x[0]]!.submit - jobs[y[0]]!.submit || x[0] - y[0]);
          let latest = Number.NEGATIVE_INFINITY;
          for (const [id, r] of bySubmit) {
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

describe('jobs of one instant (the Slurm engine breaks ties of tier and priority by submission, then id)', () => {
  it('in ascending id, many of them: the same rows (which pass started each job included)', () => {
    let ties = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom<Priority>('fifo', 'multifactor'), fc.boolean(), (seed, priority, backfill) => {
        // submissions on a 60 s grid, so that many jobs share an instant (and a priority, under FIFO)
        const jobs = partitionedWorkload(seed, 100, LAYOUT).map((j) => ({ ...j, submit: Math.floor(j.submit / 60) * 60 }));
        for (let i = 1; i < jobs.length; i++) if (jobs[i]!.submit === jobs[i - 1]!.submit) ties++;
        const config = slurmConfigOf(priority, backfill ? bfSettings() : null);
        checkedRecs(LAYOUT, jobs, config);
      }),
      { numRuns: 25, seed: 11 },
    );
    expect(ties).toBeGreaterThan(500);
  });

  it('in another order: refused by the preset with the job and what to do (its queue order keeps arrival order)', () => {
    const platform = { groups: [{ name: 'n', count: 1, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const job = (id: number, submit: number): SlurmJobInput => ({ id, submit, cores: 1, runTime: 10, timeLimit: 10, user: 0 });
    expect(() => runSlurmPreset(platform, [job(5, 0), job(3, 1), job(2, 1)], {})).toThrow(
      /job 2: submitted at 1 after job 3 of the same instant; the Slurm preset takes the jobs of one instant in ascending id \(sort them by submission time, then id\)/,
    );
    // (a lower id at a later instant is no tie)
    expect(runSlurmPreset(platform, [job(5, 0), job(2, 1), job(3, 1)], {}).summary.jobs_finished).toBe(3);
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
      checkedRows(jobs, threaded, config);
    }
    expect(() => slurmPresetConfig(LAYOUT, { priority: { ...DEFAULT_SLURM.priority, jobSize: 'slurm22' } })).not.toThrow();
  });
});

describe('the Slurm preset refuses what it does not model yet, naming the settings', () => {
  it('whole-node allocation', () => {
    expect(() => slurmPresetConfig(LAYOUT, {})).not.toThrow();
    expect(() => slurmPresetConfig(LAYOUT, { nodeSelect: true, bfWillRun: true, bfTickTimes: [30, 60] })).not.toThrow();
    // (the node-profile planner on nodes of several cores is no model of Slurm: both engines refuse it, presetNodes.test.ts)
    expect(() => slurmPresetConfig(LAYOUT, { nodeSelect: true, backfill: true }, 'raijin.json')).toThrow(
      /raijin\.json: nodeSelect with sched\/backfill on nodes of several cores needs bfWillRun/,
    );
    // (whole-node allocation under sched/builtin is the preset's: test/slurm/presetNodes.test.ts)
    expect(() => slurmPresetConfig(LAYOUT, { nodeSelect: true, backfill: false })).not.toThrow();
  });

  it("a job of a user beyond the configuration's users: an input error, as the Slurm engine's at submission (not a new user with a share)", () => {
    const platform = { groups: [{ name: 'n', count: 1, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const job = (user: number): SlurmJobInput => ({ id: 1, submit: 0, cores: 1, runTime: 10, timeLimit: 10, user });
    expect(() => runSlurmPreset(platform, [job(7)], {})).toThrow(/job 1: user 7 is not one of the 1 users \(0\.\.0\)/);
    expect(() => runSlurmPreset(platform, [job(3)], { users: 3 })).toThrow(/user 3 is not one of the 3 users/);
    expect(runSlurmPreset(platform, [job(2)], { users: 3 }).summary.jobs_finished).toBe(1);
  });
});

describe('the Slurm pass clock through the engine configuration', () => {
  it("runSimulation's until at the start runs that instant, as the Slurm engine's runUntil(0) does", () => {
    // a job submitted at 0 to an idle node starts at 0, the run stopped after instant 0 (it ran nothing before)
    const jobs: SlurmJobInput[] = [{ id: 1, submit: 0, cores: 1, runTime: 10, timeLimit: 10, user: 0 }];
    const starts: number[] = [];
    const platform = { groups: [{ name: 'n', count: 1, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const run = runSlurmPreset(platform, jobs, {}, [{ onStart: (s) => void starts.push(s.now) }], undefined, undefined, 0);
    expect(starts).toEqual([0]);
    expect(run.sim.now).toBe(0);
  });

  it("simulate's path (runSimulation with pass_clock.slurm) gives the Slurm engine's schedule", () => {
    const jobs = workload(4242, 150, 16);
    const timers = { schedOnSubmit: false, schedDelay: 0.25, schedMinInterval: 1, schedInterval: 60 };
    const slurm = timedRuns(jobs, 2, 8, 'multifactor', timers);
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
    const slurm = timedRuns(jobs, 2, 8, 'multifactor', timers, backfill);
    const builtin = timedRuns(jobs, 2, 8, 'multifactor', timers);
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
