/**
 * The engine against live Slurm runs of the same workload (`clustergym slurm-replay --live`, the live
 * tests and `npm run bench -- slurm-live`): each live run compared with the engine job by job
 * (`compareSchedules`), the first two live runs with each other, and the verdict (`agreement`): mean wait,
 * 90th-percentile wait and makespan of the engine each within 5 % of the live runs' mean, or within twice
 * the spread between the live runs if that is larger; the median per-job start difference engine vs live
 * (averaged over the live runs) at most 1.5 x the live-vs-live median + 1 s (needs two live runs). When
 * the live runs carry slurmctld's timer ticks (`LiveRun.bgTicks`, `bfTicks`), the engine runs once per live
 * run on that run's timers (Slurm's threads drift with the load, so which tick comes first after an event
 * differs from run to run) and with that run's submission times (the submitter's `sbatch` calls lag the
 * replay's times by up to seconds on a loaded machine: that is the workload Slurm received), and the
 * verdict compares the mean of those schedules' summaries (`engineForRun`).
 */
import type { SlurmConf } from './slurmConf.js';
import {
  type ReplayJob,
  SLURM_JOB_OVERHEAD,
  type ScheduleComparison,
  type ScheduleSummary,
  type ScheduledJob,
  compareSchedules,
  engineSchedule,
} from './trace.js';

/** What the engine reads of a live run (`LiveRun` as saved: `live-N.json`). */
export interface LiveClocks {
  jobs: readonly { id: string; submit: number; start?: number; end?: number; released?: number | undefined; epilog?: boolean | undefined }[];
  ctld_start?: number | undefined;
  bg_ticks?: readonly number[] | undefined;
  bf_ticks?: readonly number[] | undefined;
}

/**
 * The engine's schedule of `jobs` on a live run's own clocks: each job submitted when the run submitted it
 * (by record id; from the replay's start, as the run's times are), multifactor's decay and the timer grids
 * from slurmctld's start (`ctldStart`, default the run's), and slurmctld's logged timer ticks (`engineSchedule`).
 */
export function engineForRun(jobs: readonly ReplayJob[], conf: SlurmConf, run: LiveClocks, clockPhase = 0, ctldStart = run.ctld_start): Schedule {
  const at = new Map(run.jobs.map((j) => [j.id, j]));
  const asRun = jobs.map((j) => {
    const r = at.get(j.id);
    if (r === undefined) return j;
    const ran = r.end !== undefined && r.start !== undefined && r.end > r.start ? r.end - r.start - SLURM_JOB_OVERHEAD : j.runTime;
    // the nodes' release as slurmctld logged it (`ctldCompletions`): COMPLETING from the end until then
    const done = r.released !== undefined && r.end !== undefined ? { completing: Math.max(0, r.released - r.end), epilogPass: r.epilog === true } : {};
    return { ...j, submit: Math.max(0, r.submit), runTime: Math.max(0, ran), ...done };
  });
  return engineSchedule(asRun, conf, undefined, clockPhase, ctldStart, { bg: run.bg_ticks, bf: run.bf_ticks });
}

/** One metric's verdict. */
export interface MetricAgreement {
  metric: 'mean_wait' | 'p90_wait' | 'makespan';
  engine: number;
  live_mean: number;
  /** Largest minus smallest over the live runs. */
  live_spread: number;
  error: number;
  relative_error: number;
  tolerance: number;
  holds: boolean;
}

/** The verdict (see the module comment). */
export interface Agreement {
  metrics: MetricAgreement[];
  start_diff: { engine_vs_live_median: number; live_vs_live_median: number; bound: number; holds: boolean } | null;
  holds: boolean;
}

/** The agreement verdict of the engine's summary against live runs' (see the module comment). */
export function agreement(
  engine: ScheduleSummary,
  live: readonly ScheduleSummary[],
  vsLive: readonly ScheduleComparison[],
  liveLive: ScheduleComparison | null,
): Agreement {
  const keys = ['mean_wait', 'p90_wait', 'makespan'] as const;
  const metrics = keys.map((k): MetricAgreement => {
    const xs = live.map((s) => s[k]);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const spread = Math.max(...xs) - Math.min(...xs);
    const tolerance = Math.max(0.05 * Math.abs(mean), live.length >= 2 ? 2 * spread : 0);
    return {
      metric: k,
      engine: engine[k],
      live_mean: mean,
      live_spread: spread,
      error: engine[k] - mean,
      relative_error: mean !== 0 ? (engine[k] - mean) / mean : 0,
      tolerance,
      holds: Math.abs(engine[k] - mean) <= tolerance,
    };
  });
  const engMedian = vsLive.reduce((a, c) => a + c.start_diff.median, 0) / Math.max(1, vsLive.length);
  const startDiff = liveLive
    ? {
        engine_vs_live_median: engMedian,
        live_vs_live_median: liveLive.start_diff.median,
        bound: 1.5 * liveLive.start_diff.median + 1,
        holds: engMedian <= 1.5 * liveLive.start_diff.median + 1,
      }
    : null;
  return { metrics, start_diff: startDiff, holds: metrics.every((m) => m.holds) && (startDiff?.holds ?? true) };
}

/** A schedule with its summary. */
export interface Schedule {
  jobs: readonly ScheduledJob[];
  summary: ScheduleSummary;
}

/**
 * The engine's schedule against live runs: each comparison, the first two live runs', and the verdict. With
 * one engine schedule per live run (`engine` an array: the engine on each run's own timers), each is
 * compared with its run and the verdict takes the mean of their summaries.
 */
export function compareWithLive(
  engine: Schedule | readonly Schedule[],
  live: readonly Schedule[],
): { engine_vs_live: ScheduleComparison[]; live_vs_live: ScheduleComparison | null; agreement: Agreement } {
  const engines = Array.isArray(engine) ? (engine as readonly Schedule[]) : live.map(() => engine as Schedule);
  const vsLive = live.map((l, k) => compareSchedules(engines[k]!, l, ['engine', 'slurm']));
  const liveLive = live.length >= 2 ? compareSchedules(live[0]!, live[1]!, ['slurm run 1', 'slurm run 2']) : null;
  return {
    engine_vs_live: vsLive,
    live_vs_live: liveLive,
    agreement: agreement(
      meanSummary(engines.slice(0, live.length).map((e) => e.summary)),
      live.map((l) => l.summary),
      vsLive,
      liveLive,
    ),
  };
}

/** The mean of summaries, field by field. */
export function meanSummary(xs: readonly ScheduleSummary[]): ScheduleSummary {
  if (xs.length === 1) return xs[0]!;
  const out = { ...xs[0]! };
  for (const k of Object.keys(out) as (keyof ScheduleSummary)[]) out[k] = xs.reduce((a, s) => a + s[k], 0) / xs.length;
  return out;
}
