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
 * A clone of the known future replays the episode's actions on the known jobs, the waiting ones
 * already at their requested times and the running ones with their own work, so that until the
 * decision everything happens as it did (a job not yet submitted touches nothing before its
 * submission; a waiting job has not started): the clone reaches the episode's state, which
 * `ClusterEnv.clone` checks (time, running jobs and their cores, queue). Then each running job's
 * work is scaled from its start to its requested time, what it has done kept
 * (`ClusterSimulator.scaleRunningWork`: its tasks' remaining work and end events), and the rollout
 * plays a future that holds no unsubmitted job and no actual run time.
 */
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { Job, TaskWork } from '../src/workload/job.js';

/**
 * What a rollout's clone holds of the future: the episode's (`episode`, an oracle: its future
 * arrivals and actual run times), its known future (`known`: the jobs submitted so far, requested
 * times), or one of the two halves, to tell which information an oracle's gain comes from
 * (`known-jobs-actual-times`: no future arrival, actual run times; `all-jobs-requested-times`: the
 * future arrivals, every job running its requested time).
 */
export type RolloutFuture = 'episode' | 'known' | 'known-jobs-actual-times' | 'all-jobs-requested-times';

/** What each rollout future holds: the arrivals (all, or those submitted so far) and the run times (actual or requested). */
export const ROLLOUT_FUTURES: Record<RolloutFuture, { arrivals: 'all' | 'submitted'; durations: 'actual' | 'requested' }> = {
  episode: { arrivals: 'all', durations: 'actual' },
  known: { arrivals: 'submitted', durations: 'requested' },
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
