/**
 * `clustergym/PolicyPair-v0`: the agent picks a scheduling heuristic, IRMaSim-style: a policy pair
 * (job selection x resource selection).
 *
 * Actions: `Discrete(P)`, one per pair of `actions` (default: IRMaSim's 6 x 6 set, see
 * `policies.ts`; action `j * 6 + r`). A step applies the chosen pair as the batch scheduler of
 * that name does at a decision point (with `backfilling`: `JOB:RESOURCE+BACKFILL`): jobs start in
 * the pair's order while they fit; then time advances to the next decision point (a time at which
 * some waiting job fits). Every action is valid at every decision point.
 *
 * Consistency: an agent that always takes the same pair reproduces `simulate` with that policy
 * exactly: at points where nothing can start (which the env skips) the last pair is still called,
 * as the batch loop calls its scheduler at every decision point, so stateful schedulers (a `random`
 * order's stream, incremental backfilling) see the same calls. Pairs are seeded with
 * `derive(episode seed, 'policy')`, as `simulate --seed` seeds its policy.
 */
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { Scheduler } from '../src/scheduling/scheduler.js';
import { ClusterEnv } from './env.js';
import type { EnvContext } from './context.js';
import { DEFAULT_POLICY_PAIRS, pairPolicyName, pairScheduler } from './policies.js';
import { discrete, type DiscreteSpace } from './spaces.js';

/** PolicyPair-v0. */
export class PolicyPairEnv extends ClusterEnv {
  readonly actionSpace: DiscreteSpace;
  /** The pairs, by action (`job:resource`). */
  readonly pairs: readonly string[];
  /** The scheduler names, by action (`job:resource[+backfill]`). */
  readonly policyNames: readonly string[];
  private schedulers: Scheduler[] = [];
  private last = -1;

  constructor(context: EnvContext) {
    super(context);
    this.pairs = context.config.actions ?? DEFAULT_POLICY_PAIRS;
    this.policyNames = this.pairs.map((p) => pairPolicyName(p, context.config.backfilling));
    this.actionSpace = discrete(this.pairs.length);
    this.mask = new Uint8Array(this.pairs.length);
  }

  protected fresh(): PolicyPairEnv {
    return new PolicyPairEnv(this.context);
  }

  protected override onEpisodeStart(_sim: ClusterSimulator, seed: number): void {
    const c = this.config;
    this.schedulers = this.pairs.map((p) => pairScheduler(p, c.backfilling, c.node_fit, seed));
    this.last = -1;
  }

  /**
   * At a point where nothing can start (skipped: the agent is not asked), the last pair is called
   * anyway, as `simulate`'s loop calls its scheduler at every decision point; it cannot start
   * anything there, but schedulers that keep state between calls (incremental EASY, the `random`
   * stream) then see exactly the calls they would see in a batch run.
   */
  protected override onSkippedPoint(): void {
    if (this.last >= 0) this.schedulers[this.last]!.schedule(this.sim);
  }

  protected computeMask(): boolean {
    const count = this.windowCount;
    if (this.obs.kind !== 'minimal') {
      for (let j = 0; j < count; j++) this.canStart[j] = this.fitsNow(this.window[j]!) ? 1 : 0;
      this.canStart.fill(0, count);
    }
    const any = this.anyWaitingFits();
    this.mask.fill(any ? 1 : 0);
    return any;
  }

  protected apply(action: number): boolean {
    this.last = action;
    this.schedulers[action]!.schedule(this.sim);
    return true;
  }
}
