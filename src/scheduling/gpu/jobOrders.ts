/**
 * The orders in which the GPU heuristics consider jobs, as pure functions of what each job has done:
 *
 * | order | key, smallest first | ties |
 * | --- | --- | --- |
 * | `fifo` | arrival time | input order |
 * | `las` | attained service: GPU-seconds received so far (Tiresias' least attained service, 2D: GPUs x time) | arrival |
 * | `srtf` | remaining time: remaining steps / the job's best rate (its fastest GPU type at its GPU count) | arrival |
 *
 * Each returns the job indices in order (a stable sort: equal keys keep arrival, then input order).
 */

/** What an order reads of a job. */
export interface OrderedJob {
  /** Submission time, s. */
  arrival: number;
  /** GPU-seconds received so far. */
  attained: number;
  /** Steps left. */
  remainingSteps: number;
  /** Its best rate, steps/s (0: it cannot run; it then sorts last in `srtf`). */
  bestRate: number;
}

/** The job orders. */
export const JOB_ORDERS = ['fifo', 'las', 'srtf'] as const;
/** A job order's name. */
export type JobOrder = (typeof JOB_ORDERS)[number];

/** The key of `job` in `order`. */
export function orderKey(order: JobOrder, job: OrderedJob): number {
  switch (order) {
    case 'fifo':
      return job.arrival;
    case 'las':
      return job.attained;
    case 'srtf':
      return job.bestRate > 0 ? job.remainingSteps / job.bestRate : Number.POSITIVE_INFINITY;
  }
}

/** Indices of `jobs` in `order` (see the module comment). */
export function orderJobs(order: JobOrder, jobs: readonly OrderedJob[]): Int32Array {
  const keys = Float64Array.from(jobs, (j) => orderKey(order, j));
  const idx = Array.from(jobs, (_, i) => i);
  idx.sort((a, b) => keys[a]! - keys[b]! || jobs[a]!.arrival - jobs[b]!.arrival || a - b);
  return Int32Array.from(idx);
}
