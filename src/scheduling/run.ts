/**
 * Runs a whole simulation with a batch scheduler: the loop `while (sim.advance()) scheduler.schedule(sim)`,
 * with metrics collected on the way and the output files written when asked.
 */
import { join } from 'node:path';
import { ClusterSimulator, type SimulationListener, type SimulatorOptions } from '../execution/simulator.js';
import { MetricsCollector, type Summary } from '../metrics/summary.js';
import { JobsCsvWriter, LineWriter, TIMELINE_CSV_HEADER, TimelineRecorder, timelineCsvRow, writeSummary, type TimelineRow } from '../metrics/writers.js';
import type { Platform } from '../platform/platform.js';
import type { Job } from '../workload/job.js';
import { attachEngineConfig, type EngineConfig, schedulerOf, simulatorOptionsOf } from './engineConfig.js';
import type { Scheduler } from './scheduler.js';

/** Options of `runSimulation`. */
export interface RunOptions extends SimulatorOptions {
  /** Directory to write `summary.json` and `jobs.csv` (and `timeline.csv` with `timeline`). */
  outDir?: string | undefined;
  /** Write `timeline.csv` to `outDir`. */
  timeline?: boolean | undefined;
  /** Receives each timeline row (in memory use, tests). */
  onTimeline?: ((row: TimelineRow) => void) | undefined;
  /** Extra observers. */
  listeners?: SimulationListener[] | undefined;
  /** The engine's dimensions by name (`engineConfig.ts`); the scheduler's `multifactor` options come with it through `makeScheduler`. */
  engine?: EngineConfig | undefined;
  /**
   * Stop after the instants at or before this time (s; default Infinity: when every job has left). A job
   * still waiting or running then has no record. For runs that do not end: a job that waits for ever under
   * a pass clock that ticks while jobs wait (the Slurm preset's GPU request of Slurm's defaults that its
   * partition's nodes cannot hold).
   */
  until?: number | undefined;
}

/** Result of a run. */
export interface RunResult {
  summary: Summary;
  sim: ClusterSimulator;
  metrics: MetricsCollector;
  /** The scheduler that ran: `scheduler` inside what the engine configuration wraps it in (`schedulerOf`). */
  scheduler: Scheduler;
}

/**
 * The engine of a run of `jobs` on `platform` and the scheduler that runs it (`scheduler` inside what the engine
 * configuration wraps it in, `schedulerOf`), built as `runSimulation` builds them, before any listener or run:
 * for a caller that drives the run itself (`runUntil` step by step: the Slurm preset's stepped run).
 */
export function buildSimulation(
  platform: Platform,
  jobs: Iterable<Job>,
  scheduler: Scheduler,
  options: SimulatorOptions & { engine?: EngineConfig | undefined } = {},
): { sim: ClusterSimulator; scheduler: Scheduler } {
  if (options.engine) scheduler = schedulerOf(options.engine, scheduler);
  const sim = new ClusterSimulator(platform, jobs, options.engine ? { ...options, ...simulatorOptionsOf(options.engine) } : options);
  if (options.engine) attachEngineConfig(sim, options.engine);
  return { sim, scheduler };
}

/** Simulates `jobs` on `platform` under `scheduler` until every job has left (or `until`). */
export function runSimulation(platform: Platform, jobs: Iterable<Job>, given: Scheduler, options: RunOptions = {}): RunResult {
  const { sim, scheduler } = buildSimulation(platform, jobs, given, options);
  const metrics = new MetricsCollector();
  sim.addListener(metrics);
  for (const l of options.listeners ?? []) sim.addListener(l);
  let jobsCsv: JobsCsvWriter | null = null;
  let timelineFile: LineWriter | null = null;
  const timelineSinks: ((r: TimelineRow) => void)[] = [];
  if (options.outDir) {
    jobsCsv = new JobsCsvWriter(join(options.outDir, 'jobs.csv'));
    metrics.onRecord(jobsCsv.write);
    if (options.timeline) {
      const w = new LineWriter(join(options.outDir, 'timeline.csv'), TIMELINE_CSV_HEADER);
      timelineFile = w;
      timelineSinks.push((r) => w.line(timelineCsvRow(r)));
    }
  }
  if (options.onTimeline) timelineSinks.push(options.onTimeline);
  const recorder =
    timelineSinks.length > 0
      ? new TimelineRecorder((r) => {
          for (const s of timelineSinks) s(r);
        })
      : null;
  if (recorder) sim.addListener(recorder);
  try {
    // a clock that runs the passes itself follows the engine from the start (`SlurmPassClock`)
    if (options.engine && typeof options.engine.pass_clock === 'object') scheduler.attach?.(sim);
    const until = options.until ?? Number.POSITIVE_INFINITY;
    if (until === Number.POSITIVE_INFINITY) while (sim.advance()) scheduler.schedule(sim);
    else {
      sim.setScheduler(scheduler);
      // (a scheduler's pause returns early: go on; at least once, so that an `until` at the start runs its instant)
      do sim.runUntil(until);
      while (!sim.finished && sim.now < until);
    }
    recorder?.finish(sim);
  } finally {
    jobsCsv?.close();
    timelineFile?.close();
  }
  const summary = metrics.summary(sim);
  if (options.outDir) writeSummary(join(options.outDir, 'summary.json'), summary);
  return { summary, sim, metrics, scheduler };
}
