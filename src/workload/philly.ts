/**
 * Microsoft Philly jobs as Pollux's artifact ships them (`../shared/data/pollux/philly.csv`:
 * `timestamp,duration,num_gpus,gpu_time,cluster`, one job a row, rows not in time order; `cluster` is the
 * virtual cluster), read line by line into deep-learning jobs with the `gpus` facet.
 *
 * Philly says when a job came, how many GPUs it held and how long it ran, not what it trained. Job types
 * are assigned as Gavel's generator assigns them (`gavel.ts`): `choice(job types)` with CPython's
 * generator (`PythonRandom(seed)`), drawn again until the type runs on the job's GPU count, and
 * `steps = duration x the reference rate` (V100 in Gavel's table), so that the job runs its Philly
 * duration on the reference GPU type and longer or shorter elsewhere, as the table says. (Gavel's own
 * conversion of Philly's virtual clusters into its `msr` traces is not public; this is its generator's
 * rule with Philly's arrivals, durations and sizes.)
 *
 * Selection: `cluster` (one virtual cluster, e.g. `6214e9`), then jobs in submission order (the file's
 * order among equal timestamps), from the `skip`-th, at most `limit`. Jobs on a GPU count the table has no
 * rate for (12, 16, 24, 32, 64, 128 GPUs in Philly) and rows with a duration <= 0 are skipped and counted
 * by reason in `Workload.skipped`; the draws go to the jobs kept, in order. Submission times are seconds
 * after the first selected job's timestamp (read as UTC).
 */
import { InputError } from '../core/errors.js';
import { readLines } from '../core/lines.js';
import { PythonRandom } from '../core/rng.js';
import type { ThroughputTable } from './dlThroughput.js';
import { dlJob, drawJobType, jobTypeDraw } from './gavel.js';
import type { Job, Workload } from './job.js';

/** Options of the Philly reader. */
export interface PhillyOptions {
  /** The throughput table (job types to draw, and the reference rate that turns durations into steps). */
  table: ThroughputTable;
  /** Seed of the job-type draws (a whole number >= 0; default 0). */
  seed?: number;
  /** Keep the jobs of this virtual cluster only (default: all). */
  cluster?: string;
  /** Jobs to skip at the start (in submission order, after the cluster filter; default 0). */
  skip?: number;
  /** Most jobs to keep (default: all). */
  limit?: number;
  /** Reference GPU type (default the table's: V100 in Gavel's). */
  referenceGpu?: string;
}

const HEADER = ['timestamp', 'duration', 'num_gpus', 'gpu_time', 'cluster'];
const TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Seconds since 1970 of a Philly timestamp (`2017-10-09 07:01:55`, UTC), or NaN. */
export function phillyTime(s: string): number {
  const m = TIME.exec(s.trim());
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
}

/** Reads Philly jobs from `file` (see the module comment). */
export function loadPhillyJobs(file: string, options: PhillyOptions): Workload {
  const { table } = options;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0) throw new InputError(`the Philly reader takes a whole seed >= 0, found ${seed}`, file);
  const ref = options.referenceGpu ?? table.referenceGpu();
  if (table.gpuTypeIndex(ref) < 0)
    throw new InputError(`reference GPU type ${JSON.stringify(ref)} is not in the throughput table (${table.gpuTypes.join(', ')})`, file);
  const rows: { t: number; duration: number; gpus: number; line: number }[] = [];
  const skipped: Record<string, number> = {};
  const count = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  let columns: number[] | undefined;
  for (const { text, lineNo } of readLines(file)) {
    if (text.trim() === '') continue;
    const f = text.split(',');
    const at = `${file}:${lineNo}`;
    if (columns === undefined) {
      columns = HEADER.map((h) => f.indexOf(h));
      const missing = HEADER.filter((_, i) => columns![i]! < 0 && HEADER[i] !== 'gpu_time');
      if (missing.length > 0) throw new InputError(`expected a header with ${HEADER.join(',')}; missing ${missing.join(', ')}`, at);
      continue;
    }
    if (options.cluster !== undefined && f[columns[4]!] !== options.cluster) continue;
    const t = phillyTime(f[columns[0]!] ?? '');
    const duration = Number(f[columns[1]!]);
    const gpus = Number(f[columns[2]!]);
    if (Number.isNaN(t)) throw new InputError(`timestamp: expected YYYY-MM-DD HH:MM:SS, found ${JSON.stringify(f[columns[0]!])}`, at);
    if (!Number.isFinite(duration)) throw new InputError(`duration: expected seconds, found ${JSON.stringify(f[columns[1]!])}`, at);
    if (!Number.isInteger(gpus) || gpus < 1) throw new InputError(`num_gpus: expected a whole number >= 1, found ${JSON.stringify(f[columns[2]!])}`, at);
    rows.push({ t, duration, gpus, line: lineNo });
  }
  if (columns === undefined) throw new InputError('empty file: expected a header and job rows', file);
  rows.sort((a, b) => a.t - b.t || a.line - b.line);
  const draw = jobTypeDraw(table);
  const rng = new PythonRandom(seed);
  const jobs: Job[] = [];
  const first = options.skip ?? 0;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let t0: number | undefined;
  let kept = 0;
  for (const r of rows) {
    if (jobs.length >= limit) break;
    if (r.duration <= 0) {
      count('duration<=0');
      continue;
    }
    if (!table.scales.includes(r.gpus) || (r.gpus > 1 && !draw.distributed.includes(true))) {
      count(`num_gpus=${r.gpus} (no rate in the throughput table)`);
      continue;
    }
    if (kept++ < first) continue;
    t0 ??= r.t;
    const jobType = drawJobType(rng, draw, r.gpus);
    const rate = table.throughput(jobType, ref, r.gpus);
    if (rate === undefined || !(rate > 0))
      throw new InputError(`job type ${JSON.stringify(jobType)} has no rate on ${r.gpus} ${ref} GPUs in the throughput table`, file);
    jobs.push(
      dlJob({ id: String(jobs.length), subtime: r.t - t0, gpus: r.gpus, jobType, steps: r.duration * rate, runtime: r.duration, source: `line ${r.line}` }),
    );
  }
  return { name: `philly${options.cluster ? `-${options.cluster}` : ''}`, jobs, skipped };
}
