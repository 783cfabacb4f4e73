/**
 * The gym environments of clustergym (DESIGN §5): `make(id, config)`, the `Env` API with Gymnasium
 * semantics, spaces, vector envs (in process and on worker threads), and an env checker. See
 * docs/environments.md.
 */
export {
  make,
  makeContext,
  makeFromContext,
  isEnvId,
  checkEnvId,
  ENV_DESCRIPTIONS,
  allEnvIds,
  envDescription,
  loadEnv,
  makeEnv,
  type EnvRegistration,
  type LoadedEnv,
} from './registry.js';
export {
  ENV_IDS,
  EnvConfigSchema,
  parseEnvConfig,
  TERMINAL_REWARDS,
  DENSE_REWARDS,
  type EnvId,
  type EnvConfig,
  type ResolvedEnvConfig,
  type RewardTerm,
} from './config.js';
export { EnvContext, type EpisodeJobs } from './context.js';
export {
  ClusterEnv,
  type Env,
  type EnvInfo,
  type ResetArgs,
  type ResetOptions,
  type ResetResult,
  type StepResult,
} from './env.js';
export type { EpisodeInfo, GymEnv, GymInfo, GymObservation } from './gym.js';
export { JobNodeEnv } from './jobNodeEnv.js';
export { JobEnv } from './jobEnv.js';
export { PolicyPairEnv } from './policyPairEnv.js';
export { InvalidActionError, EpisodeOverError } from './errors.js';
export * from './spaces.js';
export {
  JOB_FEATURES,
  NODE_FEATURES,
  GLOBAL_FEATURES,
  MINIMAL_SIZE,
  workloadLimits,
  type Limits,
  type Observation,
  type DictObservation,
  type ObservationKind,
} from './observation.js';
export { RewardFunction, terminalValue, type StepDeltas } from './rewards.js';
export { DEFAULT_POLICY_PAIRS, IRMASIM_ENV_JOB_SELECTIONS, IRMASIM_ENV_RESOURCE_SELECTIONS } from './policies.js';
export {
  makeVec,
  SyncVecEnv,
  type VecEnv,
  type VecInfo,
  type VecResetArgs,
  type VecResetResult,
  type VecStepResult,
  type BatchObservation,
  type EnvSpec,
} from './vector.js';
export { makeVecWorkers, WorkerVecEnv, type WorkerVecOptions } from './workerVec.js';
export { checkEnv, EnvCheckError, observationDigest, type CheckOptions, type CheckReport } from './checker.js';
