/**
 * The job-selection interface (DESIGN §4): the order in which a scheduler considers the waiting jobs.
 * The policies are in `jobSelection.ts` (and `multifactor.ts`); this module holds only the types, so that
 * every policy module can implement them without importing the others.
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';

/**
 * How the order of a policy evolves: `arrival` (the queue itself), `static` (a job's key is fixed at its
 * submission), `epoch` (keys hold between epochs: `epoch(now)` says which, and a new epoch re-keys every
 * waiting job; Slurm's priorities between `PriorityCalcPeriod` ticks), `dynamic` (recomputed at every pass).
 */
export type SelectionKind = 'arrival' | 'static' | 'epoch' | 'dynamic';

/** A job-selection policy: the order in which waiting jobs are considered. */
export interface JobSelection {
  /** Canonical name (`fcfs`, `sjf`, ...). */
  readonly name: string;
  readonly kind: SelectionKind;
  /**
   * Priority of `job` at time `now` (lower first). `origin` is the original submit time of the
   * simulation's first job (`sim.timeOrigin`), so `job.subtime + origin` is the job's original submit
   * time. `slot`: the job's waiting slot (`WaitingQueue`), when the caller knows it (a selection that keeps
   * something per waiting job, `multifactor`'s priority between ticks, keeps it by slot; without it, it looks
   * the slot up).
   */
  key(job: Job, now: number, origin: number, slot?: number): number;
  /** The waiting jobs in the order to consider them (a new array; `queue` is in arrival order). */
  order(queue: readonly Job[], now: number, origin?: number): Job[];
  /** Binds to the engine it orders jobs of (a selection that follows the engine's events: `multifactor`). */
  attach?(sim: ClusterSimulator): void;
  /** An `epoch` selection: the epoch at `now` (called at the start of each pass; a change re-keys the waiting jobs). */
  epoch?(now: number): number;
}
