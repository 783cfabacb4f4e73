/**
 * The job stream of the time-sharing simulator (seed 003, §2.2).
 *
 * Each generated job is local with probability `plt` (one task, on one node, belonging to the
 * node's local user) and parallel with probability `1 - plt` (m tasks, at most one per node, every
 * task with the same CPU time so that the job's dedicated time is known, §2.2 "Slowdown"). With
 * probability `pms` a job's tasks have a high memory requirement (vmem above 25 % of node.M:
 * uniform in `model.high_mem` x M), otherwise a low one (uniform in `model.low_mem` x M); all the
 * tasks of a parallel job have the same vmem (§2.2 "pms"). CPU times are exponential with means
 * `model.parallel_work` / `model.local_work`; the size m is uniform in `model.job_size` (capped at
 * n). The stream is a pure function of the configuration and its seed.
 */
import { derive } from '../core/rng.js';
import type { TimeSharingConfig } from './config.js';

/** One generated job. */
export interface JobSpec {
  /** Index in the stream (the thesis's jid: a larger id is a more recently launched job). */
  id: number;
  /** Local (one task of the local user) or parallel. */
  kind: 'local' | 'parallel';
  /** Number of tasks (1 for a local job). */
  size: number;
  /** CPU time of each task, u.t. */
  work: number;
  /** Memory requirement of each task, MB. */
  vmem: number;
}

/** The first `cfg.n_jobs` jobs of the stream. */
export function generateJobs(cfg: TimeSharingConfig): JobSpec[] {
  const rng = derive(cfg.seed, 'timesharing/jobs');
  const m = cfg.model;
  const maxSize = Math.min(m.job_size[1], cfg.n);
  const minSize = Math.min(m.job_size[0], maxSize);
  const jobs: JobSpec[] = [];
  for (let id = 0; id < cfg.n_jobs; id++) {
    const local = rng.next() < cfg.plt;
    const high = rng.next() < cfg.pms;
    const [lo, hi] = high ? m.high_mem : m.low_mem;
    const vmem = rng.uniform(lo, hi) * m.memory;
    const mean = local ? m.local_work : m.parallel_work;
    // at least one u.t. of CPU (an exponential draw can be arbitrarily small)
    const work = Math.max(1, rng.exponential(1 / mean));
    const size = local ? 1 : minSize + rng.int(maxSize - minSize + 1);
    jobs.push({ id, kind: local ? 'local' : 'parallel', size, work, vmem });
  }
  return jobs;
}
