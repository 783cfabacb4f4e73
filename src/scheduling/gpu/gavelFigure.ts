/**
 * Gavel's Figure 9 on the one engine (docs/gavel-reproduction.md): mean job completion time (JCT)
 * against the input job rate on 36 V100 + 36 P100 + 36 K80 GPUs (one GPU per server, Gavel's default),
 * heterogeneity-agnostic max-min fairness ("LAS") against the heterogeneity-aware one ("Gavel"), on
 * Gavel's generator (multi-GPU jobs, `src/workload/gavel.ts`) and throughput table, rounds of 360 s.
 *
 * One point: a policy, an input rate and a seed. Jobs stream from the generator (Poisson arrivals at
 * the rate, seeded as Gavel seeds them); the metric is the mean JCT (end minus arrival) of the jobs
 * with ids in `[from, to)` (Gavel's `-s 4000 -e 5000`); the run stops once they have all ended (the
 * jobs before them warm the cluster up, those after keep it loaded), or at `maxHours` of simulated time
 * after the window's last arrival, when the point is reported unfinished (`jct` NaN), as Gavel's
 * notebook leaves 3.0 jobs/h out.
 *
 * As in Gavel's simulator, DL jobs run at the table's one-server rate whatever their servers
 * (`DlProgress` with `spreadRates: false`), and the round mechanism is `GavelRounds` (`rounds.ts`).
 */
import { DlProgress } from '../../execution/dlProgress.js';
import { ClusterSimulator } from '../../execution/simulator.js';
import type { Platform } from '../../platform/platform.js';
import { platformFromNodeGroups } from '../../platform/views.js';
import type { ThroughputTable } from '../../workload/dlThroughput.js';
import { gavelJobs } from '../../workload/gavel.js';
import { GavelRounds } from './rounds.js';

/** The figure's two policies: Gavel's names (the paper's "LAS" and "Gavel"). */
export const FIGURE_POLICIES = ['max_min_fairness', 'max_min_fairness_perf'] as const;
/** One of them. */
export type FigurePolicy = (typeof FIGURE_POLICIES)[number];

/**
 * The target: the mean JCT (hours) of jobs 4000-4999 for seed 0 printed by Gavel's notebook
 * (`continuous_jobs_multigpu.ipynb`, commit c4fa400), per input rate (jobs/h): [LAS, Gavel].
 */
export const PAPER_SEED0_JCT: Readonly<Record<string, readonly [number, number]>> = {
  '0.2': [25.93, 18.55],
  '0.4': [25.92, 18.58],
  '0.6': [25.88, 18.59],
  '0.8': [26.08, 18.51],
  '1.0': [26.1, 18.54],
  '1.2': [26.1, 18.49],
  '1.4': [26.23, 18.55],
  '1.6': [26.51, 19.12],
  '1.8': [27.29, 20.35],
  '2.0': [28.91, 21.9],
  '2.2': [30.82, 24.61],
  '2.4': [38.71, 30.03],
  '2.6': [70.54, 36.44],
  '2.8': [169.93, 55.78],
};

/** Gavel's evaluation cluster: `perType` servers of one GPU of each of V100, P100, K80 (8 cores each). */
export function gavelCluster(perType = 36): Platform {
  return platformFromNodeGroups({
    groups: ['v100', 'p100', 'k80'].map((type) => ({ name: type, count: perType, cores: 8, gpus: { count: 1, type } })),
  });
}

/** One point of the figure. */
export interface FigurePoint {
  policy: FigurePolicy;
  rate: number;
  seed: number;
  /** Mean JCT of the window's jobs, hours (NaN when unfinished). */
  jct: number;
  /** Window jobs that ended. */
  ended: number;
  /** Simulated hours, allocations computed, preemptions, wall seconds. */
  hours: number;
  allocations: number;
  preemptions: number;
  seconds: number;
}

/** Options of a point. */
export interface PointOptions {
  /** The window of job ids `[from, to)` (4000, 5000). */
  from: number;
  to: number;
  /** Round length, s (360). */
  round?: number;
  /** GPUs of each type (36). */
  perType?: number;
  /** Give up this many simulated hours after the window's last arrival (default 2,000). */
  maxHours?: number;
}

/** Runs one point (see the module comment). */
export function runFigurePoint(table: ThroughputTable, policy: FigurePolicy, rate: number, seed: number, o: PointOptions): FigurePoint {
  const t0 = performance.now();
  const round = o.round ?? 360;
  const platform = gavelCluster(o.perType ?? 36);
  const dl = new DlProgress(table, { spreadRates: false });
  // jobs beyond the window keep coming until the window is done (Gavel generates them on the fly)
  const jobs = gavelJobs({ jobs: 10_000_000, arrivalsPerHour: rate }, seed, table);
  const sim = new ClusterSimulator(platform, jobs, { progress: [dl], passClock: { every: round }, workloadName: `gavel(rate=${rate}, seed=${seed})` });
  const scheduler = new GavelRounds(policy, dl, { round, seed });
  sim.setScheduler(scheduler);
  let sum = 0;
  let ended = 0;
  let lastArrival = Number.NaN;
  let preemptions = 0;
  sim.addListener({
    onSubmit: (_s, job) => {
      if (Number(job.id) === o.to - 1) lastArrival = job.subtime;
    },
    onRequeue: () => void preemptions++,
    onEnd: (_s, rec) => {
      const id = Number(rec.job.id);
      if (id >= o.from && id < o.to) {
        sum += rec.finish - rec.submit;
        ended++;
      }
    },
  });
  const want = o.to - o.from;
  const cap = (o.maxHours ?? 2000) * 3600;
  // a day at a time until the window's jobs have all ended, or the cap
  while (ended < want && !sim.done) {
    if (!Number.isNaN(lastArrival) && sim.now > lastArrival + cap) break;
    sim.runUntil(sim.now + 86_400);
  }
  return {
    policy,
    rate,
    seed,
    jct: ended === want ? sum / want / 3600 : Number.NaN,
    ended,
    hours: sim.now / 3600,
    allocations: scheduler.allocations,
    preemptions,
    seconds: (performance.now() - t0) / 1000,
  };
}
