/**
 * Progress models plugged into the engine (DESIGN §15, the `progress` dimension). The engine runs a job
 * by the first plugged-in model that `runs` it, else by its built-in models: IRMaSim's rate model with
 * contention and flows (`progress.ts`) for `ops` work, fixed durations for `delay` work. The models of
 * this project: malleable steps (`malleableProgress.ts`); a model of DL jobs' measured throughputs plugs
 * in the same way.
 *
 * A model keeps its state on the running job (`RunningJob.malleable`, or `RunningJob.extension` for a
 * model of its own), schedules its events through the host (kinds local to the model, 0-7, stamped; an
 * event is stale once `isLive` says so) and tells the host when the job's work is done (`complete`) or
 * when it reached a point where its size may change (`reconfigurationPoint`).
 *
 * A preemption (`ClusterSimulator.preempt`: the job goes back to the queue) calls `stop`, like an end;
 * whatever the model leaves in `rj.extension` is handed to the job's next run (the new `RunningJob`'s
 * `extension`, set before `start`), so a model that keeps its progress there resumes the job where it
 * stopped (DL steps: `dlProgress.ts`). The built-in models keep nothing: their jobs start again from
 * scratch, as Slurm's requeue does.
 */
import type { Platform } from '../platform/platform.js';
import type { Job } from '../workload/job.js';
import type { RunningJob } from './running.js';

/** What a progress model may ask of the engine. */
export interface ProgressHost {
  readonly now: number;
  readonly platform: Platform;
  /** Schedules an event of the calling model (its own kind, 0-7) for `rj` at `time`, stamped with `stamp`. */
  schedule(time: number, kind: number, rj: RunningJob, stamp: number): void;
  /** The job's work is done: it ends now, completed. */
  complete(rj: RunningJob): void;
  /** A malleable job reached a reconfiguration point: the engine's resize policy (or its caller) decides its size. */
  reconfigurationPoint(rj: RunningJob): void;
  /** A resize's cost is over: the engine gives back a shrink's surplus nodes, then the model runs on. */
  resizeEnded(rj: RunningJob): void;
}

/** A progress model (see the module comment). */
export interface ProgressModel {
  /** Its name (for messages). */
  readonly name: string;
  /** Called once, when the engine is built. */
  attach(host: ProgressHost): void;
  /** Whether this model runs `job`. */
  runs(job: Job): boolean;
  /**
   * Why this model cannot run `job` on GPUs `gpus` (ids, checked by the capacity already), or null; absent:
   * it runs anywhere. `startJob` refuses such a placement, changing nothing.
   */
  placementError?(job: Job, gpus: ArrayLike<number>): string | null;
  /** `rj` starts now on its placement: set its state up (from `rj.extension` after a preemption) and schedule its first event. */
  start(rj: RunningJob): void;
  /** Whether an event of this model is still current. */
  isLive(kind: number, rj: RunningJob, stamp: number): boolean;
  /** An event of this model happened (it is current). */
  handle(kind: number, rj: RunningJob): void;
  /**
   * `rj` is suspended now (`ClusterSimulator.suspend`), keeping its placement (`hold`) or not: its events
   * go stale and its progress stops. Absent: the model's jobs cannot be suspended.
   */
  suspend?(rj: RunningJob, hold: boolean): void;
  /** `rj` resumes now after `pausedFor` seconds suspended: its progress goes on, its events move by that. */
  resume?(rj: RunningJob, pausedFor: number): void;
  /** `rj` leaves now (its end, a kill, a preemption): stop its events and settle its accounts. */
  stop(rj: RunningJob): void;
}

/** Event kinds below this are the engine's own; model `i` uses kinds `PLUGIN_KIND_BASE + 8 i` to `+ 8 i + 7`. */
export const PLUGIN_KIND_BASE = 8;
