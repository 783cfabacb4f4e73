/**
 * Deep-learning progress (DESIGN §16, the `progress` dimension's DL throughput table): a job with a DL
 * facet (`job.gpus.dl`: a job type of the throughput table and its steps) runs on its GPUs at the rate
 * the table gives for its job type on their GPU type, at their count, consolidated (all on one node) or
 * spread over several nodes (`src/workload/dlThroughput.ts`):
 *
 *     r = T[G][(J, n)]["null"]  (one node),   T[G_unconsolidated][(J, n)]["null"]  (several; missing: the one-node rate)
 *
 * It does `r` steps a second while it runs and is done after its `steps`: started with `d` steps done,
 * it ends at `start + (steps - d) / r` unless it is stopped first. A preemption (`ClusterSimulator.preempt`)
 * settles `d += r (now - start)` and keeps it for the job's next run, on whatever GPUs (so a job that
 * moves runs `steps - sum_k r_k dt_k` more steps at its new rate). Attained service (GPU-seconds, what
 * least-attained-service orders read) is settled the same way.
 *
 * A placement is refused (`placementError`) when the table has no positive rate for the job there: a GPU
 * type the table does not know, a GPU count it did not measure, or a rate of 0 (out of memory: ResNet-50
 * at batch size 128 on 2-8 K80s). GPU types are matched by name between the platform and the table.
 * Co-location (two jobs sharing GPUs, the table's pairs) is not modelled: a GPU has one owner.
 *
 * Option `spreadRates: false` takes the one-node rate wherever the GPUs are, as Gavel's simulator does
 * (it reads the consolidated rate of `(job type, GPUs)` whatever the servers; its evaluation cluster has
 * one GPU per server): for reproducing its figures.
 *
 * Events: the job's end, stamped with its run's version (stale once it is stopped).
 */
import type { Platform } from '../platform/platform.js';
import type { ThroughputTable } from '../workload/dlThroughput.js';
import type { Job } from '../workload/job.js';
import type { ProgressHost, ProgressModel } from './progressModel.js';
import type { RunningJob } from './running.js';

const END = 0;

/** A DL job's progress, kept across its runs (its `RunningJob.extension`). */
export class DlRun {
  /** Steps done up to `since`. */
  stepsDone = 0;
  /** Steps/s now (0 while it does not run). */
  rate = 0;
  /** Time `stepsDone` and `gpuSeconds` were settled (its current run's start while it runs). */
  since = 0;
  /** GPU-seconds received up to `since`. */
  gpuSeconds = 0;
  /** Seconds run up to `since`. */
  runSeconds = 0;
  /** GPUs held now (0 while it does not run). */
  gpus = 0;
  /** Platform GPU type it runs on now (-1 while it does not run), and whether its GPUs span several nodes. */
  gpuType = -1;
  spread = false;
  /** Runs started so far. */
  runs = 0;
  /** Version: end events stamped with an older one are stale. */
  ver = 0;
  constructor(readonly steps: number) {}

  /** Steps done at time `now`. */
  doneAt(now: number): number {
    return Math.min(this.steps, this.stepsDone + this.rate * (now - this.since));
  }

  /** Steps left at time `now`. */
  remainingAt(now: number): number {
    return Math.max(0, this.steps - this.doneAt(now));
  }

  /** GPU-seconds received by time `now`. */
  gpuSecondsAt(now: number): number {
    return this.gpuSeconds + this.gpus * (now - this.since);
  }

  /** Seconds run by time `now`. */
  runSecondsAt(now: number): number {
    return this.runSeconds + (this.gpus > 0 ? now - this.since : 0);
  }
}

/** Where a DL job would run on a set of GPUs: its platform GPU type, count and spread. */
export interface DlPlacement {
  gpuType: number;
  gpus: number;
  spread: boolean;
}

/** The placement of GPU ids `gpus` on `platform` (the first GPU's type; spread when they span two or more nodes). */
export function dlPlacementOf(platform: Platform, gpus: ArrayLike<number>): DlPlacement {
  const n0 = gpus.length > 0 ? platform.gpuNode[gpus[0]!]! : -1;
  let spread = false;
  for (let i = 1; i < gpus.length && !spread; i++) if (platform.gpuNode[gpus[i]!] !== n0) spread = true;
  return { gpuType: n0 >= 0 ? platform.nodeGpuType[n0]! : -1, gpus: gpus.length, spread };
}

/** Moves DL jobs forward by the throughput table (see the module comment). */
export class DlProgress implements ProgressModel {
  readonly name = 'DL throughput';
  private host!: ProgressHost;
  private platform!: Platform;
  /** Per platform GPU type: the table's GPU type index (-1: not in the table). */
  private tableGpu = new Int32Array(0);
  /** The progress of every DL job that has started and not finished. */
  private readonly runsByJob = new Map<Job, DlRun>();

  /** Spread GPUs run at the table's spread rates (default), or at its one-node rates (Gavel's simulator). */
  readonly spreadRates: boolean;

  constructor(
    readonly table: ThroughputTable,
    options: { spreadRates?: boolean } = {},
  ) {
    this.spreadRates = options.spreadRates ?? true;
  }

  attach(host: ProgressHost): void {
    this.host = host;
    this.platform = host.platform;
    this.tableGpu = Int32Array.from(host.platform.gpuTypes, (g) => this.table.gpuTypeIndex(g));
  }

  runs(job: Job): boolean {
    return job.gpus?.dl !== undefined;
  }

  /** Steps/s of `job` alone on `gpus` GPUs of platform GPU type `gpuType`, spread or not; 0 when the table has no positive rate. */
  rate(job: Job, gpuType: number, gpus: number, spread: boolean): number {
    const dl = job.gpus?.dl;
    if (dl === undefined || gpuType < 0) return 0;
    const g = this.tableGpu[gpuType]!;
    const j = this.table.jobTypeIndex(dl.jobType);
    const s = this.table.scaleIndex(gpus);
    if (g < 0 || j < 0 || s < 0) return 0;
    const r = this.table.rateAt(j, g, s, spread && this.spreadRates);
    return r > 0 ? r : 0;
  }

  placementError(job: Job, gpus: ArrayLike<number>): string | null {
    const p = dlPlacementOf(this.platform, gpus);
    if (this.rate(job, p.gpuType, p.gpus, p.spread) > 0) return null;
    const dl = job.gpus!.dl!;
    const type = this.platform.gpuTypes[p.gpuType] ?? '(none)';
    return `the throughput table has no rate for ${dl.jobType} on ${p.gpus} ${type} GPUs${p.spread ? ' spread over several nodes' : ''}`;
  }

  /** The progress of `job` (started at least once and not finished), or undefined. */
  progressOf(job: Job): DlRun | undefined {
    return this.runsByJob.get(job);
  }

  start(rj: RunningJob): void {
    const job = rj.job;
    const now = this.host.now;
    let run = rj.extension instanceof DlRun ? rj.extension : this.runsByJob.get(job);
    if (run === undefined) {
      run = new DlRun(job.gpus!.dl!.steps);
      this.runsByJob.set(job, run);
    }
    rj.extension = run;
    const p = dlPlacementOf(this.platform, rj.gpus);
    run.rate = this.rate(job, p.gpuType, p.gpus, p.spread);
    if (!(run.rate > 0)) throw new Error(`job ${job.id}: ${this.placementError(job, rj.gpus)}`);
    run.since = now;
    run.gpus = p.gpus;
    run.gpuType = p.gpuType;
    run.spread = p.spread;
    run.runs++;
    run.ver++;
    this.host.schedule(now + (run.steps - run.stepsDone) / run.rate, END, rj, run.ver);
  }

  isLive(_kind: number, rj: RunningJob, stamp: number): boolean {
    return (rj.extension as DlRun).ver === stamp;
  }

  handle(_kind: number, rj: RunningJob): void {
    const run = rj.extension as DlRun;
    // its steps are done (exactly, whatever the rounding of the end time)
    run.stepsDone = run.steps;
    run.rate = 0;
    this.runsByJob.delete(rj.job);
    this.host.complete(rj);
  }

  stop(rj: RunningJob): void {
    const run = rj.extension as DlRun;
    const now = this.host.now;
    const done = run.doneAt(now);
    run.gpuSeconds = run.gpuSecondsAt(now);
    run.runSeconds += now - run.since;
    run.stepsDone = done;
    run.since = now;
    run.rate = 0;
    run.gpus = 0;
    run.gpuType = -1;
    run.ver++;
    if (done >= run.steps) this.runsByJob.delete(rj.job);
  }
}
