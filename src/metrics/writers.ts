/**
 * Output files of a run (DESIGN §2.5): `summary.json`, `jobs.csv` (one row per job as it leaves
 * the system, streamed to disk), and the optional `timeline.csv` (time, utilisation, queue length,
 * power: one row per interval of constant state, so that the integral of `power` over the rows
 * equals the run's energy).
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { csvField } from '../core/csv.js';
import type { ClusterSimulator, JobRecord, SimulationListener } from '../execution/simulator.js';
import { boundedSlowdown } from './jobMetrics.js';
import type { Summary } from './summary.js';

/** Header of `jobs.csv`. */
export const JOBS_CSV_HEADER = 'job_id,type,ntasks,submit,start,finish,wait,turnaround,bsld,req_time,state,nodes,cores,comm_time';

/** Formats one `jobs.csv` row. */
export function jobsCsvRow(r: JobRecord): string {
  const ran = r.state !== 'rejected';
  const num = (v: number) => (ran ? String(v) : '');
  return [
    csvField(r.job.id),
    r.job.type,
    r.job.ntasks,
    r.submit,
    num(r.start),
    num(r.finish),
    num(r.start - r.submit),
    num(r.finish - r.submit),
    num(boundedSlowdown(r.submit, r.start, r.finish)),
    r.job.reqTime,
    r.state,
    Array.from(r.nodes).join(' '),
    Array.from(r.cores).join(' '),
    num(r.commTime),
  ].join(',');
}

/** Buffered line writer to a file (sync, flushes every 64 KiB). */
export class LineWriter {
  private readonly fd: number;
  private buf: string[] = [];
  private size = 0;
  constructor(path: string, header?: string) {
    this.fd = openSync(path, 'w');
    if (header !== undefined) this.line(header);
  }
  line(s: string): void {
    this.buf.push(s);
    this.size += s.length + 1;
    if (this.size > 65536) this.flush();
  }
  flush(): void {
    if (this.buf.length === 0) return;
    writeSync(this.fd, `${this.buf.join('\n')}\n`);
    this.buf = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Streams `jobs.csv`. */
export class JobsCsvWriter {
  private readonly w: LineWriter;
  constructor(path: string) {
    this.w = new LineWriter(path, JOBS_CSV_HEADER);
  }
  write = (r: JobRecord): void => {
    this.w.line(jobsCsvRow(r));
  };
  close(): void {
    this.w.close();
  }
}

/** One row of the timeline: the state from `time` until the next row's time. */
export interface TimelineRow {
  time: number;
  utilisation: number;
  queue: number;
  power: number;
}

/**
 * Records the timeline of a run. Each time the clock moves, the state that held since the last
 * move becomes a row; `finish(sim)` adds the final row at the end time.
 */
export class TimelineRecorder implements SimulationListener {
  private readonly sink: (row: TimelineRow) => void;
  constructor(sink: (row: TimelineRow) => void) {
    this.sink = sink;
  }
  onAdvance(sim: ClusterSimulator, from: number): void {
    this.sink({ time: from, utilisation: sim.busyCores / sim.platform.coreCount, queue: sim.queue.length, power: sim.power });
  }
  /** The closing row (state at the end of the run). */
  finish(sim: ClusterSimulator): void {
    this.sink({ time: sim.now, utilisation: sim.busyCores / sim.platform.coreCount, queue: sim.queue.length, power: sim.power });
  }
}

/** Header of `timeline.csv`. */
export const TIMELINE_CSV_HEADER = 'time,utilisation,queue_length,power';

/** Formats a timeline row. */
export function timelineCsvRow(r: TimelineRow): string {
  return `${r.time},${r.utilisation},${r.queue},${r.power}`;
}

/** Writes `summary.json`. */
export function writeSummary(path: string, s: Summary): void {
  writeFileSync(path, `${JSON.stringify(s, null, 2)}\n`);
}
