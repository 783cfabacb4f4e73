/**
 * Batch schedulers: the policies that decide, at each decision point, which waiting jobs start and
 * where (DESIGN §4). A `Scheduler` is called by `runSimulation` after every `advance()` of the
 * simulator and starts zero or more jobs with `sim.startJob`.
 *
 * `ListScheduler` is the classic list scheduler: it orders the queue with a job-selection policy,
 * then starts jobs in that order while they fit (no backfilling: it stops at the first job that
 * does not fit, so that job is never overtaken).
 */
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Job } from '../workload/job.js';
import { firstPolicy, type NodeFit, type ResourcePolicy } from './placement.js';

/** A batch scheduling policy. */
export interface Scheduler {
  /** Name as given on the command line, e.g. `fcfs:first`. */
  readonly name: string;
  /** Starts zero or more waiting jobs at the current decision point. */
  schedule(sim: ClusterSimulator): void;
}

/** A job-selection policy: the order in which waiting jobs are considered. */
export interface JobSelection {
  readonly name: string;
  /** The waiting jobs in the order to consider them (a new array; `queue` is in arrival order). */
  order(queue: readonly Job[], now: number): Job[];
}

/** First come, first served: arrival order. */
export const fcfsSelection: JobSelection = {
  name: 'fcfs',
  order: (queue) => queue.slice(),
};

/** Orders the queue and starts jobs while they fit; stops at the first that does not. */
export class ListScheduler implements Scheduler {
  readonly name: string;
  constructor(
    readonly selection: JobSelection = fcfsSelection,
    readonly resources: ResourcePolicy = firstPolicy,
    readonly fit: NodeFit = 'first_fit',
  ) {
    this.name = `${selection.name}:${resources.name}`;
  }

  schedule(sim: ClusterSimulator): void {
    if (sim.waiting.length === 0) return;
    const order = this.selection === fcfsSelection ? sim.waiting : this.selection.order(sim.waiting, sim.now);
    // `sim.waiting` shrinks as jobs start: iterate over a snapshot of the head only when needed.
    if (order === sim.waiting) {
      while (sim.waiting.length > 0) {
        const job = sim.waiting[0]!;
        const cores = this.resources.place(sim, job, this.fit);
        if (!cores) return;
        sim.startJob(job, cores);
      }
      return;
    }
    for (const job of order) {
      const cores = this.resources.place(sim, job, this.fit);
      if (!cores) return;
      sim.startJob(job, cores);
    }
  }
}
