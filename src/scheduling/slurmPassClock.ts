/**
 * Slurm's main-scheduler clock as a pass clock of the one engine (the engine's `requested` pass clock:
 * decision points only where a pass is asked for; `ClusterSimulator.requestPass`). The rules are
 * slurmctld's as the Slurm model reads them (docs/slurm.md; the retired Slurm engine's schedules to the bit,
 * test/golden/slurmEngine.ts: "the retired engine" below), without the epilog's pass and the
 * clocks measured from a log:
 *
 * - **what asks for a pass** (at the end of its instant, whether jobs wait or not): a job's end (for a job
 *   whose nodes stay `COMPLETING` after it, `Job.completing`: their release instead, slurmd's answer), a
 *   submission when `schedOnSubmit` (Slurm 22.05 does not: it waits for the next backfill, end or
 *   periodic pass), and the `PriorityCalcPeriod` recalculation (`priorityTicks`: the preset runs its main
 *   pass after it, as the retired engine did; the ticks go on while anything runs, waits or is still to come);
 * - **when it runs**: at once, or `schedDelay` seconds later (slurmctld's scheduling thread runs the pass a
 *   moment after the event), and never sooner than `schedMinInterval` after the last pass (a pass that
 *   found no job waiting counts); a deferred pass is one: a later request does not move it, an earlier
 *   one replaces it. With `batchSchedDelay` the pass is queued for slurmctld's background thread instead
 *   (submissions queue one too): it runs at the thread's first one-second tick (`k + bgTickPhase`) at
 *   least `batchSchedDelay` whole seconds after the thread's last pass, and serves every request queued
 *   until then; except the end of a job whose end an epilog message reports (`Job.epilogPass`; of a job
 *   whose nodes stay `COMPLETING`, their release by that message): its
 *   handler runs a pass at once (unless `schedMinInterval` forbids it or a timed pass is due), outside the
 *   thread, whose queue (a request made before that end) and timer go on unchanged;
 * - **the periodic pass**: every `schedInterval` seconds on its grid (`k x schedInterval`, plus the thread's
 *   tick phase with `batchSchedDelay`) while jobs pend,
 *   running whatever else says (only `schedMinInterval` applies), and a deferred pass that comes due runs
 *   so too.
 *
 * Each pass is `inner`'s (the job order and starts: `fcfs:first`, `multifactor:first`, ...). With every
 * timer at 0, `schedOnSubmit` and no priority ticks, the clock is the engine's default (a pass at every
 * instant with a change).
 *
 * **The backfill scheduler** (`sched/backfill`, optional: `slurmBackfill.ts`) runs on its own timer: a
 * pass `bf_interval` after a job comes to a queue with no pass pending (or on its grid), then every
 * `bf_interval` while jobs wait and anything runs or is to come. It runs after the main pass of its
 * instant, on the state that pass left.
 *
 * **Reconfiguration mid-run** (`reconfigure`, between two instants: an operator's `scontrol reconfigure`,
 * `SlurmPresetRun.setScheduling`): the backfill scheduler turned on or off and its `bf_window`; a main pass asked for at
 * the next instant, and the timers armed as at a submission (the backfill timer `bf_interval` from the change while
 * jobs wait). Turned off, the backfill timer is armed no more, but a pass already armed runs and so do its
 * successors while jobs wait, as the retired engine's chain of passes read no setting. After the run, `quietAt`
 * says when the retired engine's last timers would have run (`SlurmPresetRun.busy`).
 *
 * **Preemption inside the main pass** (`SlurmMainPass` with `preempt`): the cores a preemption frees ask for
 * a pass at the next instant of any kind, the instant of the victim's next event included (its end or
 * operator suspension: the retired engine's event stayed queued, stale, and its instant ran a pass when one was
 * asked for); after the backfill pass the pass still asked for is decided again at the same instant. A job
 * preempted to wait for a pass resumes at the start of the next main pass (`ClusterSimulator.resumeAtPass`),
 * whether jobs wait or not.
 */
import { nextGridPoint } from '../core/grid.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { Scheduler } from './scheduler.js';
import type { SlurmBackfill } from './slurmBackfill.js';
import { SlurmMainPass } from './slurmMainPass.js';

/** The main-scheduler timers (slurm.conf's names in the module comment; seconds). */
export interface SlurmPassTimers {
  schedOnSubmit: boolean;
  schedDelay: number;
  schedMinInterval: number;
  schedInterval: number;
  /**
   * `batch_sched_delay` (s; 0: off): the main pass is queued and run by slurmctld's background thread, whose
   * one-second loop ticks at `k + bgTickPhase`, at least `batchSchedDelay` (whole seconds of `time_t`) after
   * its last pass; submissions queue a pass then (whatever `schedOnSubmit`), and `schedDelay` does not apply.
   */
  batchSchedDelay?: number | undefined;
  /** The background thread's tick phase (s, in [0, 1); default 0.5); the periodic pass falls on it too. */
  bgTickPhase?: number | undefined;
  /**
   * `PriorityCalcPeriod` ticks at `phase + k x period` that ask for a pass (absent: none); `phase` absent:
   * the first submission's time (the grid of the one engine's `multifactor` order).
   */
  priorityTicks?: { period: number; phase?: number | undefined } | undefined;
  /**
   * The clocks of a live run's log (`SlurmConfig`'s `timerOrigin`, `bgTickTimes`, `bfTickTimes`):
   * slurmctld's start, from which its periodic threads keep their phase (with `batchSchedDelay` the periodic
   * pass every `schedInterval` whole seconds from it, the background thread's last pass no earlier than it;
   * the backfill grid from it when `bf_interval` > 1 s); the background thread's measured ticks (between two
   * samples `a`, `b` its ticks are every `(b - a) / round(b - a)` s), which replace `bgTickPhase`; the
   * backfill passes' measured times, which replace the backfill timer while they last.
   */
  timerOrigin?: number | undefined;
  bgTickTimes?: readonly number[] | undefined;
  bfTickTimes?: readonly number[] | undefined;
}

/**
 * The first tick at or after `t` of a one-second loop sampled at `xs` (ascending, at least two; a log's
 * background-thread ticks): between two samples `a`, `b` around `t` (the first or last two when `t` is
 * outside) its ticks are every `(b - a) / round(b - a)` s from `a`.
 */
export function measuredTickFrom(xs: readonly number[], t: number): number {
  let i = 0;
  while (i < xs.length - 2 && xs[i + 1]! <= t) i++;
  const a = xs[i]!;
  const b = xs[i + 1]!;
  const p = (b - a) / Math.max(1, Math.round(b - a));
  return a + Math.ceil((t - a) / p - 1e-9) * p;
}

/** The first of the measured times `xs` (ascending) after `now` (the last one is after it). */
export function measuredAfter(xs: readonly number[], now: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! > now + 1e-9) hi = mid;
    else lo = mid + 1;
  }
  return xs[lo]!;
}

/** `inner`'s passes at the times Slurm's main-scheduler clock runs them (the module comment). */
export class SlurmPassClock implements Scheduler {
  readonly name: string;
  private sim: ClusterSimulator | null = null;
  private innerBound = false;
  /** Something asked for a pass at this instant (its end decides when it runs), and a timed pass (periodic, deferred) is due. */
  private dirty = false;
  private passDue = false;
  /** Whether a pass runs now (its preemptions end jobs: no epilog message for those). */
  private inPass = false;
  /** The pass of this instant is an epilog message's: the main-pass decision (`decide`) goes on after it (`epilogPassDone`). */
  private afterEpilogPass = false;
  /** A job end at this instant runs a pass at once (`Job.epilogPass`), and whether a pass was asked for before it. */
  private endNow = false;
  private queuedBeforeEnd = false;
  private lastPass = Number.NEGATIVE_INFINITY;
  /** The background thread's last pass (`batchSchedDelay`). */
  private lastBackground = Number.NEGATIVE_INFINITY;
  private readonly batch: number;
  private readonly phase: number;
  /** The pending deferred, periodic and priority-tick passes' times (-Infinity: none). */
  private deferredAt = Number.NEGATIVE_INFINITY;
  private periodicAt = Number.NEGATIVE_INFINITY;
  private tickAt = Number.NEGATIVE_INFINITY;
  /** The instant whose pass runs now (its decision point runs `inner`). */
  private runAt = Number.NaN;
  /** The pending backfill pass's time (-Infinity: none), and the instant whose backfill pass runs now. */
  private backfillAt = Number.NEGATIVE_INFINITY;
  private backfillRunAt = Number.NaN;
  /** When the pending backfill pass was scheduled, and when the engine took the last submission from its source. */
  private backfillScheduledAt = Number.NEGATIVE_INFINITY;
  /** The order in which the backfill and periodic timers were last armed (`ensureTicks`). */
  private requestSeq = 0;
  private backfillSeq = 0;
  private periodicSeq = 0;
  private tickSeq = 0;
  private lastSubmitAt = Number.NEGATIVE_INFINITY;
  private readonly atInstantEnd = (sim: ClusterSimulator): void => this.instantEnd(sim);
  /** The latest stale event a preemption would have left in the retired engine's queue (its victim's next event's time; `quietAt`). */
  private staleUntil = Number.NEGATIVE_INFINITY;
  /** The priority ticks' phase (NaN until the first submission when not given). */
  private tickPhase: number;
  /**
   * Whether the backfill timer is armed again when jobs come (`sched/backfill` now; `reconfigure` turns it off and
   * on): a pass already pending runs, and its successors while jobs wait, as the retired engine's did.
   */
  private backfillOn: boolean;

  constructor(
    readonly inner: Scheduler,
    readonly timers: SlurmPassTimers,
    /** Slurm's backfill scheduler, when `sched/backfill` (the module comment). */
    readonly backfill: SlurmBackfill | null = null,
  ) {
    this.name = `${inner.name}${backfill ? '+slurm-backfill' : ''}@slurm-clock`;
    for (const k of ['schedDelay', 'schedMinInterval', 'schedInterval'] as const)
      if (!(Number.isFinite(timers[k]) && timers[k] >= 0)) throw new Error(`slurm pass clock: ${k} must be >= 0, found ${timers[k]}`);
    const pt = timers.priorityTicks;
    if (pt !== undefined && !(pt.period > 0 && (pt.phase === undefined || Number.isFinite(pt.phase))))
      throw new Error(`slurm pass clock: priority ticks need a period > 0, found ${pt.period}`);
    this.tickPhase = pt?.phase ?? Number.NaN;
    this.backfillOn = backfill !== null;
    // the main pass's preemptions (within its walk) ask for passes as freed cores do (`preempted`)
    if (inner instanceof SlurmMainPass && inner.preempt) inner.onPreempt = (sim, pendingAt) => this.preempted(sim, pendingAt);
    this.batch = timers.batchSchedDelay ?? 0;
    this.phase = this.batch > 0 ? (timers.bgTickPhase ?? 0.5) : 0;
    if (!(Number.isFinite(this.batch) && this.batch >= 0)) throw new Error(`slurm pass clock: batchSchedDelay must be >= 0, found ${this.batch}`);
    if (!(this.phase >= 0 && this.phase < 1)) throw new Error(`slurm pass clock: bgTickPhase must be in [0, 1), found ${this.phase}`);
  }

  /**
   * Follows `sim`'s submissions and ends (call it before the run: `sim` runs the `requested` pass clock, so
   * no pass comes before a request); binds `inner` at the first submission, where a pass of the default
   * clock would have bound it (a multifactor order's `PriorityCalcPeriod` grid starts there).
   */
  attach(sim: ClusterSimulator): void {
    if (this.sim === sim) return;
    if (this.sim !== null) throw new Error('slurm pass clock: already attached to another engine');
    this.sim = sim;
    this.inner.prepare?.(sim);
    this.backfill?.attach(sim);
    sim.addListener({
      onSubmit: (s) => {
        if (!this.innerBound) {
          this.innerBound = true;
          this.inner.attach?.(s);
          if (Number.isNaN(this.tickPhase)) this.tickPhase = s.now;
        }
        if (this.timers.schedOnSubmit || this.batch > 0) this.ask(s);
        else s.requestPass(s.now, this.atInstantEnd);
        this.backfillTickBefore(s);
        this.ensureTicks(s);
      },
      onEnd: (s, rec) => {
        // a job whose nodes stay COMPLETING asks for no pass at its end: their release does (`onRelease`)
        if ((rec.releaseAt ?? Number.NaN) > s.now) return;
        // an end reported by an epilog message runs a pass at once, outside the background thread (not a job a
        // pass cancels by preemption: it leaves without an epilog's pass)
        if (rec.job.epilogPass === true && this.batch > 0 && !this.endNow && !this.inPass) this.passAtOnce();
        this.ask(s);
      },
      onRelease: (s, rec) => {
        // slurmd's answer queues a pass for the background thread (agent.c); an epilog message runs one at once
        if (rec.job.epilogPass === true && this.batch > 0 && !this.endNow) this.passAtOnce();
        this.ask(s);
      },
      onRequeue: (s) => this.ensureTicks(s),
    });
  }

  /**
   * A submission at the instant of a backfill pass: the retired engine handled the events of an instant in
   * the order it scheduled them, and took each submission from its source when the one before arrived. A
   * submission taken after the pass was scheduled comes after the pass's timer event: that event is spent
   * (the pass runs at the end of the instant) and the submission schedules the next pass. One taken before
   * comes first, and finds the pass still pending.
   */
  private backfillTickBefore(sim: ClusterSimulator): void {
    const takenAt = this.lastSubmitAt;
    this.lastSubmitAt = sim.now;
    if (this.backfillAt === sim.now && takenAt > this.backfillScheduledAt) this.takeBackfill(sim.now);
  }

  /** An epilog message at this instant (a job's end, or its nodes' release) runs a pass at once; was one asked for before it? */
  private passAtOnce(): void {
    this.endNow = true;
    this.queuedBeforeEnd = this.dirty;
  }

  /** An event of this instant asks for a pass. */
  private ask(sim: ClusterSimulator): void {
    this.dirty = true;
    sim.requestPass(sim.now, this.atInstantEnd);
  }

  /**
   * The priority ticks, the backfill pass and the periodic pass, scheduled while they are due, in the retired
   * engine's order: which of two timers due at one instant it handled first was the one it scheduled first
   * (`requestSeq`).
   */
  private ensureTicks(sim: ClusterSimulator): void {
    const now = sim.now;
    this.ensureTick(sim);
    const bf = this.backfill;
    if (bf !== null && this.backfillOn && this.backfillAt < now && sim.queue.length > 0) this.scheduleBackfill(sim);
    const I = this.timers.schedInterval;
    if (I > 0 && this.periodicAt < now && sim.queue.length > 0) {
      const origin = this.timers.timerOrigin;
      if (this.batch > 0 && origin !== undefined) {
        // every `interval` whole seconds from slurmctld's start, on the background thread's tick
        const base = Math.floor(origin + 1e-9);
        this.periodicAt = this.bgTick(nextGridPoint(now, I, base));
      } else this.periodicAt = nextGridPoint(now, I, this.phase);
      this.periodicSeq = ++this.requestSeq;
      sim.requestPass(this.periodicAt, this.atInstantEnd);
    }
  }

  /**
   * The scheduling settings change now, between two instants (an operator's `scontrol reconfigure`;
   * `SlurmPresetRun.setScheduling`): the backfill scheduler on or off (`backfill`; it needs one: an `Error` otherwise)
   * and its `bf_window` (`window`). As the retired engine did it: the priorities recomputed (by their owner,
   * `MultifactorSelection.reconfigure`) ask for a main pass at the next instant, and the timers are armed as at a
   * submission (`ensureTicks`): the backfill timer, turned on while jobs wait and no pass is pending, `bf_interval`
   * (or its grid) from now. Turning it off arms it no more; a pass already pending still runs, and the next ones
   * while jobs wait and anything runs or is to come, as the retired engine's chain of passes read no setting. A
   * new window holds from the next pass.
   */
  reconfigure(sim: ClusterSimulator, change: { backfill?: boolean | undefined; window?: number | undefined }): void {
    const bf = this.backfill;
    if (bf === null && (change.backfill === true || change.window !== undefined))
      throw new Error('slurm pass clock: no backfill scheduler to reconfigure (built without sched/backfill)');
    if (change.window !== undefined) bf!.setWindow(change.window);
    if (change.backfill !== undefined) this.armBackfill(change.backfill);
    if (sim.finished) return;
    this.dirty = true;
    // (asked between two instants: its hook runs at the end of the next one, whatever happens then)
    sim.requestPass(sim.now, this.atInstantEnd);
    // before the first submission nothing waits, and the priority ticks start at this change (a stepped run's
    // first event), as `MultifactorSelection.reconfigure` starts its own
    if (this.innerBound) this.ensureTicks(sim);
    else {
      if (Number.isNaN(this.tickPhase)) this.tickPhase = sim.now;
      // (and they run from it, each a main pass that moves the timers' last passes, as the retired engine's did)
      this.ensureTick(sim);
    }
  }

  /**
   * Whether the backfill timer is armed when jobs come, and nothing else (no pass asked: `reconfigure` is the
   * operator's change): a run built with the backfill scheduler that starts under `sched/builtin` and may turn
   * `sched/backfill` on later (`armBackfill(false)` before its first submission).
   */
  armBackfill(on: boolean): void {
    if (on && this.backfill === null) throw new Error('slurm pass clock: no backfill scheduler to turn on (built without sched/backfill)');
    this.backfillOn = on;
  }

  /**
   * When the retired engine's event queue would empty after the run is over at `now` (`SlurmPresetRun.busy` turns false):
   * its last events. A priority tick pending then re-arms while another event (a backfill pass, a periodic or
   * deferred main pass, a stale event a preemption left) is still pending, and the last of them closes the queue.
   * Exact where a main pass asked for runs at once (no `schedDelay`, `schedMinInterval` nor `batchSchedDelay`):
   * with one, each tick's pass is deferred, and the queue closes that much later.
   */
  quietAt(now: number): number {
    let last = now;
    for (const t of [this.backfillAt, this.periodicAt, this.deferredAt, this.staleUntil]) if (t > last) last = t;
    const pt = this.timers.priorityTicks;
    let tick = this.tickAt;
    if (pt === undefined || !(tick > now)) return last;
    // a periodic pass at a tick's instant, handled after it, re-arms it (`ensureTicks`)
    if (this.periodicAt === tick && this.tickSeq < this.periodicSeq) last = Math.max(last, nextGridPoint(tick, pt.period, this.tickPhase));
    while (tick < last) tick = nextGridPoint(tick, pt.period, this.tickPhase);
    return tick;
  }

  /** The next priority tick, if none is pending (re-armed at each tick, as the retired engine did). */
  private ensureTick(sim: ClusterSimulator): void {
    const pt = this.timers.priorityTicks;
    if (pt !== undefined && this.tickAt < sim.now) {
      const phase = this.tickPhase;
      this.tickAt = nextGridPoint(sim.now, pt.period, phase);
      this.tickSeq = ++this.requestSeq;
      sim.requestPass(this.tickAt, this.atInstantEnd);
    }
  }

  /** The next backfill pass, from now. */
  private scheduleBackfill(sim: ClusterSimulator): void {
    this.backfillAt = this.nextBackfillAfter(sim.now);
    this.backfillScheduledAt = sim.now;
    this.backfillSeq = ++this.requestSeq;
    sim.requestPass(this.backfillAt, this.atInstantEnd);
  }

  /** The backfill pass due now runs at this instant's decision point; the timer is free to be armed again. */
  private takeBackfill(now: number): void {
    this.backfillAt = Number.NEGATIVE_INFINITY;
    this.backfillRunAt = now;
  }

  /** The end of an instant with a request: the main-pass decision (`decide`) says whether the pass runs now, later, or not. */
  private instantEnd(sim: ClusterSimulator): void {
    const now = sim.now;
    let due = false;
    // the periodic pass's timer re-arms the others (`ensureTicks`): a backfill timer due at this instant too is
    // still pending then if the retired engine would have scheduled it after the periodic one
    const periodicFirst = this.backfillAt === now && this.periodicAt === now && this.periodicSeq < this.backfillSeq;
    if (this.backfillAt === now && !periodicFirst) this.takeBackfill(now);
    if (this.tickAt === now) {
      this.tickAt = Number.NEGATIVE_INFINITY;
      this.dirty = true;
      // the recalculation goes on while anything runs, waits or is still to come
      if (sim.runningCount > 0 || sim.queue.length > 0 || sim.nextEventTime() < Number.POSITIVE_INFINITY) this.ensureTick(sim);
    }
    if (this.periodicAt === now) {
      this.periodicAt = Number.NEGATIVE_INFINITY;
      due = true;
      this.ensureTicks(sim);
    }
    if (periodicFirst) this.takeBackfill(now);
    if (this.deferredAt === now) {
      this.deferredAt = Number.NEGATIVE_INFINITY;
      due = true;
    }
    if (due) {
      this.dirty = true;
      this.passDue = true;
    }
    if (this.endNow) {
      this.endNow = false;
      if (!this.passDue && !(this.timers.schedMinInterval > 0 && this.lastPass + this.timers.schedMinInterval > now)) {
        // the epilog message's handler: a pass now, the background thread's queue and timer unchanged; after it,
        // a pass queued before that end (or asked for by the pass's preemptions) is decided as any other
        this.lastPass = now;
        this.dirty = false;
        this.passNow(sim);
        // (no job waits: the pass has nothing to walk, and it is decided at once)
        if (sim.queue.length > 0) this.afterEpilogPass = true;
        else this.epilogPassDone(sim);
        return;
      }
    }
    this.decide(sim);
  }

  /** After the epilog message's pass: a pass queued before that end waits for the thread again, then the main-pass decision (`decide`) goes on. */
  private epilogPassDone(sim: ClusterSimulator): void {
    if (this.queuedBeforeEnd) this.dirty = true;
    this.decide(sim);
  }

  /** The main-pass decision with a pass asked for (`dirty`): runs it now (`runAt`), defers it, or leaves it to a pass already deferred. */
  private decide(sim: ClusterSimulator): void {
    if (!this.dirty) return;
    const now = sim.now;
    const t = this.timers;
    const due = this.passDue;
    let at = now;
    if (this.batch > 0) {
      // the background thread's next tick at least batch_sched_delay after its last pass (controller.c, time_t)
      if (!due) at = this.bgTick(Math.max(now, Math.floor(this.lastBackgroundPass(now) + 1e-9) + this.batch));
    } else if (!due && t.schedDelay > 0) at = now + t.schedDelay;
    if (t.schedMinInterval > 0) at = Math.max(at, this.lastPass + t.schedMinInterval);
    if (at > now) {
      if (!(this.deferredAt > now && this.deferredAt <= at)) {
        this.deferredAt = at;
        sim.requestPass(at, this.atInstantEnd);
      }
      return;
    }
    this.passDue = false;
    this.dirty = false;
    this.lastPass = now;
    this.passNow(sim);
    if (this.batch > 0) {
      // the thread's pass serves every request queued so far: one still pending for later is void
      this.lastBackground = now;
      this.deferredAt = Number.NEGATIVE_INFINITY;
    }
  }

  /**
   * The main pass runs at this instant: jobs preempted to wait for it resume first (Slurm's `schedule`), here,
   * at the end of the instant, whether jobs wait or not; then its decision point walks the queue.
   */
  private passNow(sim: ClusterSimulator): void {
    this.runAt = sim.now;
    sim.resumeAtPass();
    // a decision point at this instant (a request carried over from a pass may fall on an instant without one)
    sim.requestPass(sim.now);
  }

  /**
   * The main pass preempted a job whose next event (its end, or its operator suspension) the retired engine
   * had queued for `pendingAt`: that event stayed in its queue, stale, and its instant ran a main pass if one
   * was asked for then (kept here). The preemption freed cores, which asks for a pass at the next instant.
   */
  private preempted(sim: ClusterSimulator, pendingAt: number): void {
    this.dirty = true;
    if (pendingAt > this.staleUntil) this.staleUntil = pendingAt;
    // (asked from the pass: its hook runs at the end of the next instant, whatever happens then)
    sim.requestPass(sim.now, this.atInstantEnd);
    if (pendingAt > sim.now && Number.isFinite(pendingAt)) sim.requestPass(pendingAt, this.atInstantEnd);
  }

  /**
   * The backfill pass after `now`: the next measured pass of a log (`bfTickTimes`) while they last, else on
   * the backfill timer (`SlurmBackfill.nextPassAfter`), its grid kept from slurmctld's start (`timerOrigin`)
   * when `bf_interval` is over 1 s.
   */
  private nextBackfillAfter(now: number): number {
    const xs = this.timers.bfTickTimes;
    if (xs !== undefined && xs.length > 0 && xs[xs.length - 1]! > now) return measuredAfter(xs, now);
    const bf = this.backfill!;
    const origin = this.timers.timerOrigin;
    const I = bf.settings.interval;
    if (origin !== undefined && I > 1 && bf.settings.grid) return nextGridPoint(now, I, origin);
    return bf.nextPassAfter(now);
  }

  /** The background thread's first tick at or after `t`: `k + bgTickPhase`, or from its measured ticks (`bgTickTimes`). */
  private bgTick(t: number): number {
    const xs = this.timers.bgTickTimes;
    return xs === undefined || xs.length < 2 ? Math.ceil(t - this.phase - 1e-9) + this.phase : measuredTickFrom(xs, t);
  }

  /** When the background thread last ran a main pass: its last queued pass, or the last periodic pass on its grid. */
  private lastBackgroundPass(now: number): number {
    let last = this.lastBackground;
    const origin = this.timers.timerOrigin;
    // the thread's start counts as its last pass (slurmctld's start, from a log)
    if (origin !== undefined) last = Math.max(last, origin);
    const I = this.timers.schedInterval;
    if (I > 0) {
      if (origin === undefined) last = Math.max(last, Math.floor((now - this.phase) / I + 1e-9) * I + this.phase);
      else {
        // the last periodic pass at or before now, every `interval` whole seconds from the start
        const base = Math.floor(origin + 1e-9);
        for (let k = Math.floor((now - base) / I + 1e-9); k >= 1; k--) {
          const t = this.bgTick(base + k * I);
          if (t <= now + 1e-9) {
            last = Math.max(last, t);
            break;
          }
        }
      }
    }
    return last;
  }

  schedule(sim: ClusterSimulator): void {
    this.attach(sim);
    this.inPass = true;
    try {
      this.passes(sim);
    } finally {
      this.inPass = false;
    }
  }

  /** The main pass and the backfill pass due at this decision point. */
  private passes(sim: ClusterSimulator): void {
    const now = sim.now;
    if (this.runAt === now) {
      this.runAt = Number.NaN;
      this.inner.schedule(sim);
      if (this.afterEpilogPass) {
        this.afterEpilogPass = false;
        this.epilogPassDone(sim);
        if (this.runAt === now) {
          this.runAt = Number.NaN;
          this.inner.schedule(sim);
        }
      }
    }
    if (this.backfillRunAt === now) {
      this.backfillRunAt = Number.NaN;
      this.backfill!.pass(sim);
      // the next pass while jobs wait and anything runs or is to come
      if (sim.queue.length > 0 && (sim.runningCount > 0 || sim.nextEventTime() < Number.POSITIVE_INFINITY)) this.scheduleBackfill(sim);
      // a pass still asked for (a preemption in the main pass) is decided again after the backfill pass, as Slurm does
      if (this.dirty) {
        this.decide(sim);
        if (this.runAt === now) {
          this.runAt = Number.NaN;
          this.inner.schedule(sim);
        }
      }
    }
  }
}
