/** Slurm at production scale (seed 004): platforms, the Slurm preset of the one engine, multifactor priority, replay/calcmets, workload, experiment; slurm.conf, site traces and the live comparison (`docs/slurm.md`). */
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
export { STATE_NAMES } from './states.js';
export { DEFAULT_SLURM, type SlurmConfig, type SlurmJobInput, type SlurmSchedulingChange, hashUnit } from './config.js';
export { runSlurmPreset, slurmPresetConfig, slurmPresetPlatform } from './preset.js';
export { SlurmPresetRun } from './presetRun.js';
export { earliestFit } from '../scheduling/countedBackfill.js';
export { pickNodes } from '../scheduling/nodeSelection.js';
export { DEFAULT_PRIORITY, type PriorityConfig, ageFactor, fairShareFactor, jobPriority, jobSizeFactor } from './priority.js';
export { type CalcMets, CalcMetsAccumulator, REPLAY_ENGINES, type ReplayOptions, replay, replayEngineRefusal, runworkload, shrinkFactors } from './replay.js';
export { DEFAULT_RAIJIN_WORKLOAD, type RaijinJob, type RaijinWorkloadOptions, TABLE_4_1, raijinWorkload, workloadConstants } from './workload.js';
export { type RaijinExperimentOptions, type RaijinReport, runRaijinExperiment } from './experiment.js';
export {
  type ConfNodeLine,
  type ConfPartition,
  type SlurmConf,
  parseSlurmConf,
  readSlurmConf,
} from './slurmConf.js';
export { compressHostList, expandHostList, parseSlurmTime } from './hostList.js';
export {
  type ReplayJob,
  type ScheduleComparison,
  type ScheduleSummary,
  type ScheduledJob,
  compareSchedules,
  engineSchedule,
  ksDistance,
  replayJobs,
  shapeOf,
  summarise,
} from './trace.js';
export { type Trace, type TraceJob, parseElapsed, readTrace, sleepTrace, traceToSacctJson, traceToSwf } from './records.js';
export {
  MATRIX_CPUS,
  MATRIX_MEMORY,
  MATRIX_NODES,
  type MatrixCell,
  type MatrixJobs,
  cellConfLines,
  cellWorkload,
  matrixCell,
  matrixCells,
} from './liveMatrix.js';
export { type MirrorShape, type SlurmClusterView, SlurmPlacement, parseConstraint } from './mirror.js';
export { type LiveOptions, type LiveRun, liveReplay, readCtldLog } from './live.js';
export { type Agreement, type LiveClocks, type MetricAgreement, agreement, compareWithLive, engineForRun } from './agreement.js';
export {
  type SlurmJob,
  type SlurmNode,
  type SlurmPartition,
  SlurmClient,
  type SlurmClientOptions,
  SlurmCommandError,
  SlurmOutputError,
  hostNames,
  parseJson,
  parsePartitions,
} from './client.js';
export { type RequestFields, type SlurmRequest, requestOf } from './request.js';
