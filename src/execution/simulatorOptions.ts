/**
 * What a caller of the one engine (`ClusterSimulator`, simulator.ts) gives it and is given: the run's
 * options (the dimensions chosen: capacity, progress models, pass clock, malleability, semantics), the
 * decision maker it asks at decision points, the resize decider, the shortcuts of `startJob`, the
 * listener shape (the error of a refused resize, `InvalidResizeError`, is simulator.ts's). simulator.ts
 * re-exports all of them.
 */
import type { EngineListener } from '../core/engine.js';
import type { ModelsConfig } from '../platform/platform.js';
import type { Job } from '../workload/job.js';
import type { ResizeCost } from '../workload/malleability.js';
import type { IdlePowerAccounting } from './allocation.js';
import type { ProgressModel } from './progressModel.js';
import type { JobRecord, RunningJob } from './running.js';
import type { ClusterSimulator } from './simulator.js';

/** What to do with a job that can never fit the platform. */
export type UnfitJobHandling = 'error' | 'reject';
/** Execution semantics: the documented model, or IRMaSim's simulator loop (see the module comment). */
export type ExecutionSemantics = 'clustergym' | 'irmasim';

/** Options of a simulation run. */
export interface SimulatorOptions {
  /** Overrides of the platform's models. */
  models?: Partial<ModelsConfig> | undefined;
  /** Node memory is a placement constraint (default true). */
  enforceMemory?: boolean | undefined;
  /** Kill jobs still running at `start + req_time` (default false). */
  walltimeKill?: boolean | undefined;
  /** A job that can never fit: throw an `InputError` (default) or reject it (counted, never run). */
  unfit?: UnfitJobHandling | undefined;
  /** Name of the workload, used in error messages. */
  workloadName?: string | undefined;
  /** Execution semantics (default `clustergym`, the documented model). */
  semantics?: ExecutionSemantics | undefined;
  /** Idle-power accounting (default `always`). */
  idlePower?: IdlePowerAccounting | undefined;
  /**
   * Original submit time that becomes time 0 (default: the first job's, the earliest). IRMaSim rebases a
   * trajectory to its first job IN FILE ORDER; when that is not the earliest, time starts below 0.
   */
  timeOrigin?: number | undefined;
  /**
   * Progress of jobs with a `malleable` facet: `steps` runs their iterations at their size, resized at
   * reconfiguration points by the resize policy (`malleableProgress.ts`); `rigid` (default) runs them as
   * delay jobs of their nominal run time at their submitted size.
   */
  malleable?: 'steps' | 'rigid' | undefined;
  /** Resize costs of malleable jobs without their own (default Table 1 of seed 002). */
  resizeCost?: ResizeCost | undefined;
  /** More progress models (`progressModel.ts`), tried in order before the built-in ones (after malleable steps). */
  progress?: readonly ProgressModel[] | undefined;
  /**
   * When the scheduler is asked (the pass clock): after every instant with a change (default), after
   * every single event and arrival, the arrivals of an instant first (the DMR engine's order, `event`),
   * or at round boundaries every `every` seconds (the module comment), or only where a pass was
   * requested (`requested`: `ClusterSimulator.requestPass`; a scheduler with timers of its own, such as
   * Slurm's main-scheduler clock, `src/scheduling/slurmPassClock.ts`).
   */
  passClock?: 'instant' | 'event' | 'requested' | { every: number } | undefined;
  /**
   * The capacity dimension (`capacity.ts`): `cores` (default), the allocation of cores and memory on the
   * platform's nodes (`allocation.ts`); `vectors`, continuous CPU and memory per host (`hostVectors.ts`:
   * a task holds its job's `cpusPerTask` cores and its `mem` of one host; a placement is a host per task).
   * Under `vectors` jobs run fixed durations only (delay work, ended whole), the per-core arrays
   * (`allocation`, `coreOwner`, `nodeFree`, `freeTree`...) do not exist, and the irmasim semantics and
   * malleable steps are refused. `counted`: free cores counted per node group (`countedCores.ts`: a
   * placement is a group per task; Slurm's counted model, the Slurm preset's), with the same fixed-duration
   * rule, no per-core arrays, and no power, memory, GPUs or node shapes (refused by name).
   */
  capacity?: 'cores' | 'vectors' | 'counted' | undefined;
}

/** A malleable job's size at its reconfiguration point: the new size (its current one: no action), and a waiting job to favour. */
export interface ResizeDecision {
  size: number;
  /** A waiting job the resize is for (§4.3 of seed 002: it gets the highest priority), passed to the scheduler's `promote`. */
  promote?: Job | undefined;
}

/**
 * Decides a malleable job's size at its reconfiguration point (`rj.malleable` holds its state); it may
 * throw `InvalidResizeError` to refuse a decision (counted in `invalidResizes`, applied as no action).
 */
export type ResizeDecider = (sim: ClusterSimulator, rj: RunningJob) => ResizeDecision;

/** Shortcuts of `ClusterSimulator.startJob` (the checks are made all the same). */
export interface StartOptions {
  /**
   * Keep an `Int32Array` of cores as the job's (`RunningJob.cores`) instead of copying it: the caller
   * must not modify it afterwards (schedulers pass the fresh array a placement returned).
   */
  transfer?: boolean;
  /** The job's position in `queue` if the caller knows it (checked; else the queue is searched). */
  queuePosition?: number;
  /** The job's GPU ids (a job with a `gpus` facet: all of them, on the nodes of its cores; `allocation.ts`). */
  gpus?: ArrayLike<number>;
}

/**
 * Observers of a simulation (metrics collectors, reward functions, timelines): the engine listener of
 * `core/engine.ts` with this engine's handles (a `Job` submitted, a `RunningJob` started, a `JobRecord`
 * when it left: `onEnd` for a job that ran, `onReject` for one that never will).
 */
export type SimulationListener = EngineListener<ClusterSimulator, Job, RunningJob, JobRecord>;

/** What decides at decision points: a batch scheduler that starts (or rejects) waiting jobs. */
export interface DecisionMaker {
  schedule(sim: ClusterSimulator): void;
  /** A resize decision favours `job` (a scheduler with a priority order puts it first; others ignore it). */
  promote?(sim: ClusterSimulator, job: Job): void;
  /**
   * Asked before each event (not under the irmasim semantics): true pauses `runUntil` there, before the
   * event, for a decision that is not an event of the engine (Malleable-v0's queue points); the next
   * `runUntil` asks again before going on.
   */
  pause?(sim: ClusterSimulator): boolean;
}
