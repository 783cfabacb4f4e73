/**
 * The scheduling policies the environments use, by name: the single place where `envs/` maps the
 * names of the configuration (`queue_order`, `resource_policy`, PolicyPair-v0's `actions`) to the
 * objects of `src/scheduling` (job selection, resource selection, batch schedulers, backfilling).
 * Nothing here re-implements a policy.
 *
 * Job-v0's reserve mode backfills with the batch scheduler's own EASY (`ReservationBackfiller`), and
 * PolicyPair-v0's pairs are batch schedulers made by `makeScheduler`, so the environments schedule
 * exactly as `simulate`/`compare` do.
 *
 * PolicyPair-v0's default action set is IRMaSim's: job selection `random, fcfs, sjf, smallest,
 * low_mem, low_mem_bw` x resource selection `random, high_gflops, high_cores, high_mem,
 * high_mem_bw, low_power`, 36 pairs, action `j * 6 + r` (IRMaSim's numbering, without its void
 * action).
 */
import type { MultifactorOptions } from '../src/scheduling/multifactor.js';
import type { Rng } from '../src/core/rng.js';
import type { ClusterSimulator } from '../src/execution/simulator.js';
import type { BackfillName } from '../src/scheduling/backfilling.js';
import { canonicalJobSelection, JOB_SELECTION_NAMES, makeJobSelection, type JobSelection } from '../src/scheduling/jobSelection.js';
import type { NodeFit, ResourcePolicy } from '../src/scheduling/placement.js';
import { makeScheduler, parsePolicyName } from '../src/scheduling/policyName.js';
import { isResourceSelection, makeResourcePolicy, RESOURCE_SELECTION_NAMES } from '../src/scheduling/resourceSelection.js';
import { PolicyScheduler, type Scheduler } from '../src/scheduling/scheduler.js';
import { makeJob, type Job } from '../src/workload/job.js';

/** Job-selection names accepted (canonical names). */
export const JOB_SELECTION_LIST: readonly string[] = JOB_SELECTION_NAMES;
/** Resource-selection names accepted. */
export const RESOURCE_POLICY_LIST: readonly string[] = RESOURCE_SELECTION_NAMES;

/** IRMaSim's job selections of the default policy-pair set (its `Environment`'s action table), in its order. */
export const IRMASIM_ENV_JOB_SELECTIONS = ['random', 'fcfs', 'sjf', 'smallest', 'low_mem', 'low_mem_bw'] as const;
/** IRMaSim's resource selections of the default policy-pair set, in its order. */
export const IRMASIM_ENV_RESOURCE_SELECTIONS = ['random', 'high_gflops', 'high_cores', 'high_mem', 'high_mem_bw', 'low_power'] as const;
/** The default PolicyPair-v0 actions: `job:resource` names, action `j * 6 + r`. */
export const DEFAULT_POLICY_PAIRS: readonly string[] = IRMASIM_ENV_JOB_SELECTIONS.flatMap((j) => IRMASIM_ENV_RESOURCE_SELECTIONS.map((r) => `${j}:${r}`));

/** Whether `name` is a job-selection name or alias. */
export function isJobSelectionName(name: string): boolean {
  return canonicalJobSelection(name) !== null;
}

/** Whether `name` is a resource-selection name. */
export function isResourcePolicyName(name: string): boolean {
  return isResourceSelection(name);
}

/** Whether `name` is a policy pair `job:resource` of known names. */
export function isPolicyPairName(name: string): boolean {
  const parts = name.split(':');
  return parts.length === 2 && isJobSelectionName(parts[0]!) && isResourcePolicyName(parts[1]!);
}

/** Whether `name` orders the queue by arrival (`fcfs` and its aliases). */
export function isArrivalOrder(name: string): boolean {
  return canonicalJobSelection(name) === 'fcfs';
}

/** The job selection `name` (validated beforehand); `rng` serves `random`. */
export function jobSelection(name: string, rng: Rng, multifactor?: MultifactorOptions): JobSelection {
  const c = canonicalJobSelection(name);
  if (!c) throw new Error(`unknown job-selection policy ${JSON.stringify(name)}`);
  return makeJobSelection(c, rng, multifactor);
}

/** The resource policy `name` (validated beforehand); `rng` serves `random`. */
export function resourcePolicy(name: string, rng: Rng): ResourcePolicy {
  if (!isResourceSelection(name)) throw new Error(`unknown resource-selection policy ${JSON.stringify(name)}`);
  return makeResourcePolicy(name, rng);
}

/** The canonical `job:resource[+backfill]` name of a pair under `backfill`. */
export function pairPolicyName(pair: string, backfill: BackfillName): string {
  return parsePolicyName(pair, backfill).name;
}

/**
 * The batch scheduler of policy pair `pair` (`job:resource`) with `backfill`: what `simulate
 * --policy` runs for the same name. `seed` seeds its `random` policies (`derive(seed, 'policy')`).
 */
export function pairScheduler(pair: string, backfill: BackfillName, fit: NodeFit, seed: number): Scheduler {
  return makeScheduler(parsePolicyName(pair, backfill), { seed, fit });
}

/**
 * EASY backfilling around a reserved job (Job-v0 with `unfit: "reserve"`), done by the batch
 * scheduler's own code: a `PolicyScheduler` with EASY whose queue order ranks the reserved job first
 * and the others in the env's queue order. Called at a decision point where the reserved job does
 * not fit, its `schedule` finds that head unable to start and backfills the others around its
 * reservation, exactly as `compare --commit-head` does around its committed head.
 *
 * The scheduler must see every job start of the episode in order (its index of running jobs by
 * expected end breaks ties by start order), so `bind` attaches it at the episode's first decision
 * point, before anything runs: a `schedule` call whose head is a placeholder job that can never fit
 * (and nothing runs, so it gets no reservation and nothing backfills). One backfiller per episode.
 */
export class ReservationBackfiller {
  private reserved: Job | null = null;
  private readonly scheduler: PolicyScheduler;
  private sim: ClusterSimulator | null = null;

  constructor(queueOrder: JobSelection, resources: ResourcePolicy, fit: NodeFit) {
    const self = this;
    const selection: JobSelection = {
      name: `reserved-then-${queueOrder.name}`,
      kind: 'dynamic',
      key: (job, now, origin) => queueOrder.key(job, now, origin),
      order(queue, now, origin) {
        const r = self.reserved;
        if (!r) return queueOrder.order(queue, now, origin);
        return [
          r,
          ...queueOrder.order(
            queue.filter((j) => j !== r),
            now,
            origin,
          ),
        ];
      },
    };
    this.scheduler = new PolicyScheduler({ selection, resources, fit, backfill: 'easy' });
  }

  /** Whether `bind` was called for `sim`. */
  boundTo(sim: ClusterSimulator): boolean {
    return this.sim === sim;
  }

  /** Attaches to `sim` at a decision point where jobs wait and none has started yet in the episode. */
  bind(sim: ClusterSimulator): void {
    if (sim.runningCount > 0 || sim.jobsFinished + sim.jobsKilled > 0) throw new Error('ReservationBackfiller.bind: jobs already ran in this episode');
    this.sim = sim;
    this.reserved = { ...PLACEHOLDER_JOB, ntasks: sim.platform.coreCount + 1 };
    this.scheduler.schedule(sim);
    this.reserved = null;
  }

  /** Backfills around `reserved`, which must be waiting and unable to start now. */
  backfill(sim: ClusterSimulator, reserved: Job): void {
    if (this.sim !== sim) throw new Error('ReservationBackfiller: bind() it to this episode first');
    this.reserved = reserved;
    this.scheduler.schedule(sim);
  }
}

const PLACEHOLDER_JOB: Job = makeJob({ id: '(binding placeholder)', subtime: 0, ntasks: 1, runtime: 1, source: 'envs/policies.ts' });
