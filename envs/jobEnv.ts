/**
 * `clustergym/Job-v0`: the agent picks a job; the configured resource policy (`resource_policy`,
 * `node_fit`) chooses its cores (RLScheduler-style decisions).
 *
 * Actions: `Discrete(K + 1)`: action `j` starts the job in visible slot `j`; action `K` is `wait`.
 *
 * `unfit: "mask"` (default): only jobs that fit the free resources now are valid; `wait` is valid
 * when something runs or is still to arrive.
 *
 * `unfit: "reserve"` reproduces RLScheduler: every visible job is valid and `wait` is not (one
 * decision per job start). A job that fits starts now. A job that does not fit is reserved: time
 * advances, event by event, until it can start (with `backfilling: "easy"`, at every one of those
 * events other waiting jobs start first when they fit and do not delay the reserved job's
 * reservation, as EASY does for a head job), then it starts; the step returns at that time. An agent
 * that always picks the job a priority function ranks first therefore schedules exactly as the batch
 * scheduler with `--commit-head` does.
 */
import { ClusterEnv } from './env.js';
import type { EnvContext } from './context.js';
import { ReservationBackfiller } from './policies.js';
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { Job } from '../src/workload/job.js';
import { discrete, type DiscreteSpace } from './spaces.js';

/** Job-v0. */
export class JobEnv extends ClusterEnv {
  readonly actionSpace: DiscreteSpace;
  /** The `wait` action (`K`). */
  readonly waitAction: number;
  /** `unfit: reserve`. */
  readonly reserve: boolean;
  private readonly easy: boolean;
  private backfiller: ReservationBackfiller | null = null;

  constructor(context: EnvContext) {
    super(context);
    this.waitAction = this.k;
    this.actionSpace = discrete(this.k + 1);
    this.mask = new Uint8Array(this.k + 1);
    this.reserve = context.config.unfit === 'reserve';
    this.easy = context.config.backfilling === 'easy';
  }

  protected override onEpisodeStart(_sim: ClusterSimulator): void {
    this.backfiller = this.easy ? new ReservationBackfiller(this.queueOrder, this.resources, this.fit) : null;
  }

  protected fresh(): JobEnv {
    return new JobEnv(this.context);
  }

  protected computeMask(): boolean {
    const mask = this.mask;
    const count = this.windowCount;
    let any = false;
    for (let j = 0; j < count; j++) {
      const fits = this.fitsNow(this.window[j]!) ? 1 : 0;
      this.canStart[j] = fits;
      mask[j] = this.reserve ? 1 : fits;
      if (fits) any = true;
    }
    if (count < this.k) {
      mask.fill(0, count, this.k);
      this.canStart.fill(0, count);
    }
    if (this.reserve) {
      mask[this.waitAction] = 0;
      return count > 0;
    }
    mask[this.waitAction] = this.canWait() ? 1 : 0;
    return any;
  }

  protected apply(action: number): boolean {
    if (action === this.waitAction) return true;
    const sim = this.sim;
    const job = this.window[action]!;
    // the first decision of the episode: nothing has run yet, the backfiller binds now
    if (this.backfiller && !this.backfiller.boundTo(sim)) this.backfiller.bind(sim);
    let cores = this.resources.place(sim, job, this.fit);
    if (cores) {
      sim.startJob(job, cores);
      return false;
    }
    if (!this.reserve) throw new Error(`internal error: ${this.id} mask allowed job ${job.id} but the resource policy cannot place it`);
    // reserve: advance until the job fits, backfilling others meanwhile
    for (;;) {
      this.backfiller?.backfill(sim, job);
      if (!sim.advance()) throw new Error(`internal error: ${this.id} reserved job ${job.id} but the simulation ended before it started`);
      cores = this.resources.place(sim, job, this.fit);
      if (cores) {
        sim.startJob(job, cores);
        return false;
      }
    }
  }

  protected override actionJob(action: number): Job | null {
    return action === this.waitAction ? null : this.window[action]!;
  }

  protected override liveReserves(job: Job): boolean {
    if (!this.reserve) return false;
    if (this.easy) throw new Error(`${this.id}: live mode does not backfill while a job is reserved; use backfilling: "none"`);
    return !this.fitsNow(job);
  }

  protected override whyInvalid(action: number): string {
    if (action === this.waitAction)
      return this.reserve
        ? 'Job-v0 with unfit: "reserve" has no wait (one decision per job start)'
        : 'nothing runs and nothing is left to arrive, so waiting would never end';
    const job = this.visibleJob(action);
    if (!job) return `visible slot ${action} is empty (${this.visibleCount} jobs visible)`;
    return `job ${job.id} (slot ${action}, ${job.ntasks} tasks) does not fit the free resources now (${this.sim.freeCores} free cores)`;
  }
}
