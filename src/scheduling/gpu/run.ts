/**
 * A whole run of deep-learning jobs on a GPU platform under a round scheduler (`rounds.ts`): the one
 * engine with the DL progress model (`src/execution/dlProgress.ts`) and the round pass clock, through
 * `runSimulation` (summary.json, jobs.csv), plus the GPU figures of the run:
 *
 * - `mean_jct` (s, the mean completion time: end minus arrival, the summary's `mean_turnaround`), the
 *   preemptions between rounds, the GPU-hours used per GPU type and their share of the type's GPU-hours;
 * - with `outDir`, `gpu_jobs.csv`: per job its job type, GPUs, arrival, first start, end, JCT, the GPU
 *   type and servers of its last run, its runs and GPU-seconds.
 */
import { join } from 'node:path';
import { csvField } from '../../core/csv.js';
import { DlProgress, type DlRun } from '../../execution/dlProgress.js';
import type { JobRecord, SimulationListener } from '../../execution/simulator.js';
import type { Summary } from '../../metrics/summary.js';
import { LineWriter } from '../../metrics/writers.js';
import type { Platform } from '../../platform/platform.js';
import type { ThroughputTable } from '../../workload/dlThroughput.js';
import type { Job } from '../../workload/job.js';
import { runSimulation } from '../run.js';
import { makeGpuScheduler } from './rounds.js';

/** Options of a GPU run. */
export interface GpuRunOptions {
  /** A round scheduler's name (`GPU_POLICIES`). */
  policy: string;
  table: ThroughputTable;
  /** Round length, s (default 360, Gavel's). */
  round?: number;
  /** Seed (Gavel's agnostic policies' type shuffle). */
  seed?: number;
  /** Spread GPUs at the table's spread rates (default) or at its one-server rates (Gavel's simulator). */
  spreadRates?: boolean;
  /** Write summary.json, jobs.csv and gpu_jobs.csv there. */
  outDir?: string | undefined;
  workloadName?: string;
  listeners?: SimulationListener[];
}

/** The GPU figures of a run. */
export interface GpuSummary {
  /** Mean JCT, s. */
  mean_jct: number;
  preemptions: number;
  /** Per GPU type: GPU-hours used, and their share of the type's GPU-hours over the makespan. */
  gpu_hours: Record<string, number>;
  gpu_utilisation: Record<string, number>;
}

/** Header of `gpu_jobs.csv`. */
export const GPU_JOBS_CSV_HEADER = 'job_id,job_type,gpus,submit,start,finish,jct,gpu_type,servers,runs,gpu_seconds';

/** Runs `jobs` on `platform` (see the module comment). */
export function runGpuSimulation(
  platform: Platform,
  jobs: Iterable<Job>,
  o: GpuRunOptions,
): { summary: Summary; gpu: GpuSummary; dl: DlProgress; records: number } {
  const round = o.round ?? 360;
  const dl = new DlProgress(o.table, { spreadRates: o.spreadRates ?? true });
  const scheduler = makeGpuScheduler(o.policy, dl, { round, seed: o.seed ?? 0 });
  let preemptions = 0;
  const gpuSeconds = new Float64Array(platform.gpuTypes.length);
  const writer = o.outDir !== undefined ? new LineWriter(join(o.outDir, 'gpu_jobs.csv'), GPU_JOBS_CSV_HEADER) : null;
  let records = 0;
  /** The progress of the running DL jobs, read at their end (the model forgets a finished job). */
  const runs = new Map<Job, DlRun>();
  const gpuListener: SimulationListener = {
    onStart: (_s, rj) => {
      if (rj.extension !== undefined) runs.set(rj.job, rj.extension as DlRun);
    },
    onRequeue: (s, rj) => {
      preemptions++;
      const t = platform.nodeGpuType[platform.gpuNode[rj.gpus[0]!]!]!;
      gpuSeconds[t]! += rj.gpus.length * (s.now - rj.start);
    },
    onEnd: (s, rec: JobRecord, rj) => {
      records++;
      const gpus = rec.gpus ?? new Int32Array(0);
      const type = gpus.length > 0 ? platform.nodeGpuType[platform.gpuNode[gpus[0]!]!]! : -1;
      if (type >= 0 && rj !== null) gpuSeconds[type]! += gpus.length * (s.now - rj.start);
      const run = runs.get(rec.job);
      runs.delete(rec.job);
      if (writer === null) return;
      const servers = new Set(Array.from(gpus, (u) => platform.gpuNode[u]!)).size;
      writer.line(
        [
          csvField(rec.job.id),
          csvField(rec.job.gpus?.dl?.jobType ?? ''),
          gpus.length,
          rec.submit,
          rj?.firstStart ?? rec.start,
          rec.finish,
          rec.finish - rec.submit,
          type >= 0 ? platform.gpuTypes[type] : '',
          servers,
          run?.runs ?? 0,
          run?.gpuSeconds ?? 0,
        ].join(','),
      );
    },
  };
  let summary: Summary;
  try {
    summary = runSimulation(platform, jobs, scheduler, {
      progress: [dl],
      passClock: { every: round },
      outDir: o.outDir,
      workloadName: o.workloadName,
      listeners: [gpuListener, ...(o.listeners ?? [])],
    }).summary;
  } finally {
    writer?.close();
  }
  const gpu_hours: Record<string, number> = {};
  const gpu_utilisation: Record<string, number> = {};
  platform.gpuTypeSpecs.forEach((spec, t) => {
    gpu_hours[spec.name] = gpuSeconds[t]! / 3600;
    gpu_utilisation[spec.name] = summary.makespan > 0 ? gpuSeconds[t]! / (spec.count * summary.makespan) : 0;
  });
  return { summary, gpu: { mean_jct: summary.mean_turnaround, preemptions, gpu_hours, gpu_utilisation }, dl, records };
}
