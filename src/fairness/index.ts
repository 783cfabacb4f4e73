/**
 * Multi-resource hosts and multi-user fairness (seed 001, `docs/fairness.md`): the model (hosts with
 * CPU and memory as hard capacities, users with quotas, dominant shares, the packing score), the
 * streaming engine, the schedulers (drf, tetris(f), first-fit, best-fit), the interval monitor,
 * the Table 5.1 and speed experiments, and the task-trace readers (`traces`).
 */
export * from './engine.js';
export * from './experiment.js';
export * from './model.js';
export * from './monitor.js';
export { type FairnessReproduceOptions, type FairnessReproduction, reproduceFairness } from './report.js';
export * from './schedulers.js';
export * as traces from './traces/index.js';
export { FairTask as QueuedFairTask, TaskFifo, WaitingTasks } from '../scheduling/userQueues.js';
