/**
 * The package's entry point (`import ... from 'clustergym'`): the gym environments, the heuristic
 * agents, and the simulator's main pieces. The tfjs PPO baseline is `clustergym/agents/learning` (it loads
 * TensorFlow.js), the ZeroMQ bridge `clustergym/bridge`.
 */
export * from './envs/index.js';
export * from './agents/heuristics/index.js';
export { ClusterSimulator, type SimulatorOptions, type SimulationListener, type JobRecord } from './src/execution/simulator.js';
export { runSimulation, type RunOptions, type RunResult } from './src/scheduling/run.js';
export { makeScheduler, parsePolicyName } from './src/scheduling/policyName.js';
export { loadPlatform, parsePlatform } from './src/platform/loader.js';
export { Platform } from './src/platform/platform.js';
export { loadWorkload, streamWorkload, type Job, type Workload } from './src/workload/index.js';
export type { Summary } from './src/metrics/summary.js';
/** Malleable jobs (seed 002, DMR): model, dmr policy, simulator, experiment (`docs/malleability.md`); agents below. */
export * as malleable from './src/malleable/index.js';
export { dmrAgent, neverAgent, type MalleableAgent, runMalleableEpisode } from './agents/malleable/index.js';
/** Slurm at production scale (seed 004): platforms, engine, multifactor + backfill, runworkload/calcmets, Raijin workload (`docs/slurm.md`); operator agents below. */
export * as slurm from './src/slurm/index.js';
export { FixedSettingAgent, QueueAdaptiveAgent, type SlurmAgent, runSlurmEpisode } from './agents/slurm/index.js';
/** Multi-resource hosts and multi-user fairness (seed 001): model, engine, drf/tetris(f), monitor, experiments, task traces (`docs/fairness.md`); agents below. */
export * as fairness from './src/fairness/index.js';
export { drfAgent, type FairAgent, runFairEpisode, tetrisAgent } from './agents/fairness/index.js';
