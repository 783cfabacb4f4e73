/**
 * Native workload JSON, a superset of IRMaSim's (DESIGN §2.2, §3): `jobs` plus named `profiles`;
 * a job takes its profile's fields and may override any of them inline.
 *
 * ```json
 * { "jobs": [ { "id": "j1", "subtime": 0, "res": 4, "profile": "p" },
 *             { "id": "j2", "subtime": 3, "nodes": 2, "ntasks": 6, "req_ops": 2e9, "req_time": 10 },
 *             { "id": "j3", "subtime": 5, "type": "mpi", "ntasks": 8, "comm_vol": 2e8, "t_compute": 0.9,
 *               "req_ops": 2e9, "ipc": 1, "req_time": 10 } ],
 *   "profiles": { "p": { "req_ops": 1e9, "ipc": 1, "req_time": 5, "mem": 100, "mem_vol": 20 } } }
 * ```
 *
 * Shape: `res`, `nodes`, `ntasks` and `ntasks_per_node` resolve exactly as IRMaSim's loader
 * (`Simulator.generate_workload`) resolves them (`resolveShape` below); `nodes == 1` gives a `seq`
 * job, `nodes > 1` an `mpi` job on exactly that many nodes. clustergym's extensions: an explicit
 * `type: "mpi"` with `ntasks` alone (or with `res`) lets the tasks go anywhere, `type: "seq"` with
 * `ntasks` alone puts them on one node, and `tasks: [...]` gives each task its own work.
 *
 * Work: `req_ops` (+ `ipc`, default 1) is the `ops` model, `runtime` the `delay` model. Defaults as
 * IRMaSim's: `ipc 1`, `mem 0`, `mem_vol 0`, `req_energy 0`, except that a job whose work comes from a
 * profile without `mem_vol` gets `mem_vol 1` (IRMaSim's `Job.from_profile`).
 *
 * A job without `id` is named `job<i>`, `i` its index in the file (IRMaSim's naming).
 *
 * Facets (`facets.ts`): `user`, `account`, `partition`, `qos`, `malleable` (an iterative job's steps,
 * speed-up model and malleability: its work, instead of `req_ops`/`runtime`), `operator_events` and
 * `gpus` (GPUs and a deep-learning job's steps).
 *
 * Fields are checked: an unknown field of a job, a profile or a task is an error that names it and
 * suggests the field it looks like (`memvol` -> `mem_vol`). `extra` (any JSON) is carried and ignored,
 * for a user's own annotations; profiles may also keep the Batsim fields `com` and `cpu` and a Batsim
 * profile `type`, which IRMaSim's example workloads carry and IRMaSim ignores.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath, unknownKeys } from '../core/errors.js';
import { FACET_FIELDS, facetShape, jobFacets } from './facets.js';
import { gpuRequestProblem } from './gpuRequest.js';
import { sortBySubmission, type Job, type JobType, type TaskWork, type Workload } from './job.js';
import { malleableProblem, nominalRuntime } from './malleability.js';

const num = z.number().finite();
const nonNeg = num.nonnegative();
const count = z.number().int().positive();

/** Work fields a task may give. */
const TASK_FIELDS = ['req_ops', 'ipc', 'runtime', 'mem', 'mem_vol'] as const;
/** Work fields a job or a profile may give. */
const WORK_FIELDS = [...TASK_FIELDS, 'req_time', 'req_energy'] as const;
/** Fields of a profile (`com`, `cpu`: Batsim's, ignored). */
const PROFILE_FIELDS = [...WORK_FIELDS, 'type', 'comm_vol', 't_compute', 'tasks', 'extra', 'com', 'cpu'] as const;
/** Fields of a job. */
const JOB_FIELDS = [
  'id',
  'subtime',
  'profile',
  'res',
  'ntasks',
  'nodes',
  'ntasks_per_node',
  ...WORK_FIELDS,
  'type',
  'comm_vol',
  't_compute',
  'tasks',
  'extra',
  ...FACET_FIELDS,
] as const;

const taskShape = {
  req_ops: nonNeg.optional(),
  ipc: num.positive().optional(),
  runtime: nonNeg.optional(),
  mem: nonNeg.optional(),
  mem_vol: nonNeg.optional(),
};
const workShape = { ...taskShape, req_time: nonNeg.optional(), req_energy: nonNeg.optional() };

const TaskSchema = z.object(taskShape).passthrough();

const commonShape = {
  ...workShape,
  comm_vol: nonNeg.optional(),
  t_compute: num.min(0).max(1).optional(),
  tasks: z.array(TaskSchema).min(1).optional(),
  extra: z.unknown().optional(),
};

/** A profile: a job type `seq`/`mpi`, or a Batsim profile type (ignored). */
const ProfileSchema = z.object({ ...commonShape, type: z.string().optional(), com: z.unknown().optional(), cpu: z.unknown().optional() }).passthrough();

const JobSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    subtime: nonNeg,
    profile: z.string().optional(),
    res: count.optional(),
    ntasks: count.optional(),
    nodes: count.optional(),
    ntasks_per_node: count.optional(),
    ...commonShape,
    type: z.enum(['seq', 'mpi']).optional(),
    ...facetShape,
  })
  .passthrough();

/** Native / IRMaSim workload file (top-level keys other than `jobs` and `profiles`, such as Batsim's `nb_res`, are ignored). */
export const NativeWorkloadSchema = z
  .object({
    jobs: z.array(JobSchema),
    profiles: z.record(ProfileSchema).default({}),
  })
  .passthrough();

type RawJob = z.infer<typeof JobSchema>;
type RawProfile = z.infer<typeof ProfileSchema>;
type WorkFieldsIn = {
  req_ops?: number | undefined;
  ipc?: number | undefined;
  runtime?: number | undefined;
  mem?: number | undefined;
  mem_vol?: number | undefined;
};

/** Throws one error naming every unknown field of `obj` (at `path`), with suggestions. */
function checkFields(obj: Record<string, unknown>, known: readonly string[], where: string, path: (string | number)[]): void {
  const bad = unknownKeys(obj, known);
  if (bad.length === 0) return;
  const lines = bad.map((b) => `${jsonPath([...path, b.key])}: ${b.message}; expected one of ${known.join(', ')}`);
  throw new InputError(lines.length === 1 ? lines[0]! : `\n  ${lines.join('\n  ')}`, where);
}

/** A job's shape: task count, type, exact node count (0: anywhere) and tasks per node (0: any). */
export interface ResolvedShape {
  ntasks: number;
  type: JobType;
  nodes: number;
  ntasksPerNode: number;
}

/** Shape fields as given (before resolution); `type` is the job type given inline or by the profile. */
export interface ShapeFields {
  res?: number | undefined;
  ntasks?: number | undefined;
  nodes?: number | undefined;
  ntasks_per_node?: number | undefined;
  type?: JobType | undefined;
  /** Number of per-task profiles (`tasks: [...]`), if any. */
  tasks?: number | undefined;
}

/**
 * Resolves `res`/`nodes`/`ntasks`/`ntasks_per_node` as IRMaSim's loader does (DESIGN §2.2), or
 * returns the reason they contradict each other:
 *
 * | given                         | resolution                                                         |
 * |-------------------------------|--------------------------------------------------------------------|
 * | `res: n`                      | `nodes 1, ntasks n, ntasks_per_node n` (alone: with any of the others, an error) |
 * | `ntasks` [+ `ntasks_per_node`]| `ntasks_per_node` default 1, `nodes = ceil(ntasks / ntasks_per_node)` |
 * | `nodes` [+ `ntasks_per_node`] | `ntasks_per_node` default 1, `ntasks = nodes * ntasks_per_node`    |
 * | `nodes` + `ntasks`            | `ntasks_per_node = ceil(ntasks / nodes)` (a given one must satisfy `nodes == ceil(ntasks / ntasks_per_node)`; IRMaSim then replaces it the same way) |
 * | `ntasks_per_node` alone, none | an error                                                           |
 *
 * `nodes == 1` is a `seq` job (all tasks on one node; its `ntasks_per_node` is not kept), `nodes > 1` an
 * `mpi` job on exactly `nodes` nodes, each offering `ntasks_per_node` free cores. `nodes > ntasks`
 * (a node without a task) is an error. Extensions: `type: "mpi"` with `ntasks` alone or `res` lets the
 * tasks go anywhere (`nodes 0`); `type: "seq"` with `ntasks` alone puts them on one node.
 */
export function resolveShape(s: ShapeFields): ResolvedShape | string {
  const { res, ntasks, nodes, ntasks_per_node: tpn, type } = s;
  if (res !== undefined) {
    const others = (['ntasks', 'nodes', 'ntasks_per_node'] as const).filter((k) => s[k] !== undefined);
    if (others.length > 0) return `give either \`res\` or \`nodes\`/\`ntasks\`/\`ntasks_per_node\` (IRMaSim refuses both); found res and ${others.join(', ')}`;
    if (type === 'mpi') return { ntasks: res, type: 'mpi', nodes: 0, ntasksPerNode: 0 };
    return { ntasks: res, type: 'seq', nodes: 1, ntasksPerNode: 0 };
  }
  if (ntasks === undefined && nodes === undefined) {
    if (tpn !== undefined) return '`ntasks_per_node` alone does not size a job: give `ntasks` or `nodes` as well';
    if (s.tasks !== undefined) return { ntasks: s.tasks, type: type === 'mpi' ? 'mpi' : 'seq', nodes: type === 'mpi' ? 0 : 1, ntasksPerNode: 0 };
    return 'the job has no size: expected `res`, `ntasks`, `nodes` or `tasks`';
  }
  let n: number;
  let t: number;
  let per: number;
  if (nodes === undefined) {
    t = ntasks!;
    if (tpn === undefined && type === 'mpi') return { ntasks: t, type: 'mpi', nodes: 0, ntasksPerNode: 0 };
    if (tpn === undefined && type === 'seq') return { ntasks: t, type: 'seq', nodes: 1, ntasksPerNode: 0 };
    per = tpn ?? 1;
    n = Math.ceil(t / per);
  } else if (ntasks === undefined) {
    n = nodes;
    per = tpn ?? 1;
    t = n * per;
  } else {
    n = nodes;
    t = ntasks;
    if (tpn !== undefined && n !== Math.ceil(t / tpn))
      return `nodes, ntasks and ntasks_per_node contradict each other: ${t} tasks at ${tpn} per node need ceil(${t}/${tpn}) = ${Math.ceil(t / tpn)} nodes, found nodes = ${n}`;
    if (n > t) return `nodes and ntasks contradict each other: ${n} nodes for ${t} tasks would leave a node without a task`;
    per = Math.ceil(t / n);
  }
  if (type === 'seq' && n > 1) return `a seq job runs on one node; its nodes/ntasks/ntasks_per_node give ${n} nodes`;
  if (n === 1 && type !== 'mpi') return { ntasks: t, type: 'seq', nodes: 1, ntasksPerNode: 0 };
  return { ntasks: t, type: 'mpi', nodes: n, ntasksPerNode: per };
}

function taskWork(t: WorkFieldsIn, fallback: WorkFieldsIn, ops: boolean, memVolDefault: number): TaskWork {
  const reqOps = t.req_ops ?? fallback.req_ops ?? 0;
  const ipc = t.ipc ?? fallback.ipc ?? 1;
  return {
    ops: ops ? Math.ceil(reqOps / ipc) : 0,
    runtime: ops ? 0 : (t.runtime ?? fallback.runtime ?? 0),
    mem: t.mem ?? fallback.mem ?? 0,
    memVol: t.mem_vol ?? fallback.mem_vol ?? memVolDefault,
  };
}

/** The job `raw` (at `$.jobs[i]`) with its profile, checked and resolved. */
function parseJob(raw: RawJob, i: number, profiles: Record<string, RawProfile>, where: string): Job {
  const at = (...p: (string | number)[]) => jsonPath(['jobs', i, ...p]);
  const id = raw.id === undefined ? `job${i}` : String(raw.id);
  const fail = (msg: string, ...p: (string | number)[]): never => {
    throw new InputError(`${at(...p)} (job ${JSON.stringify(id)}): ${msg}`, where);
  };
  checkFields(raw, JOB_FIELDS, where, ['jobs', i]);
  let prof: RawProfile = {};
  if (raw.profile !== undefined) {
    const p = profiles[raw.profile];
    if (!p) fail(`unknown profile ${JSON.stringify(raw.profile)}; expected one of ${Object.keys(profiles).join(', ') || '(no profiles defined)'}`, 'profile');
    prof = p!;
  }
  const defined = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  const f = { ...prof, ...defined } as RawProfile & RawJob;
  const jobType = f.type === 'seq' || f.type === 'mpi' ? f.type : undefined;
  const sized = raw.res !== undefined || raw.ntasks !== undefined || raw.nodes !== undefined || f.tasks !== undefined;
  const shape = resolveShape({
    res: raw.res,
    ntasks: raw.ntasks,
    // a malleable job is submitted at max: its default size
    nodes: raw.nodes ?? (sized ? undefined : raw.malleable?.max),
    ntasks_per_node: raw.ntasks_per_node,
    type: jobType,
    tasks: f.tasks?.length,
  });
  if (typeof shape === 'string') return fail(shape);
  if (f.tasks && f.tasks.length !== shape.ntasks) fail(`expected ${shape.ntasks} task profiles (one per task), found ${f.tasks.length}`, 'tasks');
  const facets = jobFacets(raw);
  const gpuProblem = facets.gpus && gpuRequestProblem(facets.gpus, shape.nodes);
  if (gpuProblem) fail(gpuProblem, 'gpus');
  if (facets.malleable) return iterativeJob(raw, f, id, shape, facets, at(), fail);

  const hasOps = f.req_ops !== undefined || (f.tasks?.every((t) => t.req_ops !== undefined) ?? false);
  const hasRuntime = f.runtime !== undefined || (f.tasks?.every((t) => t.runtime !== undefined) ?? false);
  if (!hasOps && !hasRuntime) fail('no work: expected `req_ops` (ops model) or `runtime` (delay model), inline or in the profile');
  if (f.req_ops !== undefined && f.runtime !== undefined) fail('give either `req_ops` or `runtime`, not both');
  const ops = hasOps;
  const memVolDefault = raw.profile !== undefined && prof.mem_vol === undefined && ops ? 1 : 0;
  const base = taskWork(f, {}, ops, memVolDefault);
  const tasks = f.tasks ? f.tasks.map((t) => taskWork(t, f, ops, memVolDefault)) : null;
  if (ops ? (tasks ? tasks.some((t) => t.ops <= 0) : base.ops <= 0) : tasks ? tasks.some((t) => t.runtime <= 0) : base.runtime <= 0)
    fail(ops ? 'req_ops must be > 0' : 'runtime must be > 0', ops ? 'req_ops' : 'runtime');
  let reqTime = f.req_time;
  if (reqTime === undefined) {
    if (ops) fail('missing req_time (the user estimate, seconds), inline or in the profile', 'req_time');
    reqTime = tasks ? Math.max(...tasks.map((t) => t.runtime)) : base.runtime;
  }
  const isMpi = shape.type === 'mpi';
  return {
    id,
    subtime: raw.subtime,
    ntasks: shape.ntasks,
    reqTime: reqTime!,
    reqEnergy: f.req_energy ?? 0,
    type: shape.type,
    work: ops ? 'ops' : 'delay',
    ops: base.ops,
    runtime: base.runtime,
    mem: base.mem,
    memVol: base.memVol,
    commVol: isMpi ? (f.comm_vol ?? 0) : 0,
    tCompute: isMpi ? (f.t_compute ?? 1) : 1,
    nodes: shape.nodes,
    ntasksPerNode: shape.ntasksPerNode,
    tasks,
    profile: raw.profile,
    source: at(),
    ...facets,
  };
}

/**
 * A job with a `malleable` facet: its work is its steps (`delay` model, `runtime = steps * d(nodes)`),
 * on an exact node count (`facets.ts`).
 */
function iterativeJob(
  raw: RawJob,
  f: RawProfile & RawJob,
  id: string,
  shape: ResolvedShape,
  facets: Partial<Job>,
  source: string,
  fail: (msg: string, ...p: (string | number)[]) => never,
): Job {
  const w = facets.malleable!;
  const work = (['req_ops', 'runtime', 'tasks'] as const).find((k) => f[k] !== undefined);
  if (work) fail(`the work of a job with \`malleable\` is its steps; found \`${work}\` (inline or in its profile)`, work);
  if (shape.nodes === 0) fail('a job with `malleable` runs on an exact node count: give `nodes`');
  const problem = malleableProblem(w, shape.nodes);
  if (problem) fail(problem, 'malleable');
  const runtime = nominalRuntime(w, shape.nodes);
  const isMpi = shape.type === 'mpi';
  return {
    id,
    subtime: raw.subtime,
    ntasks: shape.ntasks,
    reqTime: f.req_time ?? runtime,
    reqEnergy: f.req_energy ?? 0,
    type: shape.type,
    work: 'delay',
    ops: 0,
    runtime,
    mem: f.mem ?? 0,
    memVol: f.mem_vol ?? 0,
    commVol: isMpi ? (f.comm_vol ?? 0) : 0,
    tCompute: isMpi ? (f.t_compute ?? 1) : 1,
    nodes: shape.nodes,
    ntasksPerNode: shape.ntasksPerNode,
    tasks: null,
    profile: raw.profile,
    source,
    ...facets,
  };
}

/** Options of `parseNativeWorkload`. */
export interface NativeParseOptions {
  /** Sort the jobs by submission time (stable; default true). False keeps the file's order. */
  sort?: boolean;
}

/** Parses a native/IRMaSim workload already read from `where`. */
export function parseNativeWorkload(data: unknown, where: string, name = where, options: NativeParseOptions = {}): Workload {
  const r = NativeWorkloadSchema.safeParse(data);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const { jobs: rawJobs, profiles } = r.data;
  for (const [pname, p] of Object.entries(profiles)) {
    checkFields(p, PROFILE_FIELDS, where, ['profiles', pname]);
    p.tasks?.forEach((t, k) => {
      checkFields(t, TASK_FIELDS, where, ['profiles', pname, 'tasks', k]);
    });
  }
  const seen = new Set<string>();
  const jobs = rawJobs.map((raw, i) => {
    raw.tasks?.forEach((t, k) => {
      checkFields(t, TASK_FIELDS, where, ['jobs', i, 'tasks', k]);
    });
    const job = parseJob(raw, i, profiles, where);
    if (seen.has(job.id)) throw new InputError(`${jsonPath(['jobs', i, 'id'])}: duplicate job id ${JSON.stringify(job.id)}`, where);
    seen.add(job.id);
    return job;
  });
  return { name, jobs: options.sort === false ? jobs : sortBySubmission(jobs), skipped: {} };
}
