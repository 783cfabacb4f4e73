/** Malleable-v0 (seed 002, DMR): see malleableEnv.ts. */
export {
  MALLEABLE_ENV_ID,
  MalleableConfigSchema,
  type MalleableContext,
  MalleableEnv,
  type MalleableInfo,
  type MalleableMetrics,
  loadMalleableContext,
  malleableRegistration,
} from './malleableEnv.js';
