/** Slurm-v0 (seed 004, production operations at Slurm scale): see slurmEnv.ts. */
export {
  BACKFILL_SETTINGS,
  PRIORITY_PROFILES,
  SLURM_ACTIONS,
  SLURM_ENV_ID,
  SlurmEnv,
  SlurmEnvConfigSchema,
  type SlurmEnvContext,
  type SlurmEnvInfo,
  loadSlurmEnvContext,
  slurmActionName,
  slurmRegistration,
} from './slurmEnv.js';
