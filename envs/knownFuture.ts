/**
 * The known future of an episode at a decision: the episode as a live scheduler knows it then, for
 * what-if rollouts under information parity (`ClusterEnv.clone({ future: 'known' })`, the parity
 * lookahead of agents/leaderboard/lookahead.ts and the imitation teacher's `teacher_future: "known"`).
 *
 * - **Arrivals.** Only the jobs submitted so far (the episode's first `sim.jobsSubmitted` jobs: the
 *   simulator submits them in order); the ones not yet submitted are removed.
 * - **Run times.** Every job still in the system (waiting or running) runs its requested time (its
 *   walltime, `reqTime`) instead of its actual one: its work is scaled by `f = reqTime / nominal`,
 *   where `nominal` is its run time on a core of the reference speed (a `delay` job's run time; an
 *   `ops` job's operations at `referenceMops`). An `ops` job's memory and communication volumes are
 *   scaled by the same `f`, so its intensities, and thus its speed under contention, are unchanged:
 *   on a core of the reference speed without contention it runs exactly its requested time. Jobs
 *   that have ended keep what happened (their end is in the past, which a live scheduler saw).
 * - **A running job past its request** (only without `walltime_kill`: it has done more than its
 *   requested share of its work) is taken to **end now**: right after the decision (a relative 1e-9
 *   of its work later). A live scheduler has no estimate left for it, and "any moment now" is what it
 *   would assume (Slurm's backfill plans such a job to end now); its end cannot be put at the
 *   decision itself, because the decision's state (its cores still held) is the one the candidates
 *   are chosen in.
 * - A job without a requested time or without work (`reqTime` or `nominal` 0) keeps its own (there is
 *   no estimate to take; none of the shipped settings has such a job).
 *
 * **The sampled future** (`future: 'sampled'`, the sampled lookahead and `teacher_future: "sampled"`):
 * the known future plus `jobs` future arrivals drawn from what the episode has shown so far, one
 * of several futures (`index`) of a decision, drawn from a stream seeded by the episode's seed, the
 * decision's time, the number of jobs submitted and `index` only (so every candidate of a decision
 * plays the same futures, and nothing of the episode's unseen part enters):
 * - inter-arrival times drawn from the gaps between the submissions seen so far (the first one among
 *   the gaps longer than the time already passed since the last submission, if any);
 * - each arrival a copy of a job submitted so far (its size, shape, request, user), its work scaled
 *   to its requested time times a ratio drawn from the **ended** jobs' (actual / requested run
 *   time at the reference speed; 1 before any job has ended);
 * - every job still in the system runs its requested time times such a drawn ratio too (the ended
 *   jobs' run times are part of what a live scheduler has seen; the jobs in the system have none
 *   yet). On a trace without requests (rlsched's: every request is the run time) every ratio is 1,
 *   and the known jobs run exactly as in the known future.
 * With fewer than two submissions there is no gap to draw: the sampled future is the known future
 * with drawn ratios.
 *
 * A clone of the known future replays the episode's actions on the known jobs, the waiting ones
 * already at their requested times and the running ones with their own work, so that until the
 * decision everything happens as it did (a job not yet submitted touches nothing before its
 * submission; a waiting job has not started): the clone reaches the episode's state, which
 * `ClusterEnv.clone` checks (time, running jobs and their cores, queue). Then each running job's
 * work is scaled from its start to its requested time, what it has done kept
 * (`ClusterSimulator.scaleRunningWork`: its tasks' remaining work and end events), and the rollout
 * plays a future that holds no unsubmitted job and no actual run time.
 */
import { derive, type Rng } from '../src/core/rng.js';
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { Job, TaskWork } from '../src/workload/job.js';

/**
 * What a rollout's clone holds of the future: the episode's (`episode`, an oracle: its future
 * arrivals and actual run times), its known future (`known`: the jobs submitted so far, requested
 * times), or one of the two halves, to tell which information an oracle's gain comes from
 * (`known-jobs-actual-times`: no future arrival, actual run times; `all-jobs-requested-times`: the
 * future arrivals, every job running its requested time).
 */
export type RolloutFuture = 'episode' | 'known' | 'sampled' | 'known-jobs-actual-times' | 'all-jobs-requested-times';

/**
 * What each rollout future holds: the arrivals (all, those submitted so far, or those and sampled
 * ones) and the run times (actual, requested, or requested times a sampled ratio).
 */
export const ROLLOUT_FUTURES: Record<RolloutFuture, { arrivals: 'all' | 'submitted' | 'sampled'; durations: 'actual' | 'requested' | 'sampled' }> = {
  episode: { arrivals: 'all', durations: 'actual' },
  known: { arrivals: 'submitted', durations: 'requested' },
  sampled: { arrivals: 'sampled', durations: 'sampled' },
  'known-jobs-actual-times': { arrivals: 'submitted', durations: 'actual' },
  'all-jobs-requested-times': { arrivals: 'all', durations: 'requested' },
};

/** A job's run time on a core of `referenceMops` (its longest task's), seconds. */
export function nominalDuration(job: Job, referenceMops: number): number {
  if (job.work === 'delay') {
    if (!job.tasks) return job.runtime;
    let m = 0;
    for (const t of job.tasks) if (t.runtime > m) m = t.runtime;
    return m;
  }
  let ops = job.ops;
  if (job.tasks) {
    ops = 0;
    for (const t of job.tasks) if (t.ops > ops) ops = t.ops;
  }
  return ops / (referenceMops * 1e6);
}

/** `job` with its work (and, for `ops` work, its memory and communication volumes) scaled by `f`. */
export function scaleWork(job: Job, f: number): Job {
  const task = (t: TaskWork): TaskWork => (job.work === 'delay' ? { ...t, runtime: t.runtime * f } : { ...t, ops: Math.ceil(t.ops * f), memVol: t.memVol * f });
  const tasks = job.tasks ? job.tasks.map(task) : null;
  if (job.work === 'delay') return { ...job, runtime: job.runtime * f, tasks };
  return { ...job, ops: Math.ceil(job.ops * f), memVol: job.memVol * f, commVol: job.commVol * f, tasks };
}

/**
 * The jobs of the known future of the episode of `jobs` (the episode's job list, as given to the
 * simulator) in `sim`'s current state (see the module comment): the jobs submitted so far (with
 * `future` asking for them only), the waiting ones and those not yet submitted running their
 * requested times (with `future` asking for requested times). Running jobs keep their work here, so
 * that a replay reaches the episode's state exactly; `requestRunningTimes` scales them after it.
 */
export function knownFutureJobs(jobs: readonly Job[], sim: ClusterSimulator, referenceMops: number, future: RolloutFuture = 'known'): Job[] {
  const { arrivals, durations } = ROLLOUT_FUTURES[future];
  if (arrivals === 'sampled' || durations === 'sampled') throw new Error('internal error: a sampled future is drawn by rolloutFuture');
  const known = arrivals === 'submitted' ? jobs.slice(0, sim.jobsSubmitted) : jobs;
  if (durations === 'actual') return [...known];
  const submitted = sim.jobsSubmitted;
  const waiting = new Set<string>();
  for (const j of sim.waiting) waiting.add(j.id);
  return known.map((job, i) => (i < submitted && !waiting.has(job.id) ? job : requested(job, referenceMops)));
}

/** `job` running its requested time (see the module comment). */
function requested(job: Job, referenceMops: number): Job {
  const f = requestedFactor(job, referenceMops);
  return f === 1 ? job : scaleWork(job, f);
}

/** The factor that makes `job`'s work its requested time at the reference speed (1 without a request or work). */
function requestedFactor(job: Job, referenceMops: number): number {
  const nominal = nominalDuration(job, referenceMops);
  return job.reqTime > 0 && nominal > 0 ? job.reqTime / nominal : 1;
}

/**
 * After a known-future clone's replay: every running job of `sim` runs its requested time (its work
 * scaled from its start; one already past its request ends right after now).
 */
export function requestRunningTimes(sim: ClusterSimulator, referenceMops: number): void {
  for (const rj of [...sim.running()]) {
    const f = requestedFactor(rj.job, referenceMops);
    if (f !== 1) sim.scaleRunningWork(rj, f);
  }
}

/** Which sampled future of a decision a clone holds (`index`) and how many future arrivals it draws (`jobs`). */
export interface FutureSample {
  index: number;
  jobs: number;
}

/** The sample of a `sampled` clone that names none. */
export const DEFAULT_FUTURE_SAMPLE: FutureSample = { index: 0, jobs: 128 };

/** A rollout's future: the clone's jobs, and what to do to its running jobs once the replay reached the episode's state. */
export interface RolloutPlan {
  jobs: Job[];
  scaleRunning(sim: ClusterSimulator): void;
}

/**
 * The rollout future `future` of the episode of `jobs` in `sim`'s state (not `episode`): the known
 * future or one of its halves, or a sampled future (`sample` of the episode of `seed`; see the
 * module comment). The sampled one reads `jobs` only up to `sim.jobsSubmitted`.
 */
export function rolloutFuture(
  jobs: readonly Job[],
  sim: ClusterSimulator,
  referenceMops: number,
  future: RolloutFuture,
  seed: number,
  sample: FutureSample,
): RolloutPlan {
  if (ROLLOUT_FUTURES[future].arrivals !== 'sampled') {
    const requestedTimes = ROLLOUT_FUTURES[future].durations === 'requested';
    return {
      jobs: knownFutureJobs(jobs, sim, referenceMops, future),
      scaleRunning: (s) => (requestedTimes ? requestRunningTimes(s, referenceMops) : undefined),
    };
  }
  const n = sim.jobsSubmitted;
  const seen = jobs.slice(0, n);
  const rng = derive(seed, `sampled-future/${sim.now}/${n}/${sample.index}`);
  // the ended jobs' ratios of actual to requested run time (at the reference speed)
  const waiting = new Set<string>();
  for (const j of sim.waiting) waiting.add(j.id);
  const inSystem = new Set<string>(waiting);
  for (const rj of sim.running()) inSystem.add(rj.job.id);
  const ratios: number[] = [];
  for (const j of seen) if (!inSystem.has(j.id) && j.reqTime > 0) ratios.push(nominalDuration(j, referenceMops) / j.reqTime);
  const drawn = (job: Job): number => {
    const nominal = nominalDuration(job, referenceMops);
    const ratio = ratios.length > 0 ? ratios[rng.int(ratios.length)]! : 1;
    return job.reqTime > 0 && nominal > 0 ? (job.reqTime * ratio) / nominal : 1;
  };
  const runningFactor = new Map<string, number>();
  const out: Job[] = seen.map((job) => {
    if (!inSystem.has(job.id)) return job;
    const f = drawn(job);
    if (waiting.has(job.id)) return f === 1 ? job : scaleWork(job, f);
    runningFactor.set(job.id, f);
    return job;
  });
  out.push(...sampledArrivals(seen, sim, rng, sample, drawn));
  return {
    jobs: out,
    scaleRunning(s) {
      for (const rj of [...s.running()]) {
        const f = runningFactor.get(rj.job.id) ?? 1;
        if (f !== 1) s.scaleRunningWork(rj, f);
      }
    },
  };
}

/** `sample.jobs` arrivals after now, drawn from the jobs `seen` so far (see the module comment). */
function sampledArrivals(seen: readonly Job[], sim: ClusterSimulator, rng: Rng, sample: FutureSample, factor: (job: Job) => number): Job[] {
  const n = seen.length;
  if (n < 2 || sample.jobs === 0) return [];
  const gaps: number[] = [];
  for (let i = 1; i < n; i++) gaps.push(seen[i]!.subtime - seen[i - 1]!.subtime);
  const now = sim.timeOrigin + sim.now;
  const last = seen[n - 1]!.subtime;
  const longer = gaps.filter((g) => g > now - last);
  let t = longer.length > 0 ? last + longer[rng.int(longer.length)]! : now + gaps[rng.int(gaps.length)]!;
  // strictly after the decision (a replay must reach the episode's state before any of them)
  t = Math.max(t, now + Math.max(1e-6, Math.abs(now) * 1e-12));
  const out: Job[] = [];
  for (let k = 0; k < sample.jobs; k++) {
    if (k > 0) t += gaps[rng.int(gaps.length)]!;
    const template = seen[rng.int(n)]!;
    const f = factor(template);
    out.push({ ...(f === 1 ? template : scaleWork(template, f)), id: `sampled-${sample.index}-${k}`, subtime: t, source: 'a sampled future arrival' });
  }
  return out;
}
