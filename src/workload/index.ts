/**
 * Workload files (DESIGN §3): one entry point that recognises the format, and the writer of the
 * native JSON format used by `clustergym convert`.
 *
 * Format detection (`format: 'auto'`, the default): a `.swf` file is SWF; a `.json` file, or any file
 * whose first non-blank character is `{`, is JSON; any other file is read as SWF. A JSON workload is
 * Batsim when a profile's `type` is a string other than `seq`/`mpi` (Batsim profiles carry a type such
 * as `delay` or `parallel_homogeneous`; native/IRMaSim profiles carry `req_ops`/`runtime` and at most a
 * job type). IRMaSim files carry Batsim's `nb_res` too, so `nb_res` only decides (Batsim) when no
 * profile or job has native work fields. Everything else is native/IRMaSim.
 *
 * `writeNativeWorkload` turns any `Workload` into a native JSON object that `parseNativeWorkload` loads
 * back into the same jobs (every field but `source`, which names where a job comes from). Jobs that
 * share a source profile whose fields agree are written against a shared native profile (with inline
 * overrides for what differs); the others carry their fields inline. Facets are written inline
 * (`facets.ts`); a job with the `malleable` facet is written without its runtime (its steps are its work).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { InputError } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';
import { isBatsimWorkload, parseBatsimWorkload, type BatsimOptions } from './batsim.js';
import { writeFacets } from './facets.js';
import type { Job, Workload } from './job.js';
import { parseNativeWorkload } from './nativeJson.js';
import { loadSwf, SwfReader, type SwfOptions } from './swf.js';

export * from './dlThroughput.js';
export * from './gavel.js';
export * from './gpuRequest.js';
export * from './job.js';
export * from './malleability.js';
export { parseNativeWorkload, NativeWorkloadSchema } from './nativeJson.js';
export * from './swf.js';
export * from './batsim.js';
export * from './generators.js';
export * from './philly.js';
export * from './trajectory.js';

/** A workload file format. */
export type WorkloadFormat = 'swf' | 'batsim' | 'native';

/** Options of `loadWorkload`. */
export interface LoadWorkloadOptions {
  /** Force a format instead of detecting it. */
  format?: WorkloadFormat | 'auto';
  /** Options of the SWF reader. */
  swf?: SwfOptions;
  /** Options of the Batsim reader. */
  batsim?: BatsimOptions;
  /** Name of the workload (default: the file's base name). */
  name?: string;
}

function firstNonBlankByte(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`, file);
  }
  try {
    const buf = Buffer.alloc(4096);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) return null;
      for (let i = 0; i < n; i++) {
        const c = buf[i]!;
        if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 0xef && c !== 0xbb && c !== 0xbf) return c;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether a file is SWF or JSON, from its extension or else its first non-blank character. */
export function detectFileKind(file: string): 'swf' | 'json' {
  const ext = extname(file).toLowerCase();
  if (ext === '.swf') return 'swf';
  if (ext === '.json') return 'json';
  return firstNonBlankByte(file) === 0x7b ? 'json' : 'swf';
}

/** The format of a parsed JSON workload: `batsim` or `native`. */
export function detectJsonFormat(data: unknown): 'batsim' | 'native' {
  return isBatsimWorkload(data) ? 'batsim' : 'native';
}

/** The format of a workload file. */
export function detectFormat(file: string): WorkloadFormat {
  return detectFileKind(file) === 'swf' ? 'swf' : detectJsonFormat(readJsonFile(file));
}

/** Loads a workload file of any supported format (SWF, Batsim JSON, native/IRMaSim JSON). */
export function loadWorkload(file: string, options: LoadWorkloadOptions = {}): Workload {
  const name = options.name ?? basename(file);
  const format = options.format ?? 'auto';
  if (format === 'swf' || (format === 'auto' && detectFileKind(file) === 'swf')) return loadSwf(file, options.swf ?? {}, name);
  const data = readJsonFile(file);
  const kind = format === 'auto' ? detectJsonFormat(data) : format;
  if (kind === 'batsim') return parseBatsimWorkload(data, file, options.batsim ?? {}, name);
  const w = parseNativeWorkload(data, file, name);
  const maxProcs = (data as { max_procs?: unknown }).max_procs;
  if (typeof maxProcs === 'number' && Number.isInteger(maxProcs) && maxProcs > 0) w.maxProcs = maxProcs;
  return w;
}

/**
 * The jobs of a workload file as a stream: SWF files are read job by job (never held whole); JSON
 * files are loaded, then iterated.
 */
export function streamWorkload(file: string, options: LoadWorkloadOptions = {}): Iterable<Job> {
  const format = options.format ?? 'auto';
  if (format === 'swf' || (format === 'auto' && detectFileKind(file) === 'swf')) return new SwfReader(file, options.swf ?? {});
  return loadWorkload(file, options).jobs;
}

/** A native workload file as written by `writeNativeWorkload` (read back by `parseNativeWorkload`). */
export interface NativeWorkloadJson {
  name: string;
  /** Processors of the source machine, when known (informational; `loadWorkload` restores it). */
  max_procs?: number;
  /** Jobs the source reader skipped, by reason (informational). */
  skipped?: Record<string, number>;
  jobs: Record<string, unknown>[];
  profiles: Record<string, Record<string, unknown>>;
}

/** Defaults of the native reader, written explicitly when a job must override its profile with them. */
const FIELD_DEFAULTS: Record<string, unknown> = { mem: 0, mem_vol: 0, comm_vol: 0, t_compute: 1 };

/** The work fields of a job, in native JSON (the part a native profile can hold). */
function workFields(job: Job): Record<string, unknown> {
  const w: Record<string, unknown> = { type: job.type };
  const ops = job.work === 'ops';
  // a job with the malleable facet: its work is its steps (the facet), its runtime follows from them
  if (!job.malleable && (ops ? job.ops !== 0 || !job.tasks : job.runtime !== 0 || !job.tasks)) {
    if (ops) w['req_ops'] = job.ops;
    else w['runtime'] = job.runtime;
  }
  if (job.tasks)
    w['tasks'] = job.tasks.map((t) => {
      const o: Record<string, unknown> = ops ? { req_ops: t.ops } : { runtime: t.runtime };
      if (t.mem !== job.mem) o['mem'] = t.mem;
      if (t.memVol !== job.memVol) o['mem_vol'] = t.memVol;
      return o;
    });
  w['req_time'] = job.reqTime;
  if (job.mem !== 0) w['mem'] = job.mem;
  // always for the ops model: a profile without mem_vol would read back as IRMaSim's default of 1 MB
  if (job.memVol !== 0 || ops) w['mem_vol'] = job.memVol;
  if (job.type === 'mpi') {
    if (job.commVol !== 0) w['comm_vol'] = job.commVol;
    if (job.tCompute !== 1) w['t_compute'] = job.tCompute;
  }
  return w;
}

/** The shape fields of a job (`res` for seq; `ntasks` [+ `nodes`, `ntasks_per_node`] for mpi). */
function shapeFields(job: Job): Record<string, unknown> {
  if (job.type === 'seq') return { res: job.ntasks };
  const s: Record<string, unknown> = { ntasks: job.ntasks };
  if (job.nodes > 0) {
    s['nodes'] = job.nodes;
    if (job.ntasksPerNode > 0) s['ntasks_per_node'] = job.ntasksPerNode;
  }
  return s;
}

/** `job`'s fields that differ from `profile`, or null when the job cannot be expressed against it. */
function overrides(w: Record<string, unknown>, profile: Record<string, unknown>): Record<string, unknown> | null {
  const modelOf = (o: Record<string, unknown>) => ('req_ops' in o ? 'ops' : 'runtime' in o ? 'delay' : 'tasks');
  if (modelOf(w) !== modelOf(profile) || 'tasks' in w !== 'tasks' in profile) return null;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(w)) if (JSON.stringify(v) !== JSON.stringify(profile[k])) o[k] = v;
  for (const k of Object.keys(profile)) {
    if (k in w) continue;
    if (!(k in FIELD_DEFAULTS)) return null;
    o[k] = FIELD_DEFAULTS[k];
  }
  return o;
}

/**
 * Converts a workload into a native JSON object (for `clustergym convert`: SWF/Batsim -> native).
 * `parseNativeWorkload` of the result gives the same jobs (all fields but `source`).
 */
export function writeNativeWorkload(workload: Workload): NativeWorkloadJson {
  const profiles: Record<string, Record<string, unknown>> = {};
  const jobs = workload.jobs.map((job) => {
    const head: Record<string, unknown> = { id: job.id, subtime: job.subtime, ...shapeFields(job) };
    const w = workFields(job);
    const facets = writeFacets(job);
    if (job.profile !== undefined) {
      profiles[job.profile] ??= w;
      const p = profiles[job.profile] ?? w;
      const o = overrides(w, p);
      if (o) return { ...head, profile: job.profile, ...o, ...facets };
    }
    return { ...head, ...w, ...facets };
  });
  const out: NativeWorkloadJson = { name: workload.name, jobs, profiles };
  if (workload.maxProcs !== undefined) out.max_procs = workload.maxProcs;
  if (Object.keys(workload.skipped).length > 0) out.skipped = { ...workload.skipped };
  return out;
}
