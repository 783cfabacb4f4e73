/**
 * Measured throughputs of deep-learning job types (DESIGN §16): how many training steps per second a job
 * type runs on `n` GPUs of a type, its GPUs on one server (consolidated) or spread over several, alone or
 * sharing its GPUs with another job. The table is Gavel's `simulation_throughputs.json` (read at run time
 * from `../shared/data/gavel`, never copied; `data/gpu/throughputs-synthetic.json` is a small table of
 * invented numbers in the same format, made by `tools/gpu/makeThroughputFixture.ts`). Its shape:
 *
 * ```json
 * { "v100": { "('ResNet-50 (batch size 64)', 2)": { "null": 9.2, "('A3C', 2)": [4.1, 3.3], ... }, ... },
 *   "v100_unconsolidated": { "('ResNet-50 (batch size 64)', 2)": { "null": 7.7 }, ... }, ... }
 * ```
 *
 * a GPU type (`G_unconsolidated`: the same GPUs, spread over servers), then `(job type, GPU count)`, then
 * `"null"` (alone) or `(other job type, same GPU count)`: the two jobs' rates when they share the GPUs.
 *
 * **The model.** A job of type `J` running on `n` GPUs of type `G` progresses at
 *
 *     r = T[G][(J, n)]["null"]                  steps/s, its GPUs on one server (consolidated),
 *     r = T[G_unconsolidated][(J, n)]["null"]   steps/s, spread over two or more servers,
 *     r = T[G][(J, n)][(K, n)][0]               sharing its GPUs with a job of type K (K runs at [1]),
 *
 * and between two changes of placement it does `r * dt` steps; it is done when its steps are. So its
 * duration is `steps / r` where it runs, and a job that moves has `remaining = steps - sum r_k dt_k`.
 * A rate of 0 means it cannot run there (out of memory: Gavel's table has ResNet-50 at batch size 128 on
 * 2-8 K80s). A spread rate the table lacks (Gavel's has no spread K80 rate for ResNet-50 at batch size
 * 64 and 128) is taken as the consolidated one; a GPU count the table lacks (3, 16, ...) has no rate: the
 * readers never make such a job, and a placement cannot give one.
 */
import { resolve } from 'node:path';
import { InputError, jsonPath } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';
import { PACKAGE_ROOT } from '../core/paths.js';

/** Where Gavel's measured table is, beside the repository (third-party data, read at run time). */
export const GAVEL_THROUGHPUTS = resolve(PACKAGE_ROOT, '../shared/data/gavel/simulation_throughputs.json');
/** The synthetic fixture table of the repository (invented numbers). */
export const SYNTHETIC_THROUGHPUTS = resolve(PACKAGE_ROOT, 'data/gpu/throughputs-synthetic.json');

/** Suffix of a GPU type whose measurements are spread over servers. */
export const SPREAD_SUFFIX = '_unconsolidated';
/** The GPU type a DL job's nominal run time is measured on, when the table has it (Gavel's reference). */
export const REFERENCE_GPU = 'v100';

const KEY = /^\('(.+)', (\d+)\)$/;

/** A `(job type, GPU count)` key of the table, or undefined if `key` is not one. */
export function parseJobKey(key: string): { jobType: string; gpus: number } | undefined {
  const m = KEY.exec(key);
  return m ? { jobType: m[1]!, gpus: Number(m[2]) } : undefined;
}

/** The table's key of `(jobType, gpus)`. */
export function jobKey(jobType: string, gpus: number): string {
  return `('${jobType}', ${gpus})`;
}

/** A throughput table, compiled to dense arrays (see the module comment). */
export class ThroughputTable {
  /** Job types, in order of first appearance. */
  readonly jobTypes: readonly string[];
  /** GPU types (without the spread suffix), in order of first appearance. */
  readonly gpuTypes: readonly string[];
  /** GPU counts measured, ascending. */
  readonly scales: readonly number[];
  /** Isolated rates, `[((job * S + scale) * G + gpu) * 2 + spread]`; NaN: not measured. */
  private readonly iso: Float64Array;
  /** Co-located rates of the first job, `[((job * J + other) * S + scale) * G + gpu]`; NaN: not measured. */
  private readonly coSelf: Float64Array;
  private readonly coOther: Float64Array;
  private readonly jobIndex: Map<string, number>;

  constructor(
    jobTypes: readonly string[],
    gpuTypes: readonly string[],
    scales: readonly number[],
    iso: Float64Array,
    coSelf: Float64Array,
    coOther: Float64Array,
  ) {
    this.jobTypes = jobTypes;
    this.gpuTypes = gpuTypes;
    this.scales = scales;
    this.iso = iso;
    this.coSelf = coSelf;
    this.coOther = coOther;
    this.jobIndex = new Map(jobTypes.map((t, i) => [t, i]));
  }

  /** Index of a job type, or -1. */
  jobTypeIndex(name: string): number {
    return this.jobIndex.get(name) ?? -1;
  }

  /** Index of a GPU type, or -1. */
  gpuTypeIndex(name: string): number {
    return this.gpuTypes.indexOf(name);
  }

  /** Index of a GPU count in `scales`, or -1. */
  scaleIndex(gpus: number): number {
    return this.scales.indexOf(gpus);
  }

  /**
   * Steps/s of job type `job` alone on the `scale`-th GPU count of GPU type `gpu` (indices), spread over
   * servers or not; NaN when not measured (a spread rate falls back to the consolidated one).
   */
  rateAt(job: number, gpu: number, scale: number, spread: boolean): number {
    const i = ((job * this.scales.length + scale) * this.gpuTypes.length + gpu) * 2;
    if (!spread) return this.iso[i]!;
    const r = this.iso[i + 1]!;
    return Number.isNaN(r) ? this.iso[i]! : r;
  }

  /** Steps/s of `jobType` alone on `gpus` GPUs of `gpuType` (spread over servers or not), or undefined if not measured. */
  throughput(jobType: string, gpuType: string, gpus: number, spread = false): number | undefined {
    const j = this.jobTypeIndex(jobType);
    const g = this.gpuTypeIndex(gpuType);
    const s = this.scaleIndex(gpus);
    if (j < 0 || g < 0 || s < 0) return undefined;
    const r = this.rateAt(j, g, s, spread);
    return Number.isNaN(r) ? undefined : r;
  }

  /**
   * Steps/s of `jobType` and of `other` when they share `gpus` GPUs of `gpuType` (Gavel's space sharing:
   * both consolidated on the same GPUs), or undefined if not measured.
   */
  colocated(jobType: string, other: string, gpuType: string, gpus: number): readonly [number, number] | undefined {
    const j = this.jobTypeIndex(jobType);
    const k = this.jobTypeIndex(other);
    const g = this.gpuTypeIndex(gpuType);
    const s = this.scaleIndex(gpus);
    if (j < 0 || k < 0 || g < 0 || s < 0) return undefined;
    const i = ((j * this.jobTypes.length + k) * this.scales.length + s) * this.gpuTypes.length + g;
    const a = this.coSelf[i]!;
    return Number.isNaN(a) ? undefined : [a, this.coOther[i]!];
  }

  /** The GPU counts at which `jobType` has a rate on GPU type `gpuType` (alone, consolidated). */
  measuredScales(jobType: string, gpuType: string): number[] {
    return this.scales.filter((n) => this.throughput(jobType, gpuType, n) !== undefined);
  }

  /** The GPU type DL jobs' nominal run times are measured on: `REFERENCE_GPU` when the table has it, else its first. */
  referenceGpu(): string {
    return this.gpuTypes.includes(REFERENCE_GPU) ? REFERENCE_GPU : this.gpuTypes[0]!;
  }
}

/** Seconds `steps` steps take at `rate` steps/s (Infinity at rate 0). */
export function dlDuration(steps: number, rate: number): number {
  return rate > 0 ? steps / rate : Number.POSITIVE_INFINITY;
}

/**
 * Parses a throughput table already read from `where` (see the module comment). Errors name the JSON path
 * and what was expected.
 */
export function parseThroughputTable(data: unknown, where: string): ThroughputTable {
  const fail = (path: (string | number)[], msg: string): never => {
    throw new InputError(`${jsonPath(path)}: ${msg}`, where);
  };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) fail([], 'expected an object of GPU types');
  const top = data as Record<string, unknown>;
  const gpuTypes: string[] = [];
  const jobTypes: string[] = [];
  const scales = new Set<number>();
  const jobSeen = new Map<string, number>();
  type Entry = { gpu: string; spread: boolean; jobType: string; gpus: number; value: Record<string, unknown>; path: string[] };
  const entries: Entry[] = [];
  for (const [gkey, byJob] of Object.entries(top)) {
    const spread = gkey.endsWith(SPREAD_SUFFIX);
    const gpu = spread ? gkey.slice(0, -SPREAD_SUFFIX.length) : gkey;
    if (gpu === '') fail([gkey], 'expected a GPU type name');
    if (!gpuTypes.includes(gpu)) gpuTypes.push(gpu);
    if (byJob === null || typeof byJob !== 'object' || Array.isArray(byJob)) fail([gkey], 'expected an object of "(job type, GPU count)" keys');
    for (const [jkey, value] of Object.entries(byJob as Record<string, unknown>)) {
      const k = parseJobKey(jkey);
      if (!k || k.gpus < 1) fail([gkey, jkey], `expected a key "('job type', GPU count)", found ${JSON.stringify(jkey)}`);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) fail([gkey, jkey], 'expected an object with "null" (the rate alone)');
      if (!jobSeen.has(k!.jobType)) {
        jobSeen.set(k!.jobType, jobTypes.length);
        jobTypes.push(k!.jobType);
      }
      scales.add(k!.gpus);
      entries.push({ gpu, spread, jobType: k!.jobType, gpus: k!.gpus, value: value as Record<string, unknown>, path: [gkey, jkey] });
    }
  }
  if (gpuTypes.length === 0) fail([], 'expected at least one GPU type');
  for (const g of gpuTypes)
    if (!(g in top))
      fail([`${g}${SPREAD_SUFFIX}`], `spread rates of GPU type ${JSON.stringify(g)} without its consolidated rates (a key ${JSON.stringify(g)})`);
  const scaleList = [...scales].sort((a, b) => a - b);
  const J = jobTypes.length;
  const S = scaleList.length;
  const G = gpuTypes.length;
  const iso = new Float64Array(J * S * G * 2).fill(Number.NaN);
  const coSelf = new Float64Array(J * J * S * G).fill(Number.NaN);
  const coOther = new Float64Array(J * J * S * G).fill(Number.NaN);
  const rate = (v: unknown, path: (string | number)[]): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(path, `expected a rate (steps/s, >= 0), found ${JSON.stringify(v)}`);
    return v as number;
  };
  for (const e of entries) {
    const j = jobSeen.get(e.jobType)!;
    const s = scaleList.indexOf(e.gpus);
    const g = gpuTypes.indexOf(e.gpu);
    if (!('null' in e.value)) fail(e.path, 'expected "null": the rate of the job type alone');
    iso[((j * S + s) * G + g) * 2 + (e.spread ? 1 : 0)] = rate(e.value.null, [...e.path, 'null']);
    if (e.spread) continue;
    for (const [okey, pair] of Object.entries(e.value)) {
      if (okey === 'null') continue;
      const o = parseJobKey(okey);
      const p = [...e.path, okey];
      if (!o) fail(p, `expected "null" or a key "('job type', GPU count)", found ${JSON.stringify(okey)}`);
      if (o!.gpus !== e.gpus) fail(p, `a co-located pair shares the same GPUs: expected GPU count ${e.gpus}, found ${o!.gpus}`);
      const k = jobSeen.get(o!.jobType);
      if (k === undefined) fail(p, `unknown job type ${JSON.stringify(o!.jobType)} (no rate of its own in the table)`);
      if (!Array.isArray(pair) || pair.length !== 2) fail(p, `expected [rate of ${JSON.stringify(e.jobType)}, rate of ${JSON.stringify(o!.jobType)}]`);
      const i = ((j * J + k!) * S + s) * G + g;
      coSelf[i] = rate((pair as unknown[])[0], [...p, 0]);
      coOther[i] = rate((pair as unknown[])[1], [...p, 1]);
    }
  }
  return new ThroughputTable(jobTypes, gpuTypes, scaleList, iso, coSelf, coOther);
}

/** Reads a throughput table file (JSON). */
export function loadThroughputTable(file: string): ThroughputTable {
  return parseThroughputTable(readJsonFile(file), file);
}
