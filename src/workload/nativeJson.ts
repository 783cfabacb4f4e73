/**
 * Native workload JSON, a superset of IRMaSim's (DESIGN §2.2, §3): `jobs` plus named `profiles`;
 * a job takes its profile's fields and may override any of them inline.
 *
 * ```json
 * { "jobs": [ { "id": "j1", "subtime": 0, "res": 4, "profile": "p" },
 *             { "id": "j2", "subtime": 3, "type": "mpi", "ntasks": 8, "comm_vol": 2e8, "t_compute": 0.9,
 *               "req_ops": 2e9, "ipc": 1, "req_time": 10 } ],
 *   "profiles": { "p": { "req_ops": 1e9, "ipc": 1, "req_time": 5, "mem": 100, "mem_vol": 20 } } }
 * ```
 *
 * Shape rules: `res: n` is a `seq` job of n tasks. `nodes`/`ntasks`/`ntasks_per_node` follow IRMaSim:
 * `ntasks_per_node` defaults to 1, `nodes = ceil(ntasks / ntasks_per_node)`, a given `nodes` that
 * disagrees is an error; `nodes == 1` gives `seq`, `nodes > 1` gives `mpi` on exactly that many nodes.
 * `type: "mpi"` without `nodes` lets the tasks go anywhere. Work model: `req_ops` (+ `ipc`, default 1)
 * gives `ops`; `runtime` gives `delay`.
 */
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { sortBySubmission, type Job, type JobType, type TaskWork, type Workload } from './job.js';

const num = z.number().finite();
const nonNeg = num.nonnegative();

const workFields = {
  req_ops: nonNeg.optional(),
  ipc: num.positive().optional(),
  runtime: nonNeg.optional(),
  req_time: nonNeg.optional(),
  mem: nonNeg.optional(),
  mem_vol: nonNeg.optional(),
};

const TaskSchema = z.object(workFields).passthrough();

const shapeFields = {
  ...workFields,
  type: z.enum(['seq', 'mpi']).optional(),
  comm_vol: nonNeg.optional(),
  t_compute: num.min(0).max(1).optional(),
  tasks: z.array(TaskSchema).min(1).optional(),
};

const ProfileSchema = z.object(shapeFields).passthrough();

const JobSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]),
    subtime: nonNeg,
    profile: z.string().optional(),
    res: z.number().int().positive().optional(),
    ntasks: z.number().int().positive().optional(),
    nodes: z.number().int().positive().optional(),
    ntasks_per_node: z.number().int().positive().optional(),
    ...shapeFields,
  })
  .passthrough();

/** Native / IRMaSim workload file. */
export const NativeWorkloadSchema = z
  .object({
    jobs: z.array(JobSchema),
    profiles: z.record(ProfileSchema).default({}),
  })
  .passthrough();

type WorkFieldsIn = { req_ops?: number | undefined; ipc?: number | undefined; runtime?: number | undefined; mem?: number | undefined; mem_vol?: number | undefined };

function taskWork(t: WorkFieldsIn, fallback: WorkFieldsIn, ops: boolean): TaskWork {
  const reqOps = t.req_ops ?? fallback.req_ops ?? 0;
  const ipc = t.ipc ?? fallback.ipc ?? 1;
  return {
    ops: ops ? Math.ceil(reqOps / ipc) : 0,
    runtime: ops ? 0 : (t.runtime ?? fallback.runtime ?? 0),
    mem: t.mem ?? fallback.mem ?? 0,
    memVol: t.mem_vol ?? fallback.mem_vol ?? 0,
  };
}

/** Parses a native/IRMaSim workload already read from `where`. */
export function parseNativeWorkload(data: unknown, where: string, name = where): Workload {
  const r = NativeWorkloadSchema.safeParse(data);
  if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
  const { jobs: rawJobs, profiles } = r.data;
  const seen = new Set<string>();
  const jobs: Job[] = rawJobs.map((raw, i) => {
    const at = (...p: (string | number)[]) => jsonPath(['jobs', i, ...p]);
    const fail = (msg: string, ...p: (string | number)[]): never => {
      throw new InputError(`${at(...p)}: ${msg}`, where);
    };
    let prof: z.infer<typeof ProfileSchema> = {};
    if (raw.profile !== undefined) {
      const p = profiles[raw.profile];
      if (!p) fail(`unknown profile ${JSON.stringify(raw.profile)}; expected one of ${Object.keys(profiles).join(', ') || '(no profiles defined)'}`, 'profile');
      prof = p!;
    }
    const id = String(raw.id);
    if (seen.has(id)) fail(`duplicate job id ${JSON.stringify(id)}`, 'id');
    seen.add(id);
    const f = { ...prof, ...Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) } as z.infer<typeof JobSchema>;

    // Shape: res | ntasks/nodes/ntasks_per_node | tasks.length
    let ntasks: number;
    let type: JobType;
    let nodes = 0;
    let perNode = 0;
    if (raw.res !== undefined) {
      if (raw.ntasks !== undefined || raw.nodes !== undefined) fail('give either `res` or `ntasks`/`nodes`, not both', 'res');
      ntasks = raw.res;
      type = f.type ?? 'seq';
      if (type === 'seq') nodes = 1;
    } else if (raw.ntasks !== undefined || raw.nodes !== undefined || raw.ntasks_per_node !== undefined) {
      const tpnGiven = raw.ntasks_per_node !== undefined;
      const tpn = raw.ntasks_per_node ?? 1;
      if (raw.ntasks !== undefined) {
        ntasks = raw.ntasks;
        const derived = Math.ceil(ntasks / tpn);
        if (raw.nodes !== undefined && raw.nodes !== derived)
          fail(
            `inconsistent nodes/ntasks/ntasks_per_node: ${ntasks} tasks at ${tpn} per node${tpnGiven ? '' : ' (the default)'} need ${derived} nodes, found nodes = ${raw.nodes}`,
            'nodes',
          );
        nodes = derived;
      } else {
        nodes = raw.nodes ?? 1;
        ntasks = nodes * tpn;
      }
      perNode = tpn;
      if (f.type === 'seq' && raw.nodes === undefined && raw.ntasks_per_node === undefined) {
        // `type: seq` with only `ntasks`: all tasks on one node.
        nodes = 1;
      }
      if (f.type === 'seq' && nodes > 1) fail(`a seq job runs on one node; found nodes = ${nodes}`, 'type');
      if (f.type === 'mpi' && raw.nodes === undefined && raw.ntasks_per_node === undefined) {
        // `type: mpi` with only `ntasks`: tasks may go anywhere.
        nodes = 0;
        perNode = 0;
      }
      type = nodes === 1 ? (f.type ?? 'seq') : 'mpi';
      if (type === 'seq') {
        nodes = 1;
        perNode = 0;
      }
    } else if (f.tasks) {
      ntasks = f.tasks.length;
      type = f.type ?? 'seq';
      nodes = type === 'seq' ? 1 : 0;
    } else {
      return fail('the job has no size: expected `res`, `ntasks`, `nodes` or `tasks`');
    }
    if (f.tasks && f.tasks.length !== ntasks) fail(`expected ${ntasks} task profiles (one per task), found ${f.tasks.length}`, 'tasks');

    // Work model
    const hasOps = f.req_ops !== undefined || (f.tasks?.every((t) => t.req_ops !== undefined) ?? false);
    const hasRuntime = f.runtime !== undefined || (f.tasks?.every((t) => t.runtime !== undefined) ?? false);
    if (!hasOps && !hasRuntime) fail('no work: expected `req_ops` (ops model) or `runtime` (delay model), inline or in the profile');
    if (hasOps && hasRuntime && f.req_ops !== undefined && f.runtime !== undefined) fail('give either `req_ops` or `runtime`, not both');
    const ops = hasOps;
    const base = taskWork(f, {}, ops);
    const tasks = f.tasks ? f.tasks.map((t) => taskWork(t, f, ops)) : null;
    if (ops) {
      const zero = tasks ? tasks.some((t) => t.ops <= 0) : base.ops <= 0;
      if (zero) fail('req_ops must be > 0', 'req_ops');
    } else {
      const zero = tasks ? tasks.some((t) => t.runtime <= 0) : base.runtime <= 0;
      if (zero) fail('runtime must be > 0', 'runtime');
    }
    let reqTime = f.req_time;
    if (reqTime === undefined) {
      if (ops) fail('missing req_time (the user estimate, seconds), inline or in the profile', 'req_time');
      reqTime = tasks ? Math.max(...tasks.map((t) => t.runtime)) : base.runtime;
    }
    const isMpi = type === 'mpi';
    return {
      id,
      subtime: raw.subtime,
      ntasks,
      reqTime: reqTime!,
      type,
      work: ops ? 'ops' : 'delay',
      ops: base.ops,
      runtime: base.runtime,
      mem: base.mem,
      memVol: base.memVol,
      commVol: isMpi ? (f.comm_vol ?? 0) : 0,
      tCompute: isMpi ? (f.t_compute ?? 1) : 1,
      nodes,
      ntasksPerNode: perNode,
      tasks,
      profile: raw.profile,
      source: at(),
    } satisfies Job;
  });
  return { name, jobs: sortBySubmission(jobs), skipped: {} };
}
