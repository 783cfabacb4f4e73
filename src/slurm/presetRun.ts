/**
 * The Slurm preset run step by step, its scheduler reconfigured on the way (issue 42; the Slurm engine's
 * `runUntil` and `setScheduling`): what an operator does with `scontrol reconfigure` between two periods, and
 * what `clustergym/Slurm-v0` (envs/slurm) does at every step.
 *
 * `SlurmPresetRun` holds the one engine (`ClusterSimulator`) running the preset of `preset.ts` and Slurm's pass
 * clock around its multifactor policy. `runUntil(t)` runs every instant up to `t` and moves the clock there;
 * `setScheduling(change)` changes the settings from now on, each in the module that owns it, as the Slurm engine
 * changes them at once:
 *
 * - **the priority** (`priority`: the weights, `PriorityMaxAge`, `PriorityFavorSmall`, the dampening;
 *   `MultifactorSelection.reconfigure`): every waiting job's priority recomputed now under the new settings, the
 *   queue order re-keyed at the next pass (the Slurm engine's `recomputePriorities`), whatever changed: a change
 *   of nothing still recomputes the priorities with the jobs' ages now;
 * - **the backfill scheduler** (`backfill`: `sched/backfill` or `sched/builtin`; `bfWindow`;
 *   `SlurmPassClock.reconfigure`): the timer armed as the Slurm engine's `ensureTicks` arms it (turned on while
 *   jobs wait: `bf_interval` from now), a pass already pending left to run, and its successors while jobs wait (the
 *   Slurm engine's chain of passes reads no setting: turned off, the backfill stops only once a pass finds no job
 *   waiting, or nothing running nor to come); a new window from the next pass;
 * - the recomputation asks for a main pass at the next instant, as the Slurm engine's does.
 *
 * Any other setting (the timers, depths, the tick grid, the decay, the users, whole-node allocation) is refused by
 * name (`InputError`) when it would change, and so is `backfill: true` on a run whose configuration has no
 * model of Slurm's backfill (`slurmConfigRefusal`). A change before the first submission starts the priority
 * ticks then (the Slurm engine's first event starts them: Slurm-v0's first step, at 0), not at the first job.
 *
 * What the Slurm engine shows of its state, the run shows too (what Slurm-v0 observes): the cores in use, the
 * waiting jobs in the Slurm engine's order (`pendingInOrder`: tier, priority, submission, id), the jobs holding
 * cores and those preempted, the submissions and the backfill starts, and `busy`: whether the Slurm engine would
 * still have an event to handle. The one engine's run is over once every job has left; the Slurm engine's timers
 * (a priority tick, a backfill pass still pending, a periodic pass, stale events a preemption left) run on a little
 * longer with nothing to do, and its `busy` turns false only after them (`SlurmPassClock.quietAt`): Slurm-v0's
 * `terminated`. That time is the Slurm engine's where a main pass asked for runs at once; with a deferred one
 * (`schedDelay`, `schedMinInterval`, `batchSchedDelay`) the Slurm engine's last tick defers a pass, and its queue
 * closes that much later than `busy` says (nothing else differs then: every job has left).
 *
 * `test/envs/slurmPreset.test.ts` proves Slurm-v0's episodes on it identical to the Slurm engine's, and
 * `test/slurm/presetRun.test.ts` the state after every step of runs reconfigured at random, with preemption.
 */
import { InputError } from '../core/errors.js';
import { ScratchList } from '../core/scratchList.js';
import { JobPhase } from '../core/engine.js';
import type { ClusterSimulator, RunningJob, SimulationListener } from '../execution/simulator.js';
import { MultifactorSelection, type PriorityConfig, RECONFIGURABLE_PRIORITY } from '../scheduling/multifactor.js';
import { buildSimulation } from '../scheduling/run.js';
import type { PolicyScheduler } from '../scheduling/scheduler.js';
import { SlurmPassClock } from '../scheduling/slurmPassClock.js';
import type { Job } from '../workload/job.js';
import { DEFAULT_SLURM, type SlurmConfig, slurmConfigRefusal, type SlurmJobInput, type SlurmSchedulingChange } from './config.js';
import type { SlurmPlatformSpec } from './platform.js';
import { slurmPresetParts } from './preset.js';

/** The settings `SlurmPresetRun.setScheduling` changes (beside `priority`'s `RECONFIGURABLE_PRIORITY`). */
export const RECONFIGURABLE_SLURM = ['backfill', 'bfWindow'] as const;

/** The Slurm preset run step by step (the module comment). */
export class SlurmPresetRun {
  /** The one engine. */
  readonly sim: ClusterSimulator;
  /** Slurm's pass clock (main scheduler and backfill scheduler) around the multifactor policy. */
  readonly clock: SlurmPassClock;
  /** The settings in force (`setScheduling` changes them; `config` reads them). */
  private readonly inForce: SlurmConfig;
  /** The clock (s): the last `runUntil`'s time, or the last instant run. */
  now = 0;
  private readonly policy: PolicyScheduler;
  private readonly selection: MultifactorSelection;
  /** Jobs suspended without their cores (preempted, waiting for a pass). */
  private readonly preempted = new Set<RunningJob>();
  /** When the Slurm engine's last event falls once the one engine's run is over (NaN before). */
  private quietAt = Number.NaN;
  /** Why the run has no backfill scheduler to turn on (`slurmConfigRefusal`), or null. */
  private readonly noBackfill: string | null;

  /**
   * The preset of `platform` and `config` over `jobs` (`runSlurmPreset`'s conversion); `listeners` observe the
   * run. With `backfill: false` the run keeps a backfill scheduler, off until `setScheduling` turns it on (none when
   * the configuration with it would be no model of Slurm, `slurmConfigRefusal`).
   */
  constructor(platform: SlurmPlatformSpec, jobs: Iterable<SlurmJobInput>, config: Partial<SlurmConfig> = {}, listeners: SimulationListener[] = []) {
    this.inForce = { ...DEFAULT_SLURM, ...config, priority: { ...DEFAULT_SLURM.priority, ...config.priority } };
    this.noBackfill = slurmConfigRefusal(
      { ...this.inForce, backfill: true },
      platform.groups.map((g) => g.cores),
    );
    const built = slurmPresetParts(platform, jobs, { ...config, backfill: this.inForce.backfill || this.noBackfill === null });
    this.policy = built.policy;
    if (!(built.policy.selection instanceof MultifactorSelection)) throw new Error('the Slurm preset orders jobs by multifactor priority');
    this.selection = built.policy.selection;
    const { sim, scheduler } = buildSimulation(built.platform, built.jobs, built.policy, built.options);
    if (!(scheduler instanceof SlurmPassClock)) throw new Error("the Slurm preset runs on Slurm's pass clock");
    this.sim = sim;
    this.clock = scheduler;
    if (!this.inForce.backfill && scheduler.backfill !== null) scheduler.armBackfill(false);
    sim.addListener({
      onSuspend: (_s, rj, phase) => {
        if (phase === JobPhase.Preempted) this.preempted.add(rj);
      },
      onResume: (_s, rj) => void this.preempted.delete(rj),
      onEnd: (_s, _rec, rj) => {
        if (rj !== null) this.preempted.delete(rj);
      },
      onRequeue: (_s, rj) => void this.preempted.delete(rj),
    });
    for (const l of listeners) sim.addListener(l);
    scheduler.attach(sim);
    sim.setScheduler(scheduler);
  }

  /** Runs every instant up to and including `t`; the clock then reads `t` (when later). Returns `now`. */
  runUntil(t: number): number {
    const sim = this.sim;
    if (!sim.finished) {
      sim.runUntil(t);
      if (sim.finished) this.quietAt = this.clock.quietAt(sim.now);
    }
    this.now = Math.max(this.now, sim.now);
    if (Number.isFinite(t) && t > this.now) this.now = t;
    // (after the last job, the Slurm engine's clock runs on to its last timer: `runUntil(Infinity)` ends there, not busy)
    else if (sim.finished && this.quietAt > this.now) this.now = Math.min(t, this.quietAt);
    return this.now;
  }

  /**
   * Changes the scheduler's settings from now on (the module comment; the Slurm engine's `setScheduling`): the
   * priority's weights and flags (`RECONFIGURABLE_PRIORITY`), `backfill` and `bfWindow`; any other setting that
   * would change is an `InputError` naming it, and nothing changes then.
   */
  setScheduling(change: SlurmSchedulingChange): void {
    const c = this.inForce;
    const { priority = {}, ...rest } = change;
    const refused: string[] = [];
    for (const [k, v] of Object.entries(rest))
      if (v !== undefined && !(RECONFIGURABLE_SLURM as readonly string[]).includes(k) && !same(v, (c as unknown as Record<string, unknown>)[k]))
        refused.push(k);
    for (const [k, v] of Object.entries(priority))
      if (v !== undefined && !(RECONFIGURABLE_PRIORITY as readonly string[]).includes(k) && v !== (c.priority as unknown as Record<string, unknown>)[k])
        refused.push(`priority.${k}`);
    if (refused.length > 0)
      throw new InputError(
        `${refused.join(', ')}: cannot change during a run on the Slurm preset (it changes ${[...RECONFIGURABLE_SLURM, ...RECONFIGURABLE_PRIORITY.map((k) => `priority.${k}`)].join(', ')})`,
        'setScheduling',
      );
    if (rest.backfill === true && this.clock.backfill === null)
      throw new InputError(`backfill: ${this.noBackfill ?? 'no backfill scheduler in this run'}`, 'setScheduling');
    if (rest.bfWindow !== undefined && !(rest.bfWindow > 0)) throw new InputError(`bfWindow: expected seconds > 0, found ${rest.bfWindow}`, 'setScheduling');
    if (rest.backfill !== undefined) c.backfill = rest.backfill;
    if (rest.bfWindow !== undefined) c.bfWindow = rest.bfWindow;
    for (const k of RECONFIGURABLE_PRIORITY) if (priority[k] !== undefined) (c.priority as unknown as Record<string, unknown>)[k] = priority[k];
    if (this.sim.finished) return;
    const weights: Partial<PriorityConfig> = {};
    for (const k of RECONFIGURABLE_PRIORITY) if (priority[k] !== undefined) (weights as Record<string, unknown>)[k] = priority[k];
    this.selection.reconfigure(weights, this.now);
    const window = this.clock.backfill !== null ? c.bfWindow : undefined;
    this.clock.reconfigure(this.sim, { backfill: this.clock.backfill !== null ? c.backfill : undefined, window });
  }

  /** The settings in force (a view: change them with `setScheduling`). */
  get config(): Readonly<Omit<SlurmConfig, 'priority'>> & { readonly priority: Readonly<PriorityConfig> } {
    return this.inForce;
  }

  /** Whether the Slurm engine would still have an event to handle (a job to come, running or waiting, or a timer: the module comment). */
  get busy(): boolean {
    return !this.sim.finished || this.quietAt > this.now;
  }

  /** Whether nothing is left (`!busy`). */
  get done(): boolean {
    return !this.busy;
  }

  /** Cores in use (by running jobs and jobs suspended on their cores). */
  usedCores(): number {
    return this.sim.busyCores;
  }

  /** The waiting jobs in the Slurm engine's order (partition tier, priority, submission, id). */
  pendingInOrder(): Job[] {
    const sim = this.sim;
    if (sim.queue.length === 0) return [];
    const jobs = new ScratchList<Job>();
    this.policy.inOrder(sim, sim.queue.length, jobs);
    return jobs.toArray();
  }

  /**
   * Calls `f` with each waiting job in the order the one engine's queue keeps them (their arrival), with no sort: a
   * reader of the waiting set that needs no order (sums, counts; `pendingInOrder` gives the Slurm engine's order).
   */
  forEachPending(f: (job: Job) => void): void {
    this.sim.queue.forEach(f);
  }

  /** Jobs waiting. */
  get pendingCount(): number {
    return this.sim.queue.length;
  }

  /** Jobs holding cores (running, or suspended on their cores by an operator event). */
  get runningCount(): number {
    return this.sim.runningCount - this.preempted.size;
  }

  /** Jobs suspended by preemption, waiting for their cores. */
  get suspendedCount(): number {
    return this.preempted.size;
  }

  /** Jobs submitted so far (refused ones included). */
  get submitted(): number {
    return this.sim.jobsSubmitted;
  }

  /** Jobs started by the backfill scheduler. */
  get backfilled(): number {
    return this.clock.backfill?.started ?? 0;
  }
}

/** Whether a setting's new value is its value (numbers and flags, and arrays of them). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}
