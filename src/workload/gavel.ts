/**
 * Gavel's workloads (Narayanan et al., OSDI'20; github.com/stanford-futuredata/gavel, its behaviour
 * matched, not its code): its trace files and its synthetic job generator, producing the one `Job` with
 * the `gpus` facet (`gpuRequest.ts`): a deep-learning job of `steps` steps of a job type of the throughput
 * table (`dlThroughput.ts`) on `scale_factor` GPUs, whose `runtime` is its run time on the reference GPU
 * type (V100 in Gavel's table: `steps / rate`).
 *
 * **Traces** (tab-separated, one job a line; jobs numbered from 0 in file order):
 * - 10 fields: `job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
 *   scale_factor, priority_weight, SLO, arrival_time` (`artifact_evaluation.trace`);
 * - 7 fields, the older layout: `job_type, command, num_steps_arg, needs_data_dir, total_steps,
 *   arrival_time, scale_factor` (the Philly-derived `msr-*.trace`).
 * `command`, `working_directory`, `num_steps_arg`, `needs_data_dir` and `SLO` are read and dropped;
 * `priority_weight` is the facet's `weight` (1 in the 7-field layout). A job whose type the table has no
 * rate for on its GPU count is skipped and counted (`Workload.skipped`): 15 of the 72 multi-GPU jobs of
 * `msr-seed0-6214e9.trace` are of types Gavel's table measures on one GPU only (e.g. Recommendation on 4),
 * which suggests that Gavel's Philly conversion drew job types without its generator's restriction; its
 * own simulator has no rate for them either.
 *
 * **Generator** (Gavel's `generate_job` and its simulator's arrivals), draw for draw with CPython's
 * generator (`PythonRandom`), so that seed `s` gives the jobs of Gavel's run with seed `s`: job draws come
 * from `random.Random(s + 2)`, arrivals from `random.Random(s + 3)`. Per job, in this order:
 * 1. GPUs (`r = uniform(0, 1)`): 2 if `0.7 <= r <= 0.8`, 4 if `0.8 <= r <= 0.95`, 8 if `0.95 <= r`, else 1
 *    (p 0.70 / 0.10 / 0.15 / 0.05; drawn even when multi-GPU jobs are off, then set to 1);
 * 2. run time on the reference GPU, s: `60 * 10^uniform(3, 4)` if `random() >= 0.8`, else
 *    `60 * 10^uniform(1.5, 3)` (or `fixedDuration`);
 * 3. job type: `choice(job types)` until the type runs on that many GPUs (`distributed`: it has a rate at
 *    2 GPUs); Gavel's table is ordered as its job table (ResNet-18, ResNet-50, Transformer, LM,
 *    Recommendation, A3C, CycleGAN; batch sizes ascending), another table keeps its own order;
 * 4. steps = run time x the reference rate of (type, GPUs);
 * 5. with multi-priority jobs: weight 5 if `uniform(0, 1) <= 0.2`, else 1.
 * The first job arrives at 0, the next ones after `-ln(1 - random()) * lam` s (`lam = 3600 /
 * arrivalsPerHour`): Poisson arrivals.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { readLines } from '../core/lines.js';
import { PythonRandom } from '../core/rng.js';
import type { ThroughputTable } from './dlThroughput.js';
import { type Job, makeJob, sortBySubmission, type Workload } from './job.js';

/**
 * A deep-learning job as the Gavel and Philly readers make it: `gpus` GPUs in total (one task per GPU,
 * placed anywhere: one server or several), `steps` steps of `jobType`, and `runtime` its run time on the
 * reference GPU type (what an engine without the DL progress model runs; also its `reqTime`).
 */
export function dlJob(f: { id: string; subtime: number; gpus: number; jobType: string; steps: number; runtime: number; weight?: number; source: string }): Job {
  return makeJob({
    id: f.id,
    subtime: f.subtime,
    ntasks: f.gpus,
    type: 'mpi',
    work: 'delay',
    runtime: f.runtime,
    reqTime: f.runtime,
    source: f.source,
    gpus: { count: f.gpus, perNode: false, weight: f.weight ?? 1, dl: { jobType: f.jobType, steps: f.steps } },
  });
}

/** Gavel's job table's model families, in its order (its job types are these with batch sizes ascending). */
const GAVEL_FAMILIES = ['ResNet-18', 'ResNet-50', 'Transformer', 'LM', 'Recommendation', 'A3C', 'CycleGAN'];

function familyOf(jobType: string): { family: number; batch: number } {
  const m = /^(.*?)(?: \(batch size (\d+)\))?$/.exec(jobType)!;
  return { family: GAVEL_FAMILIES.indexOf(m[1]!), batch: m[2] === undefined ? 0 : Number(m[2]) };
}

/** The job types a generator draws from, in draw order, and which of them run on several GPUs. */
export interface JobTypeDraw {
  readonly order: readonly string[];
  /** Per type of `order`: it has a rate on 2 GPUs of the reference type. */
  readonly distributed: readonly boolean[];
}

/** The draw order of `table`'s job types (Gavel's job-table order for Gavel's types; else the table's) and their `distributed` flags. */
export function jobTypeDraw(table: ThroughputTable): JobTypeDraw {
  const types = [...table.jobTypes];
  const keys = types.map(familyOf);
  if (keys.every((k) => k.family >= 0)) {
    const idx = types.map((_, i) => i).sort((a, b) => keys[a]!.family - keys[b]!.family || keys[a]!.batch - keys[b]!.batch);
    types.splice(0, types.length, ...idx.map((i) => table.jobTypes[i]!));
  }
  const ref = table.referenceGpu();
  return { order: types, distributed: types.map((t) => (table.throughput(t, ref, 2) ?? 0) > 0) };
}

/** Gavel's draw of a job type for a job of `gpus` GPUs: `choice(order)` until the type runs on that many. */
export function drawJobType(rng: PythonRandom, draw: JobTypeDraw, gpus: number): string {
  if (gpus > 1 && !draw.distributed.includes(true)) throw new InputError(`no job type of the throughput table runs on ${gpus} GPUs`);
  for (;;) {
    const i = rng.int(draw.order.length);
    if (gpus === 1 || draw.distributed[i]) return draw.order[i]!;
  }
}

/** The rate a DL job's nominal run time is measured at: the reference GPU type, else the fastest type that runs it. */
function referenceRate(table: ThroughputTable, jobType: string, gpus: number, reference: string): number {
  const r = table.throughput(jobType, reference, gpus);
  if (r !== undefined && r > 0) return r;
  let best = 0;
  for (const g of table.gpuTypes) best = Math.max(best, table.throughput(jobType, g, gpus) ?? 0);
  return best;
}

/** Options of the trace reader. */
export interface GavelTraceOptions {
  /** The throughput table (job types, and the reference rate that gives each job's `runtime`). */
  table: ThroughputTable;
  /** The reference GPU type (default the table's: V100 when it has it). */
  referenceGpu?: string;
  /** The workload's name (default the file's). */
  name?: string;
}

/** Reads a Gavel trace (10- or 7-field layout, see the module comment), line by line. */
export function loadGavelTrace(file: string, options: GavelTraceOptions): Workload {
  return gavelTraceWorkload(readLines(file), file, options);
}

/** Parses the text of a Gavel trace (`where` names it in errors). */
export function parseGavelTrace(text: string, where: string, options: GavelTraceOptions): Workload {
  return gavelTraceWorkload(
    text.split('\n').map((t, i) => ({ text: t.endsWith('\r') ? t.slice(0, -1) : t, lineNo: i + 1 })),
    where,
    options,
  );
}

function gavelTraceWorkload(lines: Iterable<{ text: string; lineNo: number }>, where: string, options: GavelTraceOptions): Workload {
  const { table } = options;
  const ref = options.referenceGpu ?? table.referenceGpu();
  if (table.gpuTypeIndex(ref) < 0)
    throw new InputError(`reference GPU type ${JSON.stringify(ref)} is not in the throughput table (${table.gpuTypes.join(', ')})`, where);
  const jobs: Job[] = [];
  const skipped: Record<string, number> = {};
  let layout = 0;
  let n = 0;
  for (const { text, lineNo } of lines) {
    if (text.trim() === '') continue;
    const at = `${where}:${lineNo}`;
    const f = text.split('\t');
    if (f.length !== 10 && f.length !== 7)
      throw new InputError(`expected 10 tab-separated fields (Gavel's trace) or 7 (its older layout), found ${f.length}`, at);
    if (layout === 0) layout = f.length;
    else if (f.length !== layout) throw new InputError(`expected ${layout} fields as the lines before, found ${f.length}`, at);
    const number = (i: number, name: string, check: (x: number) => boolean, expected: string): number => {
      const x = Number(f[i]!.trim());
      if (f[i]!.trim() === '' || !Number.isFinite(x) || !check(x))
        throw new InputError(`field ${i + 1} (${name}): expected ${expected}, found ${JSON.stringify(f[i])}`, at);
      return x;
    };
    const long = f.length === 10;
    n++;
    const jobType = f[0]!;
    const steps = number(long ? 5 : 4, 'total_steps', (x) => x > 0, 'a number of steps > 0');
    const gpus = number(long ? 6 : 6, 'scale_factor', (x) => Number.isInteger(x) && x >= 1, 'a whole number of GPUs >= 1');
    const weight = long ? number(7, 'priority_weight', (x) => x > 0, 'a weight > 0') : 1;
    const arrival = number(long ? 9 : 5, 'arrival_time', (x) => x >= 0, 'seconds >= 0');
    if (table.jobTypeIndex(jobType) < 0)
      throw new InputError(
        `field 1 (job_type): ${JSON.stringify(jobType)} is not a job type of the throughput table (${table.jobTypes.length} types, e.g. ${JSON.stringify(table.jobTypes[0])})`,
        at,
      );
    const rate = referenceRate(table, jobType, gpus, ref);
    if (!(rate > 0)) {
      const reason = `no rate for ${jobType} on ${gpus} GPUs`;
      skipped[reason] = (skipped[reason] ?? 0) + 1;
      continue;
    }
    jobs.push(dlJob({ id: String(n - 1), subtime: arrival, gpus, jobType, steps, runtime: steps / rate, weight, source: `line ${lineNo}` }));
  }
  return { name: options.name ?? where.replace(/^.*\//, ''), jobs: sortBySubmission(jobs), skipped };
}

/** Configuration of Gavel's generator. */
export const GavelGeneratorSchema = z
  .object({
    /** Number of jobs. */
    jobs: z.number().int().positive(),
    /** Mean arrival rate, jobs per hour (Gavel's sweeps' "input job rate"); 0: every job at time 0. */
    arrivalsPerHour: z.number().finite().nonnegative(),
    /** Jobs of 1, 2, 4, 8 GPUs (Gavel's `--generate-multi-gpu-jobs`); false: every job on one GPU. */
    multiGpu: z.boolean().default(true),
    /** 20 % of jobs of weight 5 (Gavel's `--generate-multi-priority-jobs`). */
    multiPriority: z.boolean().default(false),
    /** Every job's run time on the reference GPU, s (Gavel's `fixed_job_duration`); absent: drawn. */
    fixedDuration: z.number().finite().positive().optional(),
    /** Reference GPU type (default the table's: V100 in Gavel's). */
    referenceGpu: z.string().min(1).optional(),
  })
  .strict();

/** A generator configuration as given. */
export type GavelGeneratorConfig = z.input<typeof GavelGeneratorSchema>;

/**
 * Streams the jobs of Gavel's generator (see the module comment) with seed `seed` (a whole number >= 0)
 * on `table`. Job ids are `"0"`, `"1"`, ... in arrival order, as Gavel numbers them.
 */
export function* gavelJobs(
  config: GavelGeneratorConfig,
  seed: number,
  table: ThroughputTable,
  where = 'gavel generator config',
): Generator<Job, void, undefined> {
  const r = GavelGeneratorSchema.safeParse(config);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const c = r.data;
  if (!Number.isInteger(seed) || seed < 0) throw new InputError(`Gavel's generator takes a whole seed >= 0 (CPython's random.seed), found ${seed}`, where);
  const ref = c.referenceGpu ?? table.referenceGpu();
  if (table.gpuTypeIndex(ref) < 0)
    throw new InputError(`referenceGpu: ${JSON.stringify(ref)} is not in the throughput table (${table.gpuTypes.join(', ')})`, where);
  const draw = jobTypeDraw(table);
  const jobRng = new PythonRandom(seed + 2);
  const arrivalRng = new PythonRandom(seed + 3);
  const lam = c.arrivalsPerHour === 0 ? 0 : 3600 / c.arrivalsPerHour;
  let arrival = 0;
  for (let i = 0; i < c.jobs; i++) {
    const u = jobRng.uniform(0, 1);
    let gpus = 1;
    if (u >= 0.7 && u <= 0.8) gpus = 2;
    else if (u >= 0.8 && u <= 0.95) gpus = 4;
    else if (u >= 0.95) gpus = 8;
    let runtime: number;
    if (c.fixedDuration !== undefined) runtime = c.fixedDuration;
    else if (jobRng.next() >= 0.8) runtime = 60 * 10 ** jobRng.uniform(3, 4);
    else runtime = 60 * 10 ** jobRng.uniform(1.5, 3);
    if (!c.multiGpu) gpus = 1;
    const jobType = drawJobType(jobRng, draw, gpus);
    const rate = table.throughput(jobType, ref, gpus);
    if (rate === undefined || !(rate > 0))
      throw new InputError(`job type ${JSON.stringify(jobType)} has no rate on ${gpus} ${ref} GPUs in the throughput table`, where);
    let weight = 1;
    if (c.multiPriority && jobRng.uniform(0, 1) <= 0.2) weight = 5;
    yield dlJob({ id: String(i), subtime: arrival, gpus, jobType, steps: runtime * rate, runtime, weight, source: `gavel[${i}]` });
    if (lam > 0) arrival += -Math.log(1.0 - arrivalRng.next()) / (1.0 / lam);
  }
}

/** Gavel's generator's workload (`gavelJobs`, collected). */
export function generateGavel(config: GavelGeneratorConfig, seed: number, table: ThroughputTable, where?: string): Workload {
  return { name: `gavel(seed=${seed})`, jobs: [...gavelJobs(config, seed, table, where)], skipped: {} };
}
