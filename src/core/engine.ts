/**
 * The engine contract (DESIGN §15): what every discrete-event engine of clustergym is, whatever it
 * models (the IRMaSim-model cluster engine, its Slurm, malleable and fairness presets, the
 * time-sharing dispatcher).
 *
 * An engine owns a clock and an `EventLoop` (`eventLoop.ts`). Time only moves forward. At each
 * instant it processes that instant's events in the order its event kinds declare (ranks), then the
 * scheduling passes the instant asks for (the engine's pass clock decides which: every instant, or
 * Slurm's intervals), and tells its listeners what happened, in one shape for every engine
 * (`EngineListener`). A job's life is one `JobPhase` enum.
 *
 * `runUntil(t)` processes every instant up to and including `t` and leaves the clock at `t` (when `t` is
 * finite and later than the last instant). An engine whose decisions are made outside it (a caller's
 * scheduler or an RL agent acting at decision points) stops early, at the first instant after which a
 * decision is due, so that the caller can decide; `runUntil` returns the time it stopped at, and an
 * engine with its own scheduler never stops early. Slicing a run into any sequence of `runUntil` calls
 * gives the same run as one call: `src/core/engineChecker.ts` checks this and the rest of the contract on
 * every engine.
 */

/** A discrete-event engine (see the module comment). */
export interface DiscreteEventEngine {
  /** Current time of the engine's clock (s). */
  readonly now: number;
  /** Time of the next event the engine would process (a submission, an end, a timed pass), Infinity when none. */
  nextEventTime(): number;
  /**
   * Processes every instant up to and including `t`, then moves the clock to `t` when it is finite and
   * later; stops early (and returns that time) where a decision is due outside the engine. Returns `now`.
   */
  runUntil(t: number): number;
  /** Whether nothing is left: no job to come, waiting or running (and no decision due). */
  readonly done: boolean;
}

/**
 * The phase of a job, one enum for every engine. A job goes `Waiting -> Running -> (Suspended |
 * Preempted | Resizing -> Running)* -> Completed | TimedOut | Cancelled`, or `Waiting -> Rejected`
 * (`Rejected` also at submission, for a job that can never run); a requeued job goes back to `Waiting`.
 */
export enum JobPhase {
  /** Not submitted yet (or a free slot of an engine's job table). */
  None = 0,
  /** Submitted, waiting for resources and a decision. */
  Waiting = 1,
  /** Running: holds its resources and makes progress. */
  Running = 2,
  /** Suspended holding its resources (an operator's `scontrol suspend`); no progress. */
  Suspended = 3,
  /** Suspended without its resources (preempted with `PreemptMode=SUSPEND`); resumes when they are free. */
  Preempted = 4,
  /** Running, changing its size (a malleable job's resize); no progress. */
  Resizing = 5,
  /** Ended: its work is done. */
  Completed = 6,
  /** Ended: killed at its time limit (walltime). */
  TimedOut = 7,
  /** Ended: cancelled (killed by a caller, or preempted with `PreemptMode=CANCEL`). */
  Cancelled = 8,
  /** Never ran: refused at submission (it can never fit, or a partition's limits forbid it) or rejected while waiting. */
  Rejected = 9,
}

/** Lower-case names of the phases, for outputs. */
export const JOB_PHASE_NAMES: readonly string[] = [
  'none',
  'waiting',
  'running',
  'suspended',
  'preempted',
  'resizing',
  'completed',
  'timed_out',
  'cancelled',
  'rejected',
];

/** Whether `p` is a phase a job leaves the system in. */
export function isFinalPhase(p: JobPhase): boolean {
  return p >= JobPhase.Completed;
}

/**
 * What an engine tells its observers (metrics, rewards, timelines, writers), in one shape for every
 * engine. `E` is the engine, `Q` its handle of a submitted job, `S` of a running job, `F` of a job
 * that left (its record). Every method is optional; the engine calls them in the order things happen.
 */
export interface EngineListener<E, Q = unknown, S = Q, F = S> {
  /** The clock moves from `from` to `to` (called before the events at `to` are processed). */
  onAdvance?(engine: E, from: number, to: number): void;
  /** A job arrives and waits. */
  onSubmit?(engine: E, job: Q): void;
  /** A job never runs: refused at submission or rejected while it waits (`Rejected`). */
  onReject?(engine: E, record: F): void;
  /** A job starts. */
  onStart?(engine: E, job: S): void;
  /** A running job changes size (a malleable job), from `from` to `to` in the engine's units (nodes). */
  onResize?(engine: E, job: S, from: number, to: number): void;
  /** A running job is suspended: `Suspended` (it keeps its resources) or `Preempted` (it gives them up). */
  onSuspend?(engine: E, job: S, phase: JobPhase.Suspended | JobPhase.Preempted): void;
  /** A suspended or preempted job runs again. */
  onResume?(engine: E, job: S): void;
  /** A running job goes back to the queue (preempted with `PreemptMode=REQUEUE`): it is `Waiting` again and starts from scratch. */
  onRequeue?(engine: E, job: S): void;
  /** A job that ran leaves the system (`Completed`, `TimedOut` or `Cancelled`); `running` its handle when the engine still has it. */
  onEnd?(engine: E, record: F, running: S | null): void;
  /**
   * The nodes of a job that ended leave `COMPLETING` (a job with a `completing` time, after its `onEnd`): no
   * job could start on them until now, and this release, not the end, is what asks Slurm's scheduler for a pass.
   */
  onRelease?(engine: E, record: F): void;
}

/**
 * An engine's listeners kept by event: each event's methods, bound to their listener, in the order the
 * listeners were added. An engine calls `table.end[i](...)` for each `i`: an event no listener hears costs
 * an empty loop, and a call costs no lookup of the method on listeners of many shapes (a million-job run
 * makes millions of calls). A listener's methods are those it has when it is added.
 */
export class ListenerTable<E, Q = unknown, S = Q, F = S> {
  readonly advance: ((engine: E, from: number, to: number) => void)[] = [];
  readonly submit: ((engine: E, job: Q) => void)[] = [];
  readonly reject: ((engine: E, record: F) => void)[] = [];
  readonly start: ((engine: E, job: S) => void)[] = [];
  readonly resize: ((engine: E, job: S, from: number, to: number) => void)[] = [];
  readonly suspend: ((engine: E, job: S, phase: JobPhase.Suspended | JobPhase.Preempted) => void)[] = [];
  readonly resume: ((engine: E, job: S) => void)[] = [];
  readonly requeue: ((engine: E, job: S) => void)[] = [];
  readonly end: ((engine: E, record: F, running: S | null) => void)[] = [];
  readonly release: ((engine: E, record: F) => void)[] = [];

  /** Adds `l`'s methods to their events. */
  add(l: EngineListener<E, Q, S, F>): void {
    if (l.onAdvance) this.advance.push(l.onAdvance.bind(l));
    if (l.onSubmit) this.submit.push(l.onSubmit.bind(l));
    if (l.onReject) this.reject.push(l.onReject.bind(l));
    if (l.onStart) this.start.push(l.onStart.bind(l));
    if (l.onResize) this.resize.push(l.onResize.bind(l));
    if (l.onSuspend) this.suspend.push(l.onSuspend.bind(l));
    if (l.onResume) this.resume.push(l.onResume.bind(l));
    if (l.onRequeue) this.requeue.push(l.onRequeue.bind(l));
    if (l.onEnd) this.end.push(l.onEnd.bind(l));
    if (l.onRelease) this.release.push(l.onRelease.bind(l));
  }
}
