/**
 * IRMaSim's heuristic workload managers on clustergym's engine, built from the `workload_manager`
 * object of an IRMaSim options file. Each manager is a `Scheduler` plus the shape its layout gives
 * jobs (the job as the engine must see it):
 *
 * | `type`            | what it does                                                             | jobs run      |
 * |-------------------|--------------------------------------------------------------------------|---------------|
 * | `Minimal` (IRMaSim's default) | FCFS; the first job starts when enough cores are idle, on the first idle cores in platform order | on any cores |
 * | `Heuristic`       | `job_selection` x `resource_selection` (`jobSelection.ts`, `resourceSelection.ts`), no backfilling | as they ask |
 * | `Backfill`        | FIFO with IRMaSim's per-node backfilling (`backfill.ts`)                 | on one node   |
 * | `EnergyHeuristic` | energy/EDP/time estimates per job and node (`energyHeuristic.ts`)        | on one node   |
 * | `Duplex`          | Min-Min / Max-Min list scheduling on node queues (`duplex.ts`)           | on one node   |
 *
 * `Heuristic` is clustergym's `PolicyScheduler` with IRMaSim's names (no backfilling, the queue
 * re-ordered at every decision point, the first job that does not fit blocks the others), which is
 * what IRMaSim's `Heuristic` is. IRMaSim's learning manager `Policy` is an environment here, not a
 * manager (`clustergym/PolicyPair-v0`), and `NodeWM` needs IRMaSim's modelV2 platforms: asking for
 * either is an `InputError` saying so.
 *
 * Fields IRMaSim ignores (a misspelt `job_selection`, say) are ignored here too, so that IRMaSim's
 * numbers come out, but each is returned as a warning naming the field it looks like.
 */
import { didYouMean, InputError, unknownKeys } from '../../core/errors.js';
import type { Rng } from '../../core/rng.js';
import type { ClusterSimulator } from '../../execution/simulator.js';
import type { Job } from '../../workload/job.js';
import { canonicalJobSelection, IRMASIM_JOB_SELECTIONS, makeJobSelection } from '../jobSelection.js';
import { isResourceSelection, IRMASIM_RESOURCE_SELECTIONS, makeResourcePolicy, type ResourceSelectionName } from '../resourceSelection.js';
import { PolicyScheduler, type Scheduler } from '../scheduler.js';
import { platformPolicy } from '../placement.js';
import { fcfsSelection } from '../jobSelection.js';
import { BACKFILL_RESOURCE_SELECTIONS, IrmasimBackfill, type BackfillResourceSelection } from './backfill.js';
import { Duplex, DUPLEX_OPTIONS, type DuplexOption } from './duplex.js';
import { ENERGY_DIRECTIONS, ENERGY_METRICS, EnergyHeuristic, type EnergyDirection, type EnergyMetric } from './energyHeuristic.js';

export { IrmasimBackfill } from './backfill.js';
export { Duplex } from './duplex.js';
export { EnergyHeuristic } from './energyHeuristic.js';

/** The manager types clustergym runs. */
export const IRMASIM_MANAGER_TYPES = ['Minimal', 'Heuristic', 'Backfill', 'EnergyHeuristic', 'Duplex'] as const;
export type IrmasimManagerType = (typeof IRMASIM_MANAGER_TYPES)[number];

/** A manager ready to run: the scheduler and the job shape its layout implies. */
export interface IrmasimManager {
  type: IrmasimManagerType;
  scheduler: Scheduler;
  /** The job as the engine must see it under this manager's layout. */
  shape(job: Job): Job;
  /** Fields of the `workload_manager` object IRMaSim ignores (and so does this run). */
  warnings: string[];
}

/**
 * IRMaSim's `Heuristic`: the `PolicyScheduler` of its two names, plus one `random()` drawn for every
 * arriving job whatever the job selection (IRMaSim sets `job.rand` on every submission), so that the
 * random resource selection draws the numbers IRMaSim draws. With `random` job selection that draw
 * is the job's key, made by the selection itself.
 */
export class IrmasimHeuristic implements Scheduler {
  readonly name: string;
  private sim: ClusterSimulator | null = null;
  constructor(
    private readonly policy: PolicyScheduler,
    private readonly rng: Rng,
    private readonly drawPerJob: boolean,
  ) {
    this.name = policy.name;
  }
  schedule(sim: ClusterSimulator): void {
    if (this.sim !== sim) {
      this.sim = sim;
      if (this.drawPerJob) {
        for (let i = 0; i < sim.queue.length; i++) this.rng.next();
        sim.addListener({ onSubmit: () => this.sim === sim && this.rng.next() });
      }
    }
    this.policy.schedule(sim);
  }
}

/** A job whose tasks may go on any cores (Minimal's layout). */
export function anyCores(job: Job): Job {
  return { ...job, type: 'mpi', nodes: 0, ntasksPerNode: 0 };
}

/** Fields each manager reads (besides `type`), and those IRMaSim's option parsing adds to every manager. */
const FIELDS: Record<IrmasimManagerType, readonly string[]> = {
  Minimal: [],
  Heuristic: ['job_selection', 'resource_selection'],
  Backfill: ['resource_selection'],
  EnergyHeuristic: ['metric', 'job_selection', 'resource_selection'],
  Duplex: ['scheduling_option'],
};
/** `irmasim` adds an `agent` object to every `workload_manager`; Policy's `environment` may be left over. */
const ALWAYS_ALLOWED = ['type', 'agent', 'environment'];
/** Former names of fields in IRMaSim's example options files (today's IRMaSim ignores them). */
const FORMER_NAMES: Record<string, string> = { core_selection: 'resource_selection', node_criterion: 'resource_selection', job_criterion: 'job_selection' };

function pick<T extends string>(wm: Record<string, unknown>, field: string, allowed: readonly T[], dflt: T, where: string, type: string): T {
  const v = wm[field];
  if (v === undefined) return dflt;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw new InputError(
    `$.workload_manager.${field}: ${type} has no ${field} ${JSON.stringify(v)}${typeof v === 'string' ? didYouMean(v, allowed) : ''}; expected one of ${allowed.join(', ')}`,
    where,
  );
}

/**
 * The manager an IRMaSim `workload_manager` object describes (`where` names the options file in
 * errors). `rng` is the run's `PythonRandom`, seeded with the options' `seed` as IRMaSim seeds Python's.
 */
export function makeIrmasimManager(wm: Record<string, unknown>, rng: Rng, where: string): IrmasimManager {
  const type = wm['type'] ?? 'Minimal';
  if (type === 'Policy')
    throw new InputError(
      '$.workload_manager.type: "Policy" is IRMaSim\'s learning manager; in clustergym a learning agent drives an environment: ' +
        'train on clustergym/PolicyPair-v0 (the same job x resource selection actions) with `clustergym train`, or from Python over `clustergym serve`',
      where,
    );
  if (type === 'NodeWM') throw new InputError('$.workload_manager.type: "NodeWM" needs IRMaSim\'s modelV2 platforms; clustergym models modelV1', where);
  if (typeof type !== 'string' || !(IRMASIM_MANAGER_TYPES as readonly string[]).includes(type))
    throw new InputError(
      `$.workload_manager.type: unknown workload manager ${JSON.stringify(type)}${typeof type === 'string' ? didYouMean(type, [...IRMASIM_MANAGER_TYPES, 'Policy']) : ''}; clustergym runs ${IRMASIM_MANAGER_TYPES.join(', ')}`,
      where,
    );
  const t = type as IrmasimManagerType;
  const warnings = unknownKeys(wm, [...ALWAYS_ALLOWED, ...FIELDS[t]]).map((u) => {
    const former = FORMER_NAMES[u.key];
    const why = former ? `unknown field ${JSON.stringify(u.key)} (a former name of ${JSON.stringify(former)})` : u.message;
    return `$.workload_manager.${u.key}: IRMaSim's ${t} ignores this field, and so does this run: ${why}`;
  });
  switch (t) {
    case 'Minimal':
      return { type: t, warnings, shape: anyCores, scheduler: new PolicyScheduler({ selection: fcfsSelection, resources: platformPolicy, name: 'Minimal' }) };
    case 'Heuristic': {
      const jobName = pick(wm, 'job_selection', IRMASIM_JOB_SELECTIONS, 'first', where, t);
      const resName = pick(wm, 'resource_selection', IRMASIM_RESOURCE_SELECTIONS, 'first', where, t);
      const selection = makeJobSelection(canonicalJobSelection(jobName)!, rng);
      if (!isResourceSelection(resName)) throw new Error(`unreachable: ${resName}`);
      const policy = new PolicyScheduler({
        selection,
        resources: makeResourcePolicy(resName as ResourceSelectionName, rng),
        name: `Heuristic(${jobName}, ${resName})`,
      });
      return { type: t, warnings, shape: (j) => j, scheduler: new IrmasimHeuristic(policy, rng, jobName !== 'random') };
    }
    case 'Backfill': {
      const res = pick<BackfillResourceSelection>(wm, 'resource_selection', BACKFILL_RESOURCE_SELECTIONS, 'first', where, t);
      return { type: t, warnings, shape: IrmasimBackfill.shape, scheduler: new IrmasimBackfill(res, rng) };
    }
    case 'EnergyHeuristic': {
      const metric = pick<EnergyMetric>(wm, 'metric', ENERGY_METRICS, 'energy', where, t);
      const js = pick<EnergyDirection>(wm, 'job_selection', ENERGY_DIRECTIONS, 'lowest', where, t);
      const rs = pick<EnergyDirection>(wm, 'resource_selection', ENERGY_DIRECTIONS, 'lowest', where, t);
      return { type: t, warnings, shape: EnergyHeuristic.shape, scheduler: new EnergyHeuristic(metric, js, rs) };
    }
    case 'Duplex': {
      const option = pick<DuplexOption>(wm, 'scheduling_option', DUPLEX_OPTIONS, 'duplex', where, t);
      return { type: t, warnings, shape: Duplex.shape, scheduler: new Duplex(option) };
    }
  }
}
