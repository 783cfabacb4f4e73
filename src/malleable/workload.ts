/**
 * Malleable workloads: the JSON format (read with zod, errors with their JSON path) and the
 * paper's workload generator (seed 002 §7.1, §7.5, Table 3).
 *
 * ```json
 * { "nodes": 64,
 *   "apps": { "stencil": { "t1": 0.4, "serial": 0.05 } },
 *   "jobs": [
 *     { "id": "a", "subtime": 0,  "app": "cg", "steps": 10000,
 *       "malleable": { "min": 2, "max": 32, "pref": 8, "factor": 2, "inhibit": 15 } },
 *     { "id": "b", "subtime": 12, "app": "stencil", "steps": 500, "nodes": 4 } ] }
 * ```
 *
 * `apps` adds speed-up models (`d(n) = t1 * (serial + (1 - serial) / n)`, see model.ts) to the
 * built-in `cg`, `jacobi` and `nbody` derived from the paper. A job is rigid with `nodes`, or
 * malleable with `malleable` (submitted at `max`; `pref` is optional, `factor` defaults to 2, `inhibit` to 0; `nodes`,
 * if also given, must equal `max`). `nodes` (top level) defaults to 64, the paper's platform.
 *
 * The paper's workload (`paperWorkload`): `n` jobs of CG, Jacobi and N-body in equal shares
 * (`n / 3` each, the remainder to the first applications), randomly sorted, with Table 3's
 * parameters; exponential inter-arrival times of mean 10 s ("a Poisson distribution of factor
 * 10", §7.1), the first job at 0. `rigid: true` gives the fixed workload: the same jobs at `max`.
 *
 * **As a native workload** (`malleableJobs`, what `clustergym convert` writes): each job becomes a job
 * with the `malleable` facet (`src/workload/malleability.ts`: its limits, or none for a rigid job, its
 * steps and its application's speed-up model written out), on exactly `nodes` nodes (`max` for a
 * malleable job) with one task per node, whose `runtime` and `req_time` are its run time at that size;
 * `max_procs` is the platform's node count (a homogeneous platform of that many one-core nodes).
 * `malleableWorkloadOf` reads such a workload back into the engine's jobs (the same jobs).
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath, unknownKeys } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';
import { derive } from '../core/rng.js';
import type { Job, Workload } from '../workload/job.js';
import { type MalleableWork, nominalRuntime } from '../workload/malleability.js';
import { type AppModel, type MJob, type MWorkload, PAPER_APPS, type PaperApp, paperSpec, specProblem, TABLE3 } from './model.js';

const pos = z.number().finite().positive();
const count = z.number().int().positive();

const SpecSchema = z
  .object({
    min: count,
    max: count,
    pref: count.nullable().default(null),
    factor: z.number().int().min(2).default(2),
    inhibit: z.number().finite().nonnegative().default(0),
  })
  .strict();

const AppSchema = z.object({ t1: pos, serial: z.number().min(0).max(1) }).strict();

const JobSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    subtime: z.number().finite().nonnegative(),
    app: z.string().min(1),
    steps: count,
    nodes: count.optional(),
    malleable: SpecSchema.optional(),
  })
  .strict();

/** The malleable workload file. */
export const MalleableWorkloadSchema = z
  .object({
    nodes: count.default(64),
    apps: z.record(AppSchema).default({}),
    jobs: z.array(JobSchema),
  })
  .strict();

function fail(where: string, path: (string | number)[], message: string): never {
  throw new InputError(`${jsonPath(path)}: ${message}`, where);
}

/** Validates a parsed malleable workload (`where` names it in errors) and builds the jobs. */
export function parseMalleableWorkload(raw: unknown, where = 'workload'): MWorkload {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const bad = unknownKeys(raw as Record<string, unknown>, ['nodes', 'apps', 'jobs']);
    if (bad[0]) fail(where, [bad[0].key], `${bad[0].message}; expected one of nodes, apps, jobs`);
  }
  const parsed = MalleableWorkloadSchema.safeParse(raw);
  if (!parsed.success) throw inputErrorFromIssues(where, parsed.error.issues);
  const w = parsed.data;
  const apps = new Map<string, AppModel>(Object.entries(PAPER_APPS));
  for (const [name, a] of Object.entries(w.apps)) apps.set(name, { name, t1: a.t1, serial: a.serial });
  const ids = new Set<string>();
  const jobs: MJob[] = w.jobs.map((j, i) => {
    const path = ['jobs', i];
    const id = j.id === undefined ? `job${i}` : String(j.id);
    if (ids.has(id)) fail(where, [...path, 'id'], `duplicate job id ${JSON.stringify(id)}`);
    ids.add(id);
    const app = apps.get(j.app);
    if (!app) fail(where, [...path, 'app'], `unknown application ${JSON.stringify(j.app)}; expected one of ${[...apps.keys()].join(', ')}`);
    if (j.malleable) {
      const problem = specProblem(j.malleable);
      if (problem) fail(where, [...path, 'malleable'], problem);
      if (j.nodes !== undefined && j.nodes !== j.malleable.max)
        fail(where, [...path, 'nodes'], `a malleable job is submitted at max (${j.malleable.max}); found nodes ${j.nodes}`);
    } else if (j.nodes === undefined) fail(where, path, 'a job needs `nodes` (rigid) or `malleable` ({min, max, pref, factor, inhibit})');
    const nodes = j.malleable ? j.malleable.max : j.nodes!;
    if (nodes > w.nodes) fail(where, [...path, j.malleable ? 'malleable' : 'nodes'], `the job needs ${nodes} nodes, the platform has ${w.nodes}`);
    return { id, subtime: j.subtime, app, steps: j.steps, nodes, malleable: j.malleable ? { ...j.malleable } : null };
  });
  jobs.sort((a, b) => a.subtime - b.subtime);
  return { nodes: w.nodes, jobs };
}

/** Reads a malleable workload file. */
export function readMalleableWorkload(file: string): MWorkload {
  return parseMalleableWorkload(readJsonFile(file), file);
}

/** Options of the paper's workload generator. */
export interface PaperWorkloadOptions {
  /** Number of jobs. */
  jobs: number;
  /** Seed. */
  seed: number;
  /** Mean inter-arrival time (s); 10 in the paper. */
  interArrival?: number;
  /** Every job rigid at `max` (the fixed workload). */
  rigid?: boolean;
}

/** The paper's workload (§7.1, §7.5, Table 3) on 64 nodes. */
export function paperWorkload(o: PaperWorkloadOptions): MWorkload {
  const rng = derive(o.seed, 'malleable-workload');
  const names = Object.keys(TABLE3) as PaperApp[];
  const kinds: PaperApp[] = [];
  for (let i = 0; i < o.jobs; i++) kinds.push(names[i % names.length]!);
  rng.shuffle(kinds);
  const mean = o.interArrival ?? 10;
  let t = 0;
  const jobs: MJob[] = kinds.map((k, i) => {
    if (i > 0) t += rng.exponential(1 / mean);
    const spec = paperSpec(k);
    return { id: `j${i}`, subtime: t, app: PAPER_APPS[k], steps: TABLE3[k].steps, nodes: spec.max, malleable: o.rigid ? null : spec };
  });
  return { nodes: 64, jobs };
}

/** The same workload with every job rigid at its submission size (`max` for a malleable job). */
export function rigidVersion(w: MWorkload): MWorkload {
  return { nodes: w.nodes, jobs: w.jobs.map((j) => ({ ...j, malleable: null })) };
}

/** Whether parsed JSON is a malleable workload: an object whose jobs name an `app` and a number of `steps`. */
export function isMalleableWorkload(data: unknown): boolean {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const jobs = (data as { jobs?: unknown }).jobs;
  return Array.isArray(jobs) && jobs.length > 0 && jobs.every((j) => j !== null && typeof j === 'object' && 'app' in j && 'steps' in j);
}

/** A malleable workload as jobs with the `malleable` facet (see the module comment). */
export function malleableJobs(w: MWorkload, name = 'malleable'): Workload {
  // one object literal per job (`makeJob`'s fields and defaults, written out: an episode converts its whole workload)
  const jobs = w.jobs.map((j, i): Job => {
    const spec = j.malleable;
    const malleable: MalleableWork = {
      spec: spec ? { min: spec.min, max: spec.max, pref: spec.pref, factor: spec.factor, inhibit: spec.inhibit } : null,
      steps: j.steps,
      speedup: { ...j.app },
    };
    const runtime = nominalRuntime(malleable, j.nodes);
    const one = j.nodes === 1;
    return {
      id: j.id,
      subtime: j.subtime,
      ntasks: j.nodes,
      reqTime: runtime,
      reqEnergy: 0,
      type: one ? 'seq' : 'mpi',
      work: 'delay',
      ops: 0,
      runtime,
      mem: 0,
      memVol: 0,
      commVol: 0,
      tCompute: 1,
      nodes: j.nodes,
      ntasksPerNode: one ? 0 : 1,
      tasks: null,
      source: `$.jobs[${i}]`,
      malleable,
    };
  });
  return { name, jobs, maxProcs: w.nodes, skipped: {} };
}

/**
 * The engine's malleable workload of `w`'s jobs, which must all carry the `malleable` facet, on `nodes`
 * nodes (default: the workload's `maxProcs`, else 64, the paper's platform).
 */
export function malleableWorkloadOf(w: Workload, nodes = w.maxProcs ?? 64): MWorkload {
  const jobs = w.jobs.map((j): MJob => {
    const m = j.malleable;
    if (!m) throw new InputError(`job ${JSON.stringify(j.id)} has no \`malleable\` facet (steps and a speed-up model)`, j.source);
    if (j.nodes > nodes) throw new InputError(`job ${JSON.stringify(j.id)} needs ${j.nodes} nodes, the platform has ${nodes}`, j.source);
    return { id: j.id, subtime: j.subtime, app: { ...m.speedup }, steps: m.steps, nodes: j.nodes, malleable: m.spec ? { ...m.spec } : null };
  });
  return { nodes, jobs: jobs.sort((a, b) => a.subtime - b.subtime) };
}
