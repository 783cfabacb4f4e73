/**
 * Output files of a malleable run: `jobs.csv` (one row per job, with its resize counts) and
 * `resizes.csv` (one row per resize: time, job, from, to, cost), streamed with the metrics
 * module's `LineWriter`; wait, completion and bounded slowdown come from src/metrics/jobMetrics.
 */
import { LineWriter } from '../metrics/writers.js';
import { csvField } from '../core/csv.js';
import { boundedSlowdown, turnaround, waitTime } from '../metrics/jobMetrics.js';
import type { MRunResult } from './preset.js';

/** Header of a malleable run's `jobs.csv`. */
export const MALLEABLE_JOBS_HEADER =
  'job_id,app,malleable,submit,start,finish,wait,execution,completion,bsld,start_nodes,end_nodes,node_seconds,resizes,expands,shrinks';

/** Header of `resizes.csv`. */
export const RESIZES_HEADER = 'time,job,from,to,cost';

const csv = csvField;

/** Writes `jobs.csv` of a run. */
export function writeMalleableJobsCsv(path: string, r: MRunResult): void {
  const w = new LineWriter(path, MALLEABLE_JOBS_HEADER);
  for (const j of r.jobs)
    w.line(
      [
        csv(j.id),
        j.app,
        j.malleable ? 1 : 0,
        j.submit,
        j.start,
        j.finish,
        waitTime(j.submit, j.start),
        j.finish - j.start,
        turnaround(j.submit, j.finish),
        boundedSlowdown(j.submit, j.start, j.finish),
        j.startSize,
        j.endSize,
        j.nodeSeconds,
        j.expands + j.shrinks,
        j.expands,
        j.shrinks,
      ].join(','),
    );
  w.close();
}

/** Writes `resizes.csv` of a run. */
export function writeResizesCsv(path: string, r: MRunResult): void {
  const w = new LineWriter(path, RESIZES_HEADER);
  for (const x of r.resizes) w.line(`${x.time},${csv(x.job)},${x.from},${x.to},${x.cost}`);
  w.close();
}
