/**
 * Pass requests (`ClusterSimulator.requestPass`): the times a scheduler's own clock asks for a decision
 * point, and the functions to run at the end of those instants (a clock's bookkeeping, `SlurmPassClock`).
 * The engine schedules one `KIND_PASS` event per requested time, stamped with the time; a request is live
 * while its time is pending here, and every one lapses when the run is over.
 */

import { ScratchList } from '../core/scratchList.js';

/** A function run at the end of a requested instant, after its events and before its decision point. */
export type InstantHook<S> = (sim: S) => void;

/** The pending requests and hooks of one engine (`S`: the engine the hooks are given). */
export class PassRequests<S> {
  private readonly times = new Set<number>();
  /** The hooks of each requested time: one hook as it is (most times have one), several in a list (each once). */
  private readonly future = new Map<number, InstantHook<S> | InstantHook<S>[]>();
  /** The hooks to run at the end of the instant being run (each once), and the list being run (reused: no allocation per instant). */
  private now = new ScratchList<InstantHook<S>>();
  private running = new ScratchList<InstantHook<S>>();

  /** Whether a request for `t` is pending (its event is live). */
  has(t: number): boolean {
    return this.times.has(t);
  }

  /** Asks for the instant being run: `hook` (if any) runs at its end. */
  atThisInstant(hook: InstantHook<S> | undefined): void {
    if (hook !== undefined && !this.now.includes(hook)) this.now.push(hook);
  }

  /** Asks for time `t` (later than now) with `hook` (if any); true when `t` needs its event scheduled (its first request). */
  at(t: number, hook: InstantHook<S> | undefined): boolean {
    if (hook !== undefined) {
      const hooks = this.future.get(t);
      // (no set per requested time: a clock asks for hundreds of thousands of them in a run)
      if (hooks === undefined) this.future.set(t, hook);
      else if (typeof hooks === 'function') {
        if (hooks !== hook) this.future.set(t, [hooks, hook]);
      } else if (!hooks.includes(hook)) hooks.push(hook);
    }
    if (this.times.has(t)) return false;
    this.times.add(t);
    return true;
  }

  /** The request event of `t` happens: its hooks become the instant's. */
  fired(t: number): void {
    this.times.delete(t);
    const hooks = this.future.get(t);
    if (hooks === undefined) return;
    this.future.delete(t);
    if (typeof hooks === 'function') this.atThisInstant(hooks);
    else for (const h of hooks) this.atThisInstant(h);
  }

  /** Whether the instant just run has hooks to run. */
  get hooksDue(): boolean {
    return this.now.length > 0;
  }

  /** Runs the instant's hooks, each once (a hook may ask for this instant again: that runs too). */
  runHooks(sim: S): void {
    while (this.now.length > 0) {
      const hooks = this.now;
      this.now = this.running;
      this.running = hooks;
      for (let i = 0; i < hooks.length; i++) hooks.at(i)(sim);
      hooks.clear();
    }
  }

  /** The run is over: every pending request lapses. */
  clear(): void {
    this.times.clear();
    this.future.clear();
  }
}
