/** Slurm at production scale (seed 004): platforms, engine, multifactor priority, replay/calcmets, workload, experiment; slurm.conf, site traces and the live comparison (`docs/slurm.md`). */
export {
  PREEMPT_MODES,
  type PreemptMode,
  type Partition,
  RAIJIN_PLATFORM,
  SlurmPlatform,
  SlurmPlatformSchema,
  type SlurmPlatformSpec,
  loadSlurmPlatform,
} from './platform.js';
export { JobState, JobTable, STATE_NAMES } from './jobs.js';
export { DEFAULT_SLURM, type EngineStats, type FinishListener, type SlurmConfig, SlurmEngine, type SlurmJobInput, earliestFit } from './engine.js';
export { DEFAULT_PRIORITY, type PriorityConfig, ageFactor, fairShareFactor, jobPriority, jobSizeFactor } from './priority.js';
export { type CalcMets, CalcMetsAccumulator, type ReplayOptions, replay, runworkload, shrinkFactors } from './replay.js';
export { DEFAULT_RAIJIN_WORKLOAD, type RaijinJob, type RaijinWorkloadOptions, TABLE_4_1, raijinWorkload, workloadConstants } from './workload.js';
export { type RaijinExperimentOptions, type RaijinReport, runRaijinExperiment } from './experiment.js';
export {
  type ConfNodeLine,
  type ConfPartition,
  type SlurmConf,
  compressHostList,
  expandHostList,
  parseSlurmConf,
  parseSlurmTime,
  readSlurmConf,
} from './slurmConf.js';
export {
  type ReplayJob,
  type ScheduleComparison,
  type ScheduleSummary,
  type ScheduledJob,
  type Trace,
  type TraceJob,
  compareSchedules,
  engineSchedule,
  ksDistance,
  readTrace,
  replayJobs,
  sleepTrace,
  summarise,
  traceToSwf,
} from './trace.js';
export { type LiveOptions, liveReplay, readCtldLog } from './live.js';
