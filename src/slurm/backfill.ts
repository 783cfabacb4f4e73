/**
 * The backfill scheduler (`sched/backfill`) of the Slurm engine: one pass over the pending jobs in
 * priority order, starting now each job that fits without delaying the reservations made before it in
 * the pass, and reserving the others. Three planners model it, behind one interface
 * (`BackfillPlanner`), chosen by the configuration (`backfillPlanner`):
 *
 * - `CountedPlanner` (`backfillCounted.ts`, the pass written once in src/scheduling/countedBackfill.ts): free
 *   units counted per group over a profile of running jobs' expected ends (seed 004's model, millions of
 *   jobs; `bfReserveIdle`, `bfSlurmRounding`);
 * - `NodeProfilePlanner` (`backfillNodes.ts`, `nodeSelect`): whole nodes; each node free from the bucket its
 *   job is expected to end in, reservations on specific nodes;
 * - `WillRunPlanner` (`backfillWillRun.ts`, `nodeSelect` + `bfWillRun`): whole nodes, Slurm 22.05's own
 *   pass: a map of this pass's reservations, earliest starts by the select plugin's will-run test.
 *
 * A planner reads the engine through `BackfillView` and starts jobs only through
 * `view.startByBackfill`; the engine schedules the passes (`bf_interval`) and keeps the queue.
 */
import type { SlurmConfig } from './config.js';
import { endBucketOf, windowBuckets } from '../scheduling/countedBackfill.js';

export { bucketsNow, bucketsReserved } from '../scheduling/countedBackfill.js';
import { JobPhase } from '../core/engine.js';
import type { JobTable } from './jobs.js';
import type { NodeAlloc, NodeMap, NodeRequest } from './nodes.js';
import type { SlurmPlatform } from './platform.js';

/** What a backfill planner reads of the engine, and its one action (starting a job). */
export interface BackfillView {
  readonly jobs: JobTable;
  readonly config: SlurmConfig;
  readonly platform: SlurmPlatform;
  /** Current time (s). */
  readonly now: number;
  /** Free units per group. */
  readonly free: Float64Array;
  /** Free GPUs per group (issue 45). */
  readonly freeGpus: Float64Array;
  /** Slots holding units (running or operator-suspended): the first `runningCount` entries. */
  readonly runningSlots: Int32Array;
  readonly runningCount: number;
  /** Whole nodes (`nodeSelect`): which slot holds each node; null otherwise. */
  readonly nodeMap: NodeMap | null;
  /** With `nodeSelect`: jobs still `COMPLETING` on each node (`SlurmJobInput.completing`), or null when none has been. */
  readonly completingNodes: Int32Array | null;
  /** With `nodeSelect`: what pending slot `s` asks of the nodes. */
  nodeRequest(s: number): NodeRequest;
  /** Starts pending slot `s` now on group `g` (with `nodeSelect`: as `alloc` says), as a backfill start. */
  startByBackfill(s: number, g: number, alloc: NodeAlloc | null): void;
}

/** One backfill pass. */
export interface BackfillPlanner {
  /**
   * Tests `pending[0 .. n)` in order: starts a job now through `view.startByBackfill` (and sets its
   * entry to -1) or reserves its earliest start for the rest of the pass. Returns the number started.
   */
  pass(view: BackfillView, pending: number[], n: number): number;
}

/**
 * Whether slot `s`'s GPUs fit in group `g` with `free` GPUs free there, jobs counted per group (no
 * `nodeSelect`: `nodes.ts` checks them per node): the group has GPUs of the job's type (any when it names
 * none) and `free` holds its count. A job without GPUs fits anywhere (issue 45).
 */
export function gpuFits(v: Pick<BackfillView, 'jobs' | 'platform'>, s: number, g: number, free: number): boolean {
  const n = v.jobs.gpus[s]!;
  if (n === 0) return true;
  const t = v.jobs.gpuType[s]!;
  const gt = v.platform.groupGpuType[g]!;
  return gt >= 0 && (t < 0 || t === gt) && free >= n;
}

/** Seconds until running slot `r` is expected to end (its time limit; an operator-suspended job resumes first), at least 0. */
export function timeLeft(v: BackfillView, r: number): number {
  const J = v.jobs;
  let left = J.timeLimit[r]! - J.executed[r]!;
  if (J.state[r] === JobPhase.Running) left -= v.now - J.lastResume[r]!;
  else left += J.suspendedAt[r]! + J.opFor[r]! - v.now; // operator-suspended: back at its resume
  return Math.max(0, left);
}

/** Expected end (s) of running slot `r` as the backfill scheduler sees it: its start plus its time limit. */
export function expectedEnd(v: BackfillView, r: number): number {
  return v.now + timeLeft(v, r);
}

/**
 * The bucket of `bfResolution` in which running slot `r` is expected to end: on the absolute grid
 * (`bfSlurmRounding`: bucket 0 began `offset` s ago, ends floored), else from now, ends rounded up.
 */
export function endBucket(v: BackfillView, r: number, offset: number): number {
  return endBucketOf(timeLeft(v, r), offset, v.config.bfResolution, v.config.bfSlurmRounding);
}

/** Buckets of the backfill window. */
export function bfBuckets(config: SlurmConfig): number {
  return windowBuckets(config.bfWindow, config.bfResolution);
}
