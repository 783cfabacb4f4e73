/**
 * Multi-resource hosts and multi-user fairness (seed 001, `docs/fairness.md`) as a preset of the one
 * engine: the preset (`fairPreset`: the vector capacity, fixed durations, the multi-resource passes), the
 * interval monitor, the Table 5.1 and speed experiments, and the task-trace readers (`traces`). The
 * policies (drf, tetris(f), first-fit, best-fit) and the passes live in src/scheduling/multiResource.ts,
 * the user ledger in src/scheduling/userLedger.ts; they are re-exported here, where this namespace has
 * always offered them.
 */
export { jainIndex } from '../core/statistics.js';
export { CAPACITY_EPS, HostVectors } from '../execution/hostVectors.js';
export { type HostGroup, HostGroupSchema, HostGroupsSchema } from '../platform/views.js';
export {
  alignmentScore,
  bestAlignedHost,
  bestFit,
  drf,
  drfOrder,
  type FairScheduler,
  FairTask,
  firstFit,
  MultiResourcePasses,
  type Placement,
  SCHEDULER_NAMES,
  type SchedulerView,
  schedulerByName,
  type TaskStats,
  tetris,
  tetrisCandidates,
  WaitingTasks,
} from '../scheduling/multiResource.js';
export { UserLedger } from '../scheduling/userLedger.js';
export * from './experiment.js';
export * from './monitor.js';
export * from './preset.js';
export { type FairnessReproduceOptions, type FairnessReproduction, reproduceFairness } from './report.js';
export * as traces from './traces/index.js';
