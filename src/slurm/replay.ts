/**
 * Trace replay as the seed's `runworkload` (Algorithm 3.2) and metrics as its `calcmets` (Algorithm 3.3).
 *
 * **runworkload** with shrink factor `f` (percent; `--shrink 100:50:10` runs 100, 90, ..., 50): every
 * job's submission time, requested time and actual run time are multiplied by `f / 100` (the timed
 * operator suspension too). The first `warmup` jobs are warm-up jobs, submitted at once at the start
 * of the replay and left out of the metrics. After the warm-up period (`warmupPeriod`, s, shrunk) the
 * other jobs are submitted in groups of `group` jobs at regular intervals: group `j` at
 * `warmupPeriod + (drift + period) x j`, measured from the start of the replay (not from the previous
 * submission: Algorithm 3.2's `sleep_submission_period`). By default `period` is `group` times the
 * workload's mean inter-arrival time, shrunk, so the shrunk submission rate is the trace's, shrunk;
 * the recorded submission time is the group's (when `sbatch` ran).
 *
 * **calcmets** reads one record per job (sigsleep's `job_data`: id, cores, submission, start, end,
 * run time, and its list of suspend periods) and computes, over the measured (non-warm-up) jobs that
 * ran to their end (completed or killed at their limit):
 *
 * - wait `= start - submit`, response `= end - submit` (suspended time included),
 * - slowdown `= response / max(run, 1 s)` (`run` the run time executed, suspended time excluded),
 * - weighted slowdown `= sum(cores x run x slowdown) / sum(cores x run)` (slowdown weighted by core-seconds),
 * - utilisation `= sum over all jobs of cores x run / (total cores x (last end - first submission))`.
 *
 * Each record is also checked: `end - start` must equal `run + sum(resume - suspend)` over its periods
 * (to 1e-6 relative); a record that does not is an accounting violation.
 */
import type { SlurmConfig, SlurmJobInput } from './config.js';
import { SlurmEngine } from './engine.js';
import { JobPhase } from '../core/engine.js';
import type { JobTable } from './jobs.js';
import type { SlurmPlatform } from './platform.js';
import { presetEndPhase, runSlurmPreset } from './preset.js';
import type { JobRecord, SimulationListener } from '../execution/simulator.js';
import { numericJobId } from '../workload/job.js';
import type { Scheduler } from '../scheduling/scheduler.js';
import { SlurmPassClock } from '../scheduling/slurmPassClock.js';

/** runworkload's parameters for one shrink factor. */
export interface ReplayOptions {
  /** Shrink factor (percent). */
  shrink: number;
  /** Warm-up jobs. */
  warmup: number;
  /** Warm-up period (s, before shrinking); default `warmup x meanGap`. */
  warmupPeriod?: number;
  /** Jobs per submission group. */
  group: number;
  /** Interval between groups (s, before shrinking); default `group x meanGap`. */
  period?: number;
  /** Drift added to each interval (s, not shrunk). */
  drift: number;
  /** Mean inter-arrival of the workload (s), for the defaults. */
  meanGap: number;
}

/** The shrink factors of `--shrink FROM:TO:STEP` (`100:50:10` -> 100, 90, 80, 70, 60, 50). */
export function shrinkFactors(spec: string): number[] {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(spec.trim());
  if (!m) throw new Error(`shrink ${JSON.stringify(spec)}: expected FROM:TO:STEP in percent, e.g. 100:50:10`);
  const [from, to, step] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!(from > 0 && to > 0 && step > 0 && from <= 100 && to <= from)) throw new Error(`shrink ${spec}: expected 100 >= FROM >= TO > 0 and STEP > 0`);
  const out: number[] = [];
  for (let f = from; f >= to - 1e-9; f -= step) out.push(Math.round(f * 1e6) / 1e6);
  return out;
}

/** The jobs as runworkload submits them with shrink factor `o.shrink` (streamed). */
export function* runworkload(jobs: Iterable<SlurmJobInput>, o: ReplayOptions): Generator<SlurmJobInput> {
  const k = o.shrink / 100;
  const warmupPeriod = (o.warmupPeriod ?? o.warmup * o.meanGap) * k;
  const period = (o.period ?? o.group * o.meanGap) * k;
  let i = 0;
  for (const j of jobs) {
    const submit = i < o.warmup ? 0 : warmupPeriod + (o.drift + period) * Math.floor((i - o.warmup) / o.group);
    const out: SlurmJobInput = { ...j, submit, timeLimit: j.timeLimit * k, runTime: j.runTime * k };
    if (j.opAfter !== undefined) {
      out.opAfter = j.opAfter * k;
      out.opFor = (j.opFor ?? 0) * k;
    }
    i++;
    yield out;
  }
}

/** calcmets' figures for one replay. */
export interface CalcMets {
  shrink: number;
  jobs: number;
  measured: number;
  mean_wait: number;
  mean_response: number;
  mean_slowdown: number;
  weighted_slowdown: number;
  utilisation: number;
  suspended_jobs: number;
  suspend_accounting_violations: number;
  timeouts: number;
  cancelled: number;
  refused: number;
  /** Core-seconds executed by all jobs. */
  service_units: number;
  /** Jobs per size (cores -> count), over all jobs. */
  size_counts: Record<string, number>;
  /** Core-seconds of one-core jobs / all core-seconds. */
  su_share_1core: number;
  /**
   * Standard error of `su_share_1core` as an estimate of the workload's expected share (a ratio
   * estimator: `sqrt(sum (x - r y)^2 / (n (n - 1))) / mean(y)`, `x` a job's one-core service units,
   * `y` its service units, `r` the share).
   */
  su_share_1core_se: number;
  backfilled: number;
  makespan: number;
}

/** What calcmets reads of a job that left (sigsleep's `job_data`). */
export interface CalcMetsRecord {
  id: number;
  cores: number;
  state: JobPhase;
  submit: number;
  /** NaN for a refused or cancelled job. */
  start: number;
  end: number;
  /** Run time executed: `min(run time, time limit)`. */
  run: number;
  /** Seconds suspended, and the number of suspensions. */
  suspended: number;
  suspensions: number;
}

/** calcmets' record of slot `s` of the Slurm engine's job table, as the job leaves. */
export function calcMetsRecordOf(J: JobTable, s: number): CalcMetsRecord {
  const state = J.state[s]!;
  const left = state === JobPhase.Rejected || state === JobPhase.Cancelled;
  return {
    id: J.id[s]!,
    cores: J.cores[s]!,
    state,
    submit: J.submit[s]!,
    start: left ? Number.NaN : J.start[s]!,
    end: left ? Number.NaN : J.end[s]!,
    run: Math.min(J.runTime[s]!, J.timeLimit[s]!),
    suspended: left ? 0 : J.suspendedTime(s),
    suspensions: J.nSus[s]!,
  };
}

/** Streaming calcmets: give it each finished job record (`add`, `addRecord`), read `result()`. */
export class CalcMetsAccumulator {
  private n = 0;
  private m = 0;
  private wait = 0;
  private resp = 0;
  private sd = 0;
  private wsdNum = 0;
  private wsdDen = 0;
  private su = 0;
  private su1 = 0;
  private sx2 = 0;
  private sy2 = 0;
  private sxy = 0;
  private nsu = 0;
  private firstSubmit = Number.POSITIVE_INFINITY;
  private lastEnd = 0;
  private suspended = 0;
  private violations = 0;
  private timeouts = 0;
  private cancelled = 0;
  private refused = 0;
  private readonly sizes = new Map<number, number>();

  constructor(
    private readonly warmup: number,
    private readonly shrink = 100,
  ) {}

  /** Adds the record of slot `s` (called by the Slurm engine when the job leaves). */
  add(J: JobTable, s: number): void {
    this.addRecord(calcMetsRecordOf(J, s));
  }

  /** Adds one job's record (either engine's: `add` reads the Slurm engine's job table, `replayOnOneEngine` the one engine's records). */
  addRecord(r: CalcMetsRecord): void {
    this.n++;
    const cores = r.cores;
    this.sizes.set(cores, (this.sizes.get(cores) ?? 0) + 1);
    const state = r.state;
    if (state === JobPhase.Rejected) {
      this.refused++;
      return;
    }
    if (state === JobPhase.Cancelled) {
      this.cancelled++;
      return;
    }
    if (state === JobPhase.TimedOut) this.timeouts++;
    const submit = r.submit;
    const start = r.start;
    const end = r.end;
    const run = r.run;
    const susp = r.suspended;
    if (r.suspensions > 0) this.suspended++;
    if (!(Math.abs(end - start - run - susp) <= 1e-6 * Math.max(1, end))) this.violations++;
    const y = cores * run;
    const x = cores === 1 ? y : 0;
    this.su += y;
    this.su1 += x;
    this.sx2 += x * x;
    this.sy2 += y * y;
    this.sxy += x * y;
    this.nsu++;
    if (submit < this.firstSubmit) this.firstSubmit = submit;
    if (end > this.lastEnd) this.lastEnd = end;
    if (r.id < this.warmup) return;
    this.m++;
    const response = end - submit;
    const slow = response / Math.max(run, 1);
    this.wait += start - submit;
    this.resp += response;
    this.sd += slow;
    this.wsdNum += cores * run * slow;
    this.wsdDen += cores * run;
  }

  private shareSe(): number {
    const n = this.nsu;
    if (n < 2 || this.su <= 0) return 0;
    const r = this.su1 / this.su;
    const ss = Math.max(0, this.sx2 - 2 * r * this.sxy + r * r * this.sy2);
    return Math.sqrt(ss / (n * (n - 1))) / (this.su / n);
  }

  /** The figures so far. */
  result(totalCores: number, backfilled = 0): CalcMets {
    const m = Math.max(1, this.m);
    const makespan = this.lastEnd - (Number.isFinite(this.firstSubmit) ? this.firstSubmit : 0);
    return {
      shrink: this.shrink,
      jobs: this.n,
      measured: this.m,
      mean_wait: this.wait / m,
      mean_response: this.resp / m,
      mean_slowdown: this.sd / m,
      weighted_slowdown: this.wsdDen > 0 ? this.wsdNum / this.wsdDen : 0,
      utilisation: makespan > 0 ? this.su / (totalCores * makespan) : 0,
      suspended_jobs: this.suspended,
      suspend_accounting_violations: this.violations,
      timeouts: this.timeouts,
      cancelled: this.cancelled,
      refused: this.refused,
      service_units: this.su,
      size_counts: Object.fromEntries([...this.sizes.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      su_share_1core: this.su > 0 ? this.su1 / this.su : 0,
      su_share_1core_se: this.shareSe(),
      backfilled,
      makespan,
    };
  }
}

/** The engines that replay Slurm jobs, by name (the CLI's `--engine`, Slurm-v0's `engine`). */
export const REPLAY_ENGINES = ['slurm', 'one'] as const;
/** Which engine replays: the Slurm engine, or the one engine running its preset (`preset.ts`). */
export type ReplayEngine = (typeof REPLAY_ENGINES)[number];

/** Replays `jobs` with runworkload's options on `platform` and returns calcmets' figures. */
export function replay(
  platform: SlurmPlatform,
  jobs: Iterable<SlurmJobInput>,
  o: ReplayOptions,
  config: Partial<SlurmConfig> = {},
  engineName: ReplayEngine = 'slurm',
): CalcMets {
  if (engineName === 'one') return replayOnOneEngine(platform, jobs, o, config);
  const engine = new SlurmEngine(platform, config);
  const acc = new CalcMetsAccumulator(o.warmup, o.shrink);
  engine.onFinish((J, s) => acc.add(J, s));
  engine.stream(runworkload(jobs, o));
  engine.run();
  return acc.result(platform.totalCores, engine.stats.backfilled);
}

/**
 * `replay` on the one engine through the Slurm preset (`preset.ts`): the same jobs, settings and calcmets; a
 * job's suspensions are its record's periods, its run time `min(run time, time limit)` of its input (the
 * preset's job keeps the input's id, cores, submission, run time and time limit as its `id`, `ntasks`,
 * `subtime`, `runtime` and `reqTime`).
 */
function replayOnOneEngine(platform: SlurmPlatform, jobs: Iterable<SlurmJobInput>, o: ReplayOptions, config: Partial<SlurmConfig>): CalcMets {
  const acc = new CalcMetsAccumulator(o.warmup, o.shrink);
  const run = runSlurmPreset(platform.spec, runworkload(jobs, o), config, [calcMetsListener((r) => acc.addRecord(r))]);
  return acc.result(platform.totalCores, backfillStarts(run.scheduler));
}

/**
 * calcmets' record of a job that left the one engine running the Slurm preset (`state`: `Completed`, `TimedOut`,
 * `Cancelled` or `Rejected`, `presetEndPhase`): the preset's job keeps the input's id, cores, submission, run time
 * and time limit as its `id`, `ntasks`, `subtime`, `runtime` and `reqTime`; its suspensions are its record's
 * periods. A refused or cancelled job has no start, end nor suspended time, as `calcMetsRecordOf` gives it.
 */
export function presetCalcMetsRecord(r: JobRecord, state: JobPhase): CalcMetsRecord {
  const job = r.job;
  // (most jobs never were suspended: no periods, and no empty array made for them)
  const periods = r.suspensions;
  const n = periods?.length ?? 0;
  const left = state === JobPhase.Rejected || state === JobPhase.Cancelled;
  let suspended = 0;
  if (!left) for (let i = 0; i + 1 < n; i += 2) suspended += periods![i + 1]! - periods![i]!;
  return {
    id: numericJobId(job),
    cores: job.ntasks,
    state,
    submit: job.subtime,
    start: left ? Number.NaN : r.start,
    end: left ? Number.NaN : r.finish,
    run: Math.min(job.runtime, job.reqTime),
    suspended,
    suspensions: n / 2,
  };
}

/**
 * A listener of the preset's run that gives `add` calcmets' record of each job as it leaves (ends; killed at its
 * limit, `TimedOut`, or by a preemption, `Cancelled`: `presetEndPhase`; refused).
 */
export function calcMetsListener(add: (r: CalcMetsRecord) => void): SimulationListener {
  return {
    // (a job cancelled by a preemption is no timeout: calcmets measures neither the same)
    onEnd: (_s, r) => add(presetCalcMetsRecord(r, presetEndPhase(r))),
    onReject: (_s, r) => add(presetCalcMetsRecord(r, JobPhase.Rejected)),
  };
}

/** Jobs started by the Slurm backfill scheduler inside `scheduler` (a `SlurmPassClock`), else 0. */
function backfillStarts(scheduler: Scheduler): number {
  return scheduler instanceof SlurmPassClock ? (scheduler.backfill?.started ?? 0) : 0;
}
