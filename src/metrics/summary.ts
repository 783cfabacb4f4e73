/**
 * Streaming aggregation of a run's metrics (DESIGN §2.5): O(1) per job end, nothing kept per
 * finished job. `MetricsCollector` listens to a `ClusterSimulator`; `summary()` gives the
 * `summary.json` object:
 *
 *     utilisation = sum(run * ntasks) / (makespan * total cores)
 *     makespan    = last end - first submission (time 0)
 *     EDP         = energy * makespan
 *
 * Means are over jobs that ran (finished or killed); rejected jobs are only counted.
 */
import type { ClusterSimulator, JobRecord, SimulationListener } from '../execution/simulator.js';
import { edp } from '../platform/power.js';
import { boundedSlowdown, slowdown } from './jobMetrics.js';

/** The `summary.json` object. */
export interface Summary {
  jobs_finished: number;
  jobs_killed: number;
  jobs_rejected: number;
  makespan: number;
  energy: number;
  edp: number;
  network_volume: number;
  utilisation: number;
  mean_wait: number;
  mean_turnaround: number;
  mean_slowdown: number;
  mean_bsld: number;
  max_bsld: number;
}

/** Running sums of per-job metrics. */
export class MetricsCollector implements SimulationListener {
  finished = 0;
  killed = 0;
  rejected = 0;
  sumWait = 0;
  sumTurnaround = 0;
  sumSlowdown = 0;
  sumBsld = 0;
  maxBsld = 0;
  /** Sum of run * ntasks (core-seconds used). */
  coreSeconds = 0;
  /** Extra observers of each job end (writers). */
  private readonly sinks: ((r: JobRecord) => void)[] = [];

  /** Also passes each job record to `sink` (e.g. a jobs.csv writer). */
  onRecord(sink: (r: JobRecord) => void): this {
    this.sinks.push(sink);
    return this;
  }

  onReject(_sim: ClusterSimulator, r: JobRecord): void {
    this.rejected++;
    for (const s of this.sinks) s(r);
  }

  onEnd(_sim: ClusterSimulator, r: JobRecord): void {
    if (r.state === 'finished') this.finished++;
    else this.killed++;
    this.sumWait += r.start - r.submit;
    this.sumTurnaround += r.finish - r.submit;
    this.sumSlowdown += slowdown(r.submit, r.start, r.finish);
    const b = boundedSlowdown(r.submit, r.start, r.finish);
    this.sumBsld += b;
    if (b > this.maxBsld) this.maxBsld = b;
    this.coreSeconds += (r.finish - r.start) * r.job.ntasks;
    for (const s of this.sinks) s(r);
  }

  /** Number of jobs that ran (finished or killed). */
  get ran(): number {
    return this.finished + this.killed;
  }

  /** The summary of the run so far, with the simulator's energy and network figures. */
  summary(sim: ClusterSimulator): Summary {
    const n = this.ran;
    const makespan = sim.lastEnd;
    const cores = sim.platform.coreCount;
    return {
      jobs_finished: this.finished,
      jobs_killed: this.killed,
      jobs_rejected: this.rejected,
      makespan,
      energy: sim.energy,
      edp: edp(sim.energy, makespan),
      network_volume: sim.networkVolume,
      utilisation: makespan > 0 ? this.coreSeconds / (makespan * cores) : 0,
      mean_wait: n ? this.sumWait / n : 0,
      mean_turnaround: n ? this.sumTurnaround / n : 0,
      mean_slowdown: n ? this.sumSlowdown / n : 0,
      mean_bsld: n ? this.sumBsld / n : 0,
      max_bsld: this.maxBsld,
    };
  }
}
