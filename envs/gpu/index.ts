/** Gpu-v0 (DESIGN §16, round-based GPU scheduling of DL jobs): see gpuEnv.ts. */
export {
  GPU_ENV_ID,
  GPU_ENV_PLATFORM,
  PHILLY_CSV,
  GpuEnv,
  GpuEnvConfigSchema,
  type GpuEnvContext,
  type GpuEnvInfo,
  type GpuEnvMetrics,
  gpuEpisodeJobs,
  gpuRegistration,
  gpuSlotFeatures,
  loadGpuEnvContext,
} from './gpuEnv.js';
