/**
 * The capacity dimension (DESIGN §15): what the platform offers and who holds it. The engine asks its
 * capacity whether a job could ever fit, whether a placement is valid now, and takes and releases
 * placements through it; nothing else writes the capacity's state.
 *
 * A placement is an `Int32Array` of the capacity's units, one per task: a core id for the allocation of
 * cores on heterogeneous nodes (`allocation.ts`, the default: per-core ownership, memory per node, node
 * counts and whole nodes expressed as placements of whole nodes' cores); other capacities give their
 * units their own meaning (a host index for continuous CPU and memory vectors).
 *
 * GPUs (DESIGN §16) are a second kind of unit of the same placement: a job with a `gpus` facet gives its
 * GPU ids beside its cores when it starts (gang: all at once), checked against the cores just accepted
 * (`gpuPlacementError`), and takes and releases them with `moveGpus`.
 */
import type { Job } from '../workload/job.js';

/** What the engine needs of a capacity model (see the module comment). */
export interface Capacity {
  /** Why `job` can never fit the empty platform (a sentence after "it"), or null when it can. */
  unfitReason(job: Job): string | null;
  /**
   * Why `placement` (task `t` on unit `placement[t]`) is not a valid placement for `job` now, or null.
   * A valid check is remembered for `lastPlacement`.
   */
  placementError(job: Job, placement: ArrayLike<number>): string | null;
  /**
   * The distinct nodes (ascending) and tasks per node of the placement the last `placementError` accepted
   * (the answer object may be reused by the next call; the arrays become the running job's and are never
   * modified afterwards, so a capacity may share them between jobs).
   */
  lastPlacement(): { nodes: Int32Array; perNode: Int32Array };
  /**
   * Takes a whole placement for `owner` (a running job's slot), or releases it (`owner` -1); from task
   * `from` on only (a malleable job's resize: the nodes it adds or gives back are the tail of its placement).
   */
  move(job: Job, placement: Int32Array, owner: number, from?: number): void;
  /**
   * Why `gpus` (GPU ids) are not a valid GPU placement for `job` with the placement the last
   * `placementError` accepted, or null (also for a job without GPUs given none).
   */
  gpuPlacementError(job: Job, gpus: ArrayLike<number>): string | null;
  /** Takes GPUs for `owner` (a running job's slot), or releases them (`owner` -1). */
  moveGpus(gpus: Int32Array, owner: number): void;
  /**
   * A suspended job that keeps its placement stops drawing busy power on it (`paused`), or draws it again
   * (its units stay held: nothing else may take them).
   */
  pause(job: Job, placement: Int32Array, paused: boolean): void;
  /** A suspended job that keeps its GPUs stops drawing their busy power on them (`paused`), or draws it again (they stay held). */
  pauseGpus(gpus: Int32Array, paused: boolean): void;
  /** Takes one unit back for `owner`, with `mem` MB of its node (a preempted `seq` job's task resuming): `releaseCore` undone. */
  takeCore(unit: number, mem: number, owner: number): void;
  /** Releases one unit of a placement early (a `seq` job's task that ended), with `mem` MB of its node. */
  releaseCore(unit: number, mem: number): void;
  /** Cores free and held, nodes with nothing held. */
  readonly freeCores: number;
  readonly busyCores: number;
  readonly idleNodes: number;
  /** GPUs held. */
  readonly busyGpus: number;
  /** The platform's power now (W), kept as a running sum. */
  readonly power: number;
}
