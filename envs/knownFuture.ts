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
 * - **A running job past its request** (only without `walltime_kill`: its work done at the decision,
 *   `RunningJob.workDone`, is at least `f`) is taken to **end now**: right after the decision (its
 *   scaled work is what it has done plus a relative 1e-9). A live scheduler has no estimate left for
 *   it, and "any moment now" is what it would assume (Slurm's backfill plans such a job to end now);
 *   its end cannot be put at the decision itself, because the decision's state (its cores still
 *   held) is the one the candidates are chosen in.
 * - A job without a requested time or without work (`reqTime` or `nominal` 0) keeps its own (there is
 *   no estimate to take; none of the shipped settings has such a job).
 *
 * A clone of the known future replays the episode's actions on these jobs: until the decision every
 * running job does exactly what it did (its scaled work is more than it has done, and its rates are
 * the same), so the clone reaches the same state (`ClusterEnv.clone` checks it), and from there the
 * rollout plays a future that holds no unsubmitted job and no actual run time.
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

/** A running job past its request is taken to end this (relative) bit after what it has done. */
const END_NOW = 1e-9;

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
 * The known future of the episode of `jobs` (the episode's job list, as given to the simulator) in
 * `sim`'s current state (see the module comment); `referenceMops` is the speed at which an `ops`
 * job's requested time is meant. `future` may ask for one half of it only (`ROLLOUT_FUTURES`).
 */
export function knownFutureJobs(jobs: readonly Job[], sim: ClusterSimulator, referenceMops: number, future: RolloutFuture = 'known'): Job[] {
  const { arrivals, durations } = ROLLOUT_FUTURES[future];
  const known = arrivals === 'submitted' ? jobs.slice(0, sim.jobsSubmitted) : jobs;
  if (durations === 'actual') return [...known];
  const submitted = sim.jobsSubmitted;
  const waiting = new Set<string>();
  for (const j of sim.waiting) waiting.add(j.id);
  const done = new Map<string, number>();
  for (const rj of sim.running()) done.set(rj.job.id, rj.workDone(sim.now));
  return known.map((job, i) => {
    const running = done.get(job.id);
    if (i < submitted && running === undefined && !waiting.has(job.id)) return job; // ended (or rejected): what happened
    const nominal = nominalDuration(job, referenceMops);
    if (!(job.reqTime > 0) || !(nominal > 0)) return job;
    let f = job.reqTime / nominal;
    if (running !== undefined && f <= running) f = running * (1 + END_NOW); // past its request: it ends now
    return scaleWork(job, f);
  });
}
