/**
 * Batsim JSON workloads (oar-team/batsim, "Workload" and "Job profiles" in its documentation),
 * DESIGN §3.
 *
 * ```json
 * { "nb_res": 4,
 *   "jobs": [ { "id": "j1", "subtime": 0, "res": 4, "walltime": 100, "profile": "hg" } ],
 *   "profiles": { "hg": { "type": "parallel_homogeneous", "cpu": 10e6, "com": 1e6 } } }
 * ```
 *
 * A Batsim job asks for `res` resources; here it becomes an `mpi` job of `res` tasks that may go on
 * any cores (`nodes = 0`; option `jobType: 'seq'` keeps them on one node). `walltime` becomes
 * `reqTime`; a `user` field (a string or a number, which some converted traces carry) becomes the
 * job's `user` facet. Profiles map onto the work models of DESIGN §2.2 (both the current type names and the
 * older ones are accepted):
 *
 * - `delay` (`DelayProfile`) `{delay}`: `delay` work model, every task runs `delay` seconds;
 * - `parallel` (`ParallelTaskProfile`, `msg_par`) `{cpu: [c_0..c_{n-1}], com: [n x n]}`: `ops` work
 *   model with per-task work `ops_i = ceil(c_i)` (`tasks`); `comm_vol` = the mean of the off-diagonal
 *   entries of `com` (bytes each task sends to each other task; the diagonal is loopback and ignored);
 *   a task with `c_i = 0` is given 1 operation (the model needs work > 0; it still holds its core until
 *   the job ends, as every MPI task does);
 * - `parallel_homogeneous` (`ParallelTaskHomogeneousProfile`, `msg_par_hg`) `{cpu, com}`: `ops` work
 *   model, `ops = ceil(cpu)` per task, `comm_vol = com`; with `generation_strategy:
 *   "DefinedAmountsSpreadUniformly"` the amounts are totals: `cpu / res` per task and
 *   `com / (res (res - 1))` per pair;
 * - `parallel_homogeneous_total` (`msg_par_hg_tot`): the spread-uniformly variant above;
 * - `composed` (`SequentialCompositionProfile`) `{seq: [names], repeat}`: the parts, all of one work
 *   model, run one after the other `repeat` times: delays add up, per-task operations add up,
 *   communication volumes add up.
 *
 * Other types (I/O to storage, data staging, SMPI or usage trace replay, fork-join, send/recv...)
 * cannot be modelled, nor can profiles without any computation (`cpu` 0 everywhere: communication
 * only) or zero delays: by default they are an `InputError` naming the JSON path and listing the
 * supported types; with `unsupported: 'skip'` the jobs using them are skipped and counted in
 * `skipped` (`profile type X`, `no computation`, `zero delay`).
 *
 * Requested time: `walltime` when it is > 0; when it is -1, 0 or absent, the delay of a `delay` job,
 * or for an `ops` job the time of its largest task on a reference core of `refMops` MOPS.
 * `t_compute` of the ops jobs is `tCompute` (default 1: the operations are the whole uncontended time).
 *
 * Under the Batsim protocol (`bridge/batsim/`), a job's executors are known only when the scheduler
 * executes it: `batsimProfileWork` resolves its profile for them, `batsimExecutorJob` makes the engine
 * job that runs them on their nodes' cores, and `batsimProfileProgress` says how far a killed job got.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { makeJob, sortBySubmission, type Job, type JobType, type TaskWork, type Workload } from './job.js';

/** Options of the Batsim reader. */
export const BatsimOptionsSchema = z
  .object({
    /** `error` (default): a job whose profile cannot be modelled is an InputError; `skip`: skip and count it. */
    unsupported: z.enum(['error', 'skip']).default('error'),
    /** Reference core speed, MOPS, for the requested time of `ops` jobs without a walltime. */
    refMops: z.number().positive().default(1000),
    /** `t_compute` of the `ops` jobs (fraction of time computing). */
    tCompute: z.number().min(0).max(1).default(1),
    /** Job type given to every job (default `mpi`). */
    jobType: z.enum(['mpi', 'seq']).default('mpi'),
  })
  .strict();

/** Options of the Batsim reader, as given by the caller. */
export type BatsimOptions = z.input<typeof BatsimOptionsSchema>;

const num = z.number().finite();

const BatsimJobSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]),
    subtime: num.nonnegative(),
    res: z.number().int().positive(),
    profile: z.string(),
    walltime: num.optional(),
    user: z
      .union([z.string().min(1), z.number().int()])
      .transform(String)
      .optional(),
  })
  .passthrough();

/** A Batsim workload file (extra fields are allowed and ignored). */
export const BatsimWorkloadSchema = z
  .object({
    nb_res: z.number().int().positive().optional(),
    jobs: z.array(BatsimJobSchema),
    profiles: z.record(z.object({ type: z.string() }).passthrough()),
  })
  .passthrough();

type Kind = 'delay' | 'parallel' | 'parallel_homogeneous' | 'parallel_homogeneous_total' | 'composed';

/** Accepted profile type names (current Batsim names, their v3/v4 names and the oldest MSG names). */
export const BATSIM_PROFILE_TYPES: Readonly<Record<string, Kind>> = {
  delay: 'delay',
  DelayProfile: 'delay',
  parallel: 'parallel',
  msg_par: 'parallel',
  ParallelTaskProfile: 'parallel',
  parallel_homogeneous: 'parallel_homogeneous',
  msg_par_hg: 'parallel_homogeneous',
  ParallelTaskHomogeneousProfile: 'parallel_homogeneous',
  parallel_homogeneous_total: 'parallel_homogeneous_total',
  msg_par_hg_tot: 'parallel_homogeneous_total',
  composed: 'composed',
  SequentialCompositionProfile: 'composed',
};

const SUPPORTED_LIST = Object.entries(
  Object.entries(BATSIM_PROFILE_TYPES).reduce<Record<string, string[]>>((acc, [name, kind]) => {
    const names = acc[kind] ?? [];
    names.push(name);
    acc[kind] = names;
    return acc;
  }, {}),
)
  .map(([, names]) => names.join('/'))
  .join(', ');

/** Work of a resolved profile for a job of `res` tasks (or executors): a duration, or operations per task and bytes per pair. */
export type BatsimWork = Work;
type Work = { kind: 'delay'; seconds: number } | { kind: 'ops'; perTask: number[]; commVol: number };

/** A profile that cannot be modelled: `reason` is the `skipped` key. */
class Unmodellable extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const DelaySchema = z.object({ delay: num.nonnegative() }).passthrough();
const ParallelSchema = z.object({ cpu: z.array(num.nonnegative()).optional(), com: z.array(num.nonnegative()).optional() }).passthrough();
const HomogeneousSchema = z
  .object({
    cpu: num.nonnegative().default(0),
    com: num.nonnegative().default(0),
    generation_strategy: z.enum(['DefinedAmountsUsedForEachValue', 'DefinedAmountsSpreadUniformly']).optional(),
  })
  .passthrough();
const ComposedSchema = z.object({ seq: z.array(z.string()).min(1), repeat: z.number().int().nonnegative().default(1) }).passthrough();

/** Parses a Batsim workload already read from `where`. */
export function parseBatsimWorkload(data: unknown, where: string, options: BatsimOptions = {}, name = where): Workload {
  const o = BatsimOptionsSchema.safeParse(options);
  if (!o.success) throw inputErrorFromIssues('Batsim reader options', o.error.issues);
  const opts = o.data;
  const r = BatsimWorkloadSchema.safeParse(data);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const { jobs: rawJobs, profiles, nb_res } = r.data;

  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  const jobs: Job[] = [];
  rawJobs.forEach((raw, i) => {
    const at = jsonPath(['jobs', i]);
    const id = String(raw.id);
    if (seen.has(id)) throw new InputError(`${at}.id: duplicate job id ${JSON.stringify(id)}`, where);
    seen.add(id);
    if (!(raw.profile in profiles))
      throw new InputError(
        `${at}.profile: unknown profile ${JSON.stringify(raw.profile)}; expected one of ${Object.keys(profiles).join(', ') || '(no profiles defined)'}`,
        where,
      );
    const work = jobWork(raw, { profiles, where }, at, id, opts, skipped);
    if (work) jobs.push(batsimJob(raw, id, at, work, opts));
  });
  return { name, jobs: sortBySubmission(jobs), maxProcs: nb_res, skipped };
}

/** A Batsim workload file as read (jobs and profiles unchanged, extra fields kept). */
export type BatsimWorkloadFile = z.output<typeof BatsimWorkloadSchema>;

/**
 * The work of profile `name` of `profiles` (from file `where`) for `executors` executors, with the
 * Batsim meaning of each type (see the module comment): used where the executors are known only when
 * the job starts (the Batsim protocol's `EXECUTE_JOB`, whose allocation and mapping set them). A zero
 * delay or a profile without computation is valid here (the job ends as soon as it starts, or after
 * its communication); a type clustergym cannot model is an `InputError` naming the profile.
 */
export function batsimProfileWork(profiles: Record<string, { type: string }>, name: string, executors: number, where: string): BatsimWork {
  try {
    return resolveProfile({ profiles, where }, name, executors, []);
  } catch (e) {
    if (e instanceof Unmodellable) throw new InputError(e.message, where);
    throw e;
  }
}

type BatsimJob = z.infer<typeof BatsimJobSchema>;
type BatsimConfig = z.output<typeof BatsimOptionsSchema>;

/** Where profiles are resolved: the file's profiles, and the file for messages. */
interface Profiles {
  profiles: Record<string, { type: string }>;
  where: string;
}

/**
 * The work of job `raw` (at JSON path `at`): its profile resolved for its `res` tasks, or null when
 * the profile cannot be modelled and `unsupported: 'skip'` counts the job in `skipped` instead of
 * throwing. A zero delay and a profile without computation cannot be modelled either.
 */
function jobWork(raw: BatsimJob, ctx: Profiles, at: string, id: string, opts: BatsimConfig, skipped: Record<string, number>): Work | null {
  try {
    const work = resolveProfile(ctx, raw.profile, raw.res, []);
    if (work.kind === 'delay' && work.seconds <= 0)
      throw new Unmodellable('zero delay', `${jsonPath(['profiles', raw.profile])}: the delay is 0 (a job must have work > 0)`);
    if (work.kind === 'ops' && work.perTask.every((x) => x <= 0))
      throw new Unmodellable(
        'no computation',
        `${jsonPath(['profiles', raw.profile])}: no computation (cpu is 0 on every task); communication-only jobs cannot be modelled`,
      );
    return work;
  } catch (e) {
    if (!(e instanceof Unmodellable)) throw e;
    if (opts.unsupported === 'skip') {
      skipped[e.reason] = (skipped[e.reason] ?? 0) + 1;
      return null;
    }
    throw new InputError(
      `${at} (id ${JSON.stringify(id)}, profile ${JSON.stringify(raw.profile)}): ${e.message} (option unsupported: 'skip' skips such jobs)`,
      ctx.where,
    );
  }
}

/**
 * The work of profile `pname` for a job of `res` tasks; `stack` holds the compositions being
 * resolved (to name the referring profile and catch cycles). Throws `Unmodellable` for a profile
 * type clustergym cannot model, an `InputError` for a malformed or unknown profile.
 */
function resolveProfile(ctx: Profiles, pname: string, res: number, stack: string[]): Work {
  const at = jsonPath(['profiles', pname]);
  const p = ctx.profiles[pname];
  if (!p)
    throw new InputError(
      `${stack.length ? jsonPath(['profiles', stack[stack.length - 1]!, 'seq']) : 'profile'}: unknown profile ${JSON.stringify(pname)}`,
      ctx.where,
    );
  const kind = BATSIM_PROFILE_TYPES[p.type];
  if (!kind)
    throw new Unmodellable(
      `profile type ${p.type}`,
      `${at}.type: profile type ${JSON.stringify(p.type)} cannot be modelled by clustergym; supported types: ${SUPPORTED_LIST}`,
    );
  const check = <T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>): T => {
    const pr = schema.safeParse(p);
    if (!pr.success)
      throw inputErrorFromIssues(
        ctx.where,
        pr.error.issues.map((i) => ({ ...i, path: ['profiles', pname, ...i.path] })),
      );
    return pr.data;
  };
  switch (kind) {
    case 'delay':
      return { kind: 'delay', seconds: check(DelaySchema).delay };
    case 'parallel':
      return parallelWork(check(ParallelSchema), res, at, ctx.where);
    case 'parallel_homogeneous':
    case 'parallel_homogeneous_total':
      return homogeneousWork(check(HomogeneousSchema), kind === 'parallel_homogeneous_total', res);
    case 'composed': {
      const v = check(ComposedSchema);
      if (stack.includes(pname)) throw new InputError(`${at}.seq: the composition refers to itself (${[...stack, pname].join(' -> ')})`, ctx.where);
      return composedWork(
        v.seq.map((s) => resolveProfile(ctx, s, res, [...stack, pname])),
        v.repeat,
        res,
        at,
      );
    }
  }
}

/** A `parallel` profile: per-task operations `cpu`, and the mean off-diagonal entry of the `com` matrix. */
function parallelWork(v: z.output<typeof ParallelSchema>, res: number, at: string, where: string): Work {
  const cpu = v.cpu ?? new Array<number>(res).fill(0);
  if (cpu.length !== res) throw new InputError(`${at}.cpu: expected ${res} values (one per resource of the job), found ${cpu.length}`, where);
  let commVol = 0;
  if (v.com) {
    if (v.com.length !== res * res) throw new InputError(`${at}.com: expected ${res * res} values (a ${res} x ${res} matrix), found ${v.com.length}`, where);
    if (res > 1) {
      let s = 0;
      for (let i = 0; i < res; i++) for (let j = 0; j < res; j++) if (i !== j) s += v.com[i * res + j]!;
      commVol = s / (res * (res - 1));
    }
  }
  return { kind: 'ops', perTask: cpu.slice(), commVol };
}

/** A `parallel_homogeneous` profile; `total` (or the spread-uniformly strategy): the amounts are shared by the tasks and pairs. */
function homogeneousWork(v: z.output<typeof HomogeneousSchema>, total: boolean, res: number): Work {
  const spread = total || v.generation_strategy === 'DefinedAmountsSpreadUniformly';
  const cpu = spread ? v.cpu / res : v.cpu;
  const com = spread ? (res > 1 ? v.com / (res * (res - 1)) : 0) : v.com;
  return { kind: 'ops', perTask: new Array<number>(res).fill(cpu), commVol: res > 1 ? com : 0 };
}

/** A `composed` profile: its resolved `parts` (of one work model) one after the other, `repeat` times. */
function composedWork(parts: Work[], repeat: number, res: number, at: string): Work {
  const kinds = new Set(parts.map((w) => w.kind));
  if (kinds.size > 1)
    throw new Unmodellable(
      'mixed delay and parallel parts',
      `${at}.seq: mixes delay and parallel-task profiles; a job has one work model (delay or operations)`,
    );
  if (parts[0]!.kind === 'delay') {
    let s = 0;
    for (const w of parts) s += (w as { seconds: number }).seconds;
    return { kind: 'delay', seconds: s * repeat };
  }
  const perTask = new Array<number>(res).fill(0);
  let commVol = 0;
  for (const w of parts as { perTask: number[]; commVol: number }[]) {
    for (let i = 0; i < res; i++) perTask[i]! += w.perTask[i]!;
    commVol += w.commVol;
  }
  return { kind: 'ops', perTask: perTask.map((x) => x * repeat), commVol: commVol * repeat };
}

/**
 * The `Job` of Batsim job `raw` (at `at`) with its resolved `work`: a `delay` job, or an `ops` job
 * whose tasks carry `ceil(ops)` (at least 1) each, listed per task when they differ. The requested
 * time is the walltime when > 0, else the delay or the largest task's time at `refMops`.
 */
function batsimJob(raw: BatsimJob, id: string, at: string, work: Work, opts: BatsimConfig): Job {
  const type: JobType = opts.jobType;
  const wall = raw.walltime !== undefined && raw.walltime > 0 ? raw.walltime : undefined;
  const base = {
    id,
    subtime: raw.subtime,
    ntasks: raw.res,
    reqEnergy: 0,
    type,
    mem: 0,
    memVol: 0,
    nodes: type === 'seq' ? 1 : 0,
    ntasksPerNode: 0,
    profile: raw.profile,
    source: at,
    ...(raw.user !== undefined ? { user: raw.user } : {}),
  };
  if (work.kind === 'delay')
    return { ...base, reqTime: wall ?? work.seconds, work: 'delay', ops: 0, runtime: work.seconds, commVol: 0, tCompute: 1, tasks: null };
  const { ops, tasks, maxOps } = taskOps(work.perTask);
  const mpi = type === 'mpi';
  return {
    ...base,
    reqTime: wall ?? maxOps / (opts.refMops * 1e6),
    work: 'ops',
    ops,
    runtime: 0,
    commVol: mpi ? work.commVol : 0,
    tCompute: mpi ? opts.tCompute : 1,
    tasks,
  };
}

/**
 * The operations of tasks that must do `perTask` operations each: `ceil` of each (at least 1), as
 * one `ops` shared by all when they are equal, else listed per task; and the largest.
 */
function taskOps(perTask: readonly number[]): { ops: number; tasks: TaskWork[] | null; maxOps: number } {
  const ops = perTask.map((x) => Math.max(1, Math.ceil(x)));
  const uniform = ops.every((x) => x === ops[0]);
  return {
    ops: uniform ? ops[0]! : 0,
    tasks: uniform ? null : ops.map((x) => ({ ops: x, runtime: 0, mem: 0, memVol: 0 })),
    maxOps: Math.max(...ops),
  };
}

// ------------------------------------------------------------------ jobs of the Batsim protocol

/**
 * Whether profile `name` of `profiles` accepts an allocation of any size (`parallel_homogeneous_total`,
 * a spread-uniformly `parallel_homogeneous`, or a composition of such parts); any other profile needs
 * as many executors as the job's `res`.
 */
export function batsimProfileAnySize(profiles: Record<string, { type: string }>, name: string, depth = 0): boolean {
  const p = profiles[name] as { type: string; generation_strategy?: unknown; seq?: unknown } | undefined;
  if (!p) return false;
  const kind = BATSIM_PROFILE_TYPES[p.type];
  if (kind === 'parallel_homogeneous_total') return true;
  if (kind === 'parallel_homogeneous') return p.generation_strategy === 'DefinedAmountsSpreadUniformly';
  if (kind === 'composed' && Array.isArray(p.seq) && depth < 32)
    return p.seq.every((s) => typeof s === 'string' && batsimProfileAnySize(profiles, s, depth + 1));
  return false;
}

/** Batsim's progress of a profile: `{profile, progress}`, or for a composition `{profile, current_task_index, current_task}`. */
export type BatsimProgress = Record<string, unknown>;

/**
 * Batsim's progress of profile `name` of `profiles` (from `where`) done to fraction `done` of its work:
 * `{profile, progress}`, or for a `composed` profile `{profile, current_task_index, current_task}`
 * where the index counts the parts as they run (`repeat` times the sequence) and each part's share is
 * its work for `executors` executors (seconds of a delay, operations of the largest executor).
 */
export function batsimProfileProgress(
  profiles: Record<string, { type: string }>,
  name: string,
  executors: number,
  done: number,
  where: string,
  depth = 0,
): BatsimProgress {
  const p = profiles[name] as { type: string; seq?: unknown; repeat?: unknown } | undefined;
  if (!p || BATSIM_PROFILE_TYPES[p.type] !== 'composed' || !Array.isArray(p.seq) || p.seq.length === 0 || depth > 32) return { profile: name, progress: done };
  const parts: string[] = [];
  const repeat = typeof p.repeat === 'number' && p.repeat > 0 ? p.repeat : 1;
  for (let r = 0; r < repeat; r++) for (const part of p.seq) parts.push(String(part));
  const weight = (part: string): number => {
    const w = batsimProfileWork(profiles, part, executors, where);
    return w.kind === 'delay' ? w.seconds : Math.max(0, ...w.perTask);
  };
  const weights = parts.map(weight);
  const total = weights.reduce((a, b) => a + b, 0);
  let before = 0;
  let i = 0;
  while (i < parts.length - 1 && total > 0 && (before + weights[i]!) / total <= done) before += weights[i++]!;
  const inner = total > 0 && weights[i]! > 0 ? Math.min(1, Math.max(0, (done * total - before) / weights[i]!)) : done;
  return { profile: name, current_task_index: i, current_task: batsimProfileProgress(profiles, parts[i]!, executors, inner, where, depth + 1) };
}

/**
 * The hosts executors run on, as the platform describes them (the fields of `Platform` this needs;
 * the workload floor does not import the platform): per node its first core, core count and link
 * bandwidth (bytes/s), per core its speed (MOPS).
 */
export interface ExecutorHosts {
  readonly nodeFirstCore: ArrayLike<number>;
  readonly nodeCoreCount: ArrayLike<number>;
  readonly nodeCommBw: ArrayLike<number>;
  readonly coreMops: ArrayLike<number>;
}

/**
 * The engine job of a Batsim job `id` started at `now` with `work` (its profile resolved for its
 * executors) and requested time `walltime` (<= 0: none), whose executor k runs on node `nodes[k]`
 * whose cores go at `speeds[k]` operations per second in the node's current pstate; and the cores it
 * holds, one task per core (docs/batsim.md):
 *
 * - the executors of a node take its cores in turn; executors beyond its core count share its cores
 *   (their work is added on the core);
 * - a `delay` job runs its delay on every task;
 * - an `ops` executor takes `max(ops_k / speed_k, remote_k / bw)` seconds, where `remote_k` is the
 *   bytes it sends to the executors on other nodes (`commVol` each) and `bw` its node's link: SimGrid's
 *   L07 model for a parallel task alone on its hosts, latency ignored; its task gets the operations
 *   its core does in that time (`ceil`, at least 1).
 */
export function batsimExecutorJob(
  id: string,
  now: number,
  walltime: number,
  work: BatsimWork,
  nodes: readonly number[],
  speeds: readonly number[],
  hosts: ExecutorHosts,
): { job: Job; cores: number[] } {
  const taskOf = new Map<number, number>(); // core -> task index
  const cores: number[] = [];
  const perCoreOps: number[] = [];
  const usedOnNode = new Map<number, number>();
  const perNode = new Map<number, number>();
  for (const n of nodes) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  // bytes executor k sends to the executors on other nodes
  const remoteBytes = (k: number): number => (work.kind === 'ops' ? work.commVol * (nodes.length - perNode.get(nodes[k]!)!) : 0);
  nodes.forEach((node, k) => {
    const n = usedOnNode.get(node) ?? 0;
    usedOnNode.set(node, n + 1);
    const core = hosts.nodeFirstCore[node]! + (n % hosts.nodeCoreCount[node]!);
    let t = taskOf.get(core);
    if (t === undefined) {
      t = cores.length;
      taskOf.set(core, t);
      cores.push(core);
      perCoreOps.push(0);
    }
    if (work.kind === 'ops') {
      const seconds = Math.max(work.perTask[k]! / speeds[k]!, remoteBytes(k) / hosts.nodeCommBw[node]!);
      perCoreOps[t]! += seconds * hosts.coreMops[core]! * 1e6;
    }
  });
  const reqTime = walltime > 0 ? walltime : 0;
  if (work.kind === 'delay') return { job: makeJob({ id, subtime: now, ntasks: cores.length, work: 'delay', runtime: work.seconds, reqTime }), cores };
  const { ops, tasks } = taskOps(perCoreOps);
  return { job: makeJob({ id, subtime: now, ntasks: cores.length, work: 'ops', ops, tasks, reqTime }), cores };
}

/**
 * True when `data` looks like a Batsim workload: a profile whose `type` is a string other than
 * `seq`/`mpi` (a Batsim profile type such as `delay`). IRMaSim files also carry `nb_res`, so it only
 * decides when no profile or job carries native work fields (`req_ops`, `runtime`).
 */
export function isBatsimWorkload(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  const objects = (v: unknown): Record<string, unknown>[] =>
    (typeof v === 'object' && v !== null ? Object.values(v) : []).filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  const profiles = objects(d['profiles']);
  // Native profiles may carry `type: "seq" | "mpi"` (the job type); any other string is a Batsim profile type.
  if (profiles.some((p) => typeof p['type'] === 'string' && p['type'] !== 'seq' && p['type'] !== 'mpi')) return true;
  const native = (o: Record<string, unknown>) => 'req_ops' in o || 'runtime' in o;
  if (profiles.some(native) || objects(d['jobs']).some(native)) return false;
  return 'nb_res' in d;
}
