/**
 * The differential harness of the Slurm engine against the one engine (test/slurm/oneEngine.test.ts,
 * presetLifecycle.test.ts): random Slurm workloads, the Slurm configuration of a priority, backfill and
 * timers, and each engine's rows (start, end, state, suspension periods of every job; with whole-node
 * allocation, test/slurm/presetNodes.test.ts and presetCompleting.test.ts, the nodes and CPUs of each too).
 * Each engine's run of Slurm jobs is `runOn` (the rows are read from it), which the hand-computed scenarios
 * call for each of `ENGINES` (test/slurm/engine.test.ts, timers.test.ts and the others): one scenario, the
 * same expectations, each engine.
 */
import { expect } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { JobPhase } from '../../src/core/engine.js';
import { MultifactorSelection, type PriorityConfig } from '../../src/scheduling/multifactor.js';
import type { SlurmBackfillSettings } from '../../src/scheduling/slurmBackfill.js';
import { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput } from '../../src/slurm/config.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { STATE_NAMES } from '../../src/slurm/jobs.js';
import { SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { presetEndPhase, runSlurmPreset } from '../../src/slurm/preset.js';
import type { ReplayEngine } from '../../src/slurm/replay.js';
import type { JobRecord, RunningJob } from '../../src/execution/running.js';
import type { Job } from '../../src/workload/job.js';
import type { Scheduler } from '../../src/scheduling/scheduler.js';
import { PolicyScheduler } from '../../src/scheduling/scheduler.js';
import { SlurmMainPass } from '../../src/scheduling/slurmMainPass.js';
import { SlurmPassClock } from '../../src/scheduling/slurmPassClock.js';
import type { Layout } from './layouts.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';

export interface Row {
  start: number;
  end: number;
  killed: boolean;
  periods: number[];
}

export function workload(seed: number, n: number, cores: number): SlurmJobInput[] {
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
export type Priority = 'fifo' | 'multifactor';

/** Every job's row of the Slurm engine's run of `jobs` on `platform` under `config` (a refused job's: NaN times). */
export function slurmRows(platform: SlurmPlatform, config: Partial<SlurmConfig>, jobs: SlurmJobInput[]): Map<number, Row> {
  return rowsOf(runOn('slurm', platform, jobs, config));
}

/** A run's `Row`s: its start, end, whether it did not complete and its suspension periods, flat. */
function rowsOf(run: EngineRun): Map<number, Row> {
  const out = new Map<number, Row>();
  for (const [id, r] of run.recs) out.set(id, { start: r.start, end: r.end, killed: r.state !== 'completed', periods: r.periods.flat() });
  return out;
}

/** The multifactor weights of `priority` (FIFO: all 0; else the defaults). */
export function weightsOf(priority: Priority): Partial<PriorityConfig> {
  return priority === 'fifo' ? { weightAge: 0, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 0 } : {};
}

/** The Slurm engine's settings of `sched/backfill` with `backfill` (null: `sched/builtin`). */
export function backfillConfigOf(backfill: SlurmBackfillSettings | null): Partial<SlurmConfig> {
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

/**
 * `workload` with each job in a random partition, of at most its smallest group's cores (it fits one group),
 * and a random QOS of two; one job in twenty asks for more than any one group of its partition holds (but no
 * more than the partition: the Slurm engine refuses it, the one engine's capacity alone would not).
 */
export function partitionedWorkload(seed: number, n: number, layout: Layout): SlurmJobInput[] {
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

/**
 * The one engine's rows of `jobs` on `layout` under `config` through the Slurm preset (refused jobs' rows: NaN
 * times), expected to be the Slurm engine's (`expectSlurmRows`).
 */
export function checkedRows(jobs: SlurmJobInput[], layout: SlurmPlatformSpec, config: Partial<SlurmConfig>): Map<number, Row> {
  const rows = rowsOf(runOn('one', layout, jobs, config));
  expectSlurmRows(layout, config, jobs, rows);
  return rows;
}

/** Expects `rows` (of a run of `jobs` on `layout` under `config`) to be the Slurm engine's rows of that run (its recorded golden, test/golden/slurmEngine.ts). */
export function expectSlurmRows(layout: SlurmPlatformSpec, config: Partial<SlurmConfig>, jobs: readonly SlurmJobInput[], rows: ReadonlyMap<number, Row>): void {
  expectSlurmEngine('rows', { layout, config, jobs }, rows, () => slurmRows(new SlurmPlatform(layout), config, [...jobs]));
}

/** `runOn`'s records of the preset's run, expected to be the Slurm engine's (its recorded golden). */
export function checkedRecs(layout: SlurmPlatformSpec, jobs: readonly SlurmJobInput[], config: Partial<SlurmConfig> = {}): Map<number, Rec> {
  const recs = runOn('one', layout, jobs, config).recs;
  expectSlurmEngine('recs', { layout, config, jobs }, recs, () => runOn('slurm', layout, jobs, config).recs);
  return recs;
}

/** The Slurm configuration of a FIFO or multifactor priority (4 users, QOS priorities 0 and 500) with `backfill` (null: sched/builtin) and `timers`. */
export function slurmConfigOf(priority: Priority, backfill: SlurmBackfillSettings | null, timers: Partial<SlurmConfig> = {}): Partial<SlurmConfig> {
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

/** The backfill settings the whole-node tests start from: `bf_interval` 5 s, `bf_window` an hour, `bf_resolution` 10 s, `bf_max_job_test` 100, off the grid, no Slurm rounding, no idle units held; `o` changes some. */
export function bfSettings(o: Partial<SlurmBackfillSettings> = {}): SlurmBackfillSettings {
  return { interval: 5, window: 3_600, resolution: 10, maxJobTest: 100, grid: false, slurmRounding: false, reserveIdle: 'none', ...o };
}

/** `slurmConfigOf` with whole-node allocation and Slurm 22.05's will-run backfill pass (`nodeSelect`, `bfWillRun`). */
export function willRunConfigOf(priority: Priority, backfill: SlurmBackfillSettings | null, timers: Partial<SlurmConfig> = {}): Partial<SlurmConfig> {
  return { ...slurmConfigOf(priority, backfill, timers), nodeSelect: true, bfWillRun: true };
}

/**
 * A row with the nodes the job ran on and the CPUs it held on each (first run), and, with `memory`, the memory
 * free on each of them once it started; with `runs`, the nodes it held at each start and resumption, in order
 * (a job preempted by suspension resumes where Slurm's select plugin places it then).
 */
export interface NodeRow {
  start: number;
  end: number;
  killed: boolean;
  periods: number[];
  nodes: number[];
  units: number[];
  memFree?: number[];
  runs?: number[][];
}

/**
 * What `slurmNodeRows` and `presetNodeRows` record beyond a job's first nodes: the memory free there, the nodes
 * of each run; `until`: the run stops after that instant (a job that waits for ever: no row), not when every job has left.
 */
export interface NodeRowOptions {
  memory?: boolean;
  runs?: boolean;
  until?: number;
}

/** Every job's `NodeRow` of the Slurm engine's run of `jobs` on `layout` under `config` (with `nodeSelect`). */
export function slurmNodeRows(
  layout: Layout,
  config: Partial<SlurmConfig>,
  jobs: SlurmJobInput[],
  options: NodeRowOptions | boolean = {},
): Map<number, NodeRow> {
  const { memory = false, runs = false, until = Number.POSITIVE_INFINITY } = typeof options === 'boolean' ? { memory: options } : options;
  const e = new SlurmEngine(new SlurmPlatform(layout), config);
  const nodes = new Map<number, number[][]>();
  const memFree = new Map<number, number[]>();
  const trail = new Map<number, number[][]>();
  const out = new Map<number, NodeRow>();
  const ran = (eng: SlurmEngine, s: number) => {
    const id = eng.jobs.id[s]!;
    const list = trail.get(id) ?? [];
    list.push([...eng.nodeMap!.held.get(s)!.nodes]);
    trail.set(id, list);
  };
  e.addListener({
    onStart: (eng, s) => {
      const id = eng.jobs.id[s]!;
      if (runs) ran(eng, s);
      const a = eng.nodeMap!.held.get(s)!;
      if (nodes.has(id)) return;
      nodes.set(id, [[...a.nodes], [...a.units]]);
      memFree.set(
        id,
        [...a.nodes].map((x) => eng.nodeMap!.memFree[x]!),
      );
    },
    onResume: (eng, s) => void (runs && ran(eng, s)),
  });
  e.onFinish((J, s) => {
    const refused = J.state[s] === JobPhase.Rejected;
    const id = J.id[s]!;
    out.set(id, {
      start: refused ? Number.NaN : J.start[s]!,
      end: refused ? Number.NaN : J.end[s]!,
      killed: refused || J.state[s] !== JobPhase.Completed,
      periods: refused ? [] : J.periods(s).flat(),
      nodes: nodes.get(id)?.[0] ?? [],
      units: nodes.get(id)?.[1] ?? [],
      ...(memory ? { memFree: memFree.get(id) ?? [] } : {}),
      ...(runs ? { runs: trail.get(id) ?? [] } : {}),
    });
  });
  e.stream(jobs);
  e.runUntil(until);
  return out;
}

/**
 * `presetNodeRows`, expected to be the Slurm engine's rows of the same run (its recorded golden,
 * test/golden/slurmEngine.ts).
 */
export function checkedNodeRows(
  layout: Layout,
  config: Partial<SlurmConfig>,
  jobs: SlurmJobInput[],
  options: NodeRowOptions | boolean = {},
): Map<number, NodeRow> {
  const rows = presetNodeRows(layout, config, jobs, options);
  const { memory = false, runs = false, until = Number.POSITIVE_INFINITY } = typeof options === 'boolean' ? { memory: options } : options;
  expectSlurmEngine('nodeRows', { layout, config, jobs, memory, runs, until }, rows, () => slurmNodeRows(layout, config, jobs, options));
  return rows;
}

/** Every job's `NodeRow` of the one engine's run of `jobs` through the Slurm preset (`slurmNodeRows`' counterpart). */
export function presetNodeRows(
  layout: Layout,
  config: Partial<SlurmConfig>,
  jobs: SlurmJobInput[],
  options: NodeRowOptions | boolean = {},
): Map<number, NodeRow> {
  const { memory = false, runs = false, until = Number.POSITIVE_INFINITY } = typeof options === 'boolean' ? { memory: options } : options;
  const out = new Map<number, NodeRow>();
  const nodes = new Map<number, number[][]>();
  const memFree = new Map<number, number[]>();
  const trail = new Map<number, number[][]>();
  const ran = (rj: RunningJob) => {
    const id = Number(rj.job.id);
    const list = trail.get(id) ?? [];
    list.push([...rj.nodes]);
    trail.set(id, list);
  };
  runSlurmPreset(
    layout,
    jobs,
    config,
    [
      {
        onStart: (sim, rj) => {
          const id = Number(rj.job.id);
          if (runs) ran(rj);
          // the cores it holds on each of its nodes
          if (nodes.has(id)) return;
          const on = new Map<number, number>();
          for (const c of rj.cores) on.set(sim.platform.coreNode[c]!, (on.get(sim.platform.coreNode[c]!) ?? 0) + 1);
          nodes.set(id, [[...rj.nodes], [...rj.nodes].map((x) => on.get(x)!)]);
          memFree.set(
            id,
            [...rj.nodes].map((x) => sim.nodeFreeMem[x]!),
          );
        },
        onResume: (_s, rj) => void (runs && ran(rj)),
        onEnd: (_s, r) => {
          const id = Number(r.job.id);
          out.set(id, {
            start: r.start,
            end: r.finish,
            killed: r.state === 'killed',
            periods: r.suspensions ? [...r.suspensions] : [],
            nodes: nodes.get(id)?.[0] ?? [],
            units: nodes.get(id)?.[1] ?? [],
            ...(memory ? { memFree: memFree.get(id) ?? [] } : {}),
            ...(runs ? { runs: trail.get(id) ?? [] } : {}),
          });
        },
        onReject: (_s, r) =>
          void out.set(Number(r.job.id), {
            start: Number.NaN,
            end: Number.NaN,
            killed: true,
            periods: [],
            nodes: [],
            units: [],
            ...(memory ? { memFree: [] } : {}),
            ...(runs ? { runs: [] } : {}),
          }),
      },
    ],
    undefined,
    undefined,
    until,
  );
  return out;
}

/**
 * `partitionedWorkload` (each job of at most its partition's smallest group, one in twenty larger than any
 * group: refused); with `fractional`, submissions off the whole second (a live run's clock: the will-run
 * test's windows read slurmctld's whole-second ends, `wallClockEnd`), operator suspensions included (both
 * engines count a suspended job's run time alike, to the bit: src/execution/suspension.ts).
 */
export function nodeWorkload(seed: number, n: number, layout: Layout, fractional = false): SlurmJobInput[] {
  const jobs = partitionedWorkload(seed, n, layout);
  if (!fractional) return jobs;
  return jobs.map((j) => ({ ...j, submit: j.submit + ((j.submit * 7) % 10) / 10 }));
}

/** A job of user 0 submitted at second `id` with a 1,000 s time limit and node request `shape` (the hand-computed cases). */
export function shapedJob(id: number, cores: number, runTime: number, shape: SlurmJobInput['shape']): SlurmJobInput {
  return { id, submit: id, cores, runTime, timeLimit: 1_000, user: 0, shape };
}

/** Both engines' rows (`a`: the Slurm engine's, `b`: the preset's): the same jobs, each with the same row. */
export function expectSameRows<R>(a: ReadonlyMap<number, R>, b: ReadonlyMap<number, R>): void {
  expect(b.size).toBe(a.size);
  for (const [id, r] of a) expect(b.get(id), `job ${id}`).toEqual(r);
}

/** The hand-computed scenarios' job: user 0, its time limit its run time unless given, `extra` beside. */
export function slurmJob(id: number, submit: number, cores: number, runTime: number, timeLimit = runTime, extra: Partial<SlurmJobInput> = {}): SlurmJobInput {
  return { id, submit, cores, runTime, timeLimit, user: 0, ...extra };
}

/** One node of `cores` cores in one partition. */
export const oneNode = (cores: number): SlurmPlatform =>
  new SlurmPlatform({ groups: [{ name: 'n', count: 1, cores }], partitions: [{ name: 'p', groups: ['n'] }] });

/** A FIFO-like priority of 4 users: only age counts, so the order is the submission order. */
export const fifoByAge: Partial<SlurmConfig> = {
  users: 4,
  priority: { ...DEFAULT_SLURM.priority, weightAge: 1000, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 0 },
};

/** The engines every hand-computed Slurm scenario runs on: the Slurm engine, and the one engine through the Slurm preset. */
export const ENGINES: readonly ReplayEngine[] = ['slurm', 'one'];

/** A job's outcome in a hand-computed scenario, on either engine (`runOn`). */
export interface Rec {
  id: number;
  /** NaN when refused. */
  start: number;
  end: number;
  /** `STATE_NAMES`: completed, timeout, cancelled, refused. */
  state: string;
  /** Its suspensions, `[suspend, resume]`. */
  periods: [number, number][];
  requeues: number;
  /** 1 when its last start was a backfill pass's (Slurm's `Scheduler=Backfill`), else 0 (the main pass's). */
  backfilled: number;
  /** The CPUs it held (its last run's; with whole-node allocation its placement's: `holdsItsPlacement`); refused: those it asked for. */
  cpus: number;
}

/** A hand-computed scenario's run on one engine (`runOn`). */
export interface EngineRun {
  recs: Map<number, Rec>;
  /** User `u`'s usage (core-seconds, decayed) in the fair-share ledger at the end of the run (`until`): the Slurm engine's `fairShare`, the multifactor selection's `users`. */
  usage(u: number): number;
  /** The multifactor priority of job `id` (waiting or running) at the end of the run. */
  priority(id: number): number;
  /** How many times a job left (ended or was refused): once each. */
  finishes: number;
  /** Whether the engine is left with no job waiting, running or suspended and every core free. */
  idle: boolean;
  /** Preemptions, of every mode (suspended, requeued or cancelled): the Slurm engine's `stats.preempted`. */
  preempted: number;
}

/**
 * Runs `jobs` on `platform` under `config` on `engine` (`'slurm'`: the Slurm engine; `'one'`: the one engine
 * through the Slurm preset, `runSlurmPreset`), until every job has left or, with `until`, after the instants
 * at or before it. The preset's killed job timed out or was cancelled as `presetEndPhase` reads its record.
 */
export function runOn(
  engine: ReplayEngine,
  platform: SlurmPlatformSpec | SlurmPlatform,
  jobs: readonly SlurmJobInput[],
  config: Partial<SlurmConfig> = {},
  until = Number.POSITIVE_INFINITY,
): EngineRun {
  const spec = platform instanceof SlurmPlatform ? platform.spec : platform;
  const recs = new Map<number, Rec>();
  if (engine === 'slurm') {
    const e = new SlurmEngine(new SlurmPlatform(spec), config);
    const slots = new Map<number, number>();
    e.addListener({ onSubmit: (eng, s) => void slots.set(eng.jobs.id[s]!, s) });
    let finishes = 0;
    e.onFinish((J, s) => {
      finishes++;
      const refused = J.state[s] === JobPhase.Rejected;
      recs.set(J.id[s]!, {
        id: J.id[s]!,
        start: refused ? Number.NaN : J.start[s]!,
        end: refused ? Number.NaN : J.end[s]!,
        state: STATE_NAMES[J.state[s]!]!,
        periods: J.periods(s),
        requeues: J.requeues[s]!,
        backfilled: J.backfilled[s]!,
        cpus: J.cores[s]!,
      });
    });
    e.stream(jobs);
    if (until === Number.POSITIVE_INFINITY) e.run();
    else e.runUntil(until);
    return {
      recs,
      preempted: e.stats.preempted,
      usage: (u) => e.fairShare.usage[u]!,
      priority: (id) => e.computePriority(slots.get(id)!, e.fairShare.totalUsage()),
      finishes,
      idle:
        e.pending.length === 0 && e.runningCount === 0 && e.suspendedCount === 0 && e.jobs.live === 0 && e.free.every((f, g) => f === e.platform.groupCores[g]),
    };
  }
  const requeues = new Map<string, number>();
  const byBackfill = new Set<string>();
  const submitted = new Map<number, Job>();
  let finishes = 0;
  let preempted = 0;
  const end = (r: JobRecord, state: JobPhase) => {
    finishes++;
    const id = Number(r.job.id);
    const p = r.suspensions ?? [];
    const periods: [number, number][] = [];
    for (let i = 0; i + 1 < p.length; i += 2) periods.push([p[i]!, p[i + 1]!]);
    const refused = state === JobPhase.Rejected;
    recs.set(id, {
      id,
      start: refused ? Number.NaN : r.start,
      end: refused ? Number.NaN : r.finish,
      state: STATE_NAMES[state]!,
      periods,
      requeues: requeues.get(r.job.id) ?? 0,
      backfilled: byBackfill.has(r.job.id) ? 1 : 0,
      cpus: refused ? r.job.ntasks : r.cores.length,
    });
  };
  const run = runSlurmPreset(
    spec,
    jobs,
    config,
    [
      {
        onSubmit: (_s, job) => void submitted.set(Number(job.id), job),
        // (the flag is the last start's; the preset reports a backfill start after this listener)
        onStart: (_s, rj) => void byBackfill.delete(rj.job.id),
        onRequeue: (_s, rj) => {
          requeues.set(rj.job.id, (requeues.get(rj.job.id) ?? 0) + 1);
          preempted++;
        },
        onSuspend: (_s, _rj, phase) => {
          if (phase === JobPhase.Preempted) preempted++;
        },
        onReject: (_s, r) => end(r, JobPhase.Rejected),
        onEnd: (_s, r) => {
          const phase = presetEndPhase(r);
          if (phase === JobPhase.Cancelled) preempted++;
          end(r, phase);
        },
      },
    ],
    undefined,
    (job) => void byBackfill.add(job.id),
    until,
  );
  const mf = presetSelection(run.scheduler);
  return {
    recs,
    usage: (u) => {
      // (the selection folds the ticks into its ledger when it next reads it: those up to the run's end first)
      mf.epoch(until === Number.POSITIVE_INFINITY ? run.sim.now : until);
      return mf.users.usage[mf.users.id(String(u))]!;
    },
    priority: (id) => mf.priorityOf(submitted.get(id)!, run.sim.now),
    finishes,
    preempted,
    idle: run.sim.queue.length === 0 && run.sim.runningCount === 0 && run.sim.freeCores === run.sim.platform.coreCount,
  };
}

/** The multifactor selection inside the Slurm preset's scheduler (its pass clock, main pass and policy). */
export function presetSelection(scheduler: Scheduler): MultifactorSelection {
  const main = scheduler instanceof SlurmPassClock ? scheduler.inner : scheduler;
  const policy = main instanceof SlurmMainPass ? main.policy : main;
  const selection = policy instanceof PolicyScheduler ? policy.selection : null;
  if (!(selection instanceof MultifactorSelection)) throw new Error(`no multifactor selection in ${scheduler.name}`);
  return selection;
}
