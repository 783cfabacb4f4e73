/**
 * A job's facets (`job.ts`) in native workload JSON: read (zod, errors with the JSON path) and written.
 *
 * ```json
 * { "id": "a", "subtime": 0, "user": "alice", "account": "physics", "partition": "normal", "qos": "high",
 *   "malleable": { "min": 2, "max": 32, "pref": 8, "factor": 2, "inhibit": 15, "steps": 10000,
 *                  "speedup": { "name": "cg", "t1": 0.2765, "serial": 0.1301 },
 *                  "resize_cost": { "expand": 0.423, "shrink": 0.425 } },
 *   "operator_events": [{ "after": 600, "duration": 120 }], "cpus_per_task": 0.5,
 *   "gpus": { "count": 4, "type": "v100", "job_type": "ResNet-50 (batch size 64)", "steps": 120000 } }
 * ```
 *
 * - `user`, `account`, `partition`, `qos`: names (a number is read as its decimal string).
 * - `malleable`: `steps` and `speedup` (Amdahl `{name, t1, serial}` or a table `{name, times: {"2": s,
 *   "4": s}}` of step times by node count; `name` defaults to `app`), the limits `min` and `max` (with
 *   `pref`, default none, `factor`, default 2, `inhibit`, default 0 s) or none of them (a rigid
 *   iterative job), and `resize_cost` (optional). The job's size is its shape (`nodes`; for a malleable
 *   job it defaults to `max` and must equal it); its work is its steps, so it gives no `req_ops`,
 *   `runtime` or `tasks`, and its `runtime` is `steps * d(nodes)` (`req_time` defaults to it).
 * - `operator_events`: `[{after, duration}]`, in increasing `after` (seconds of run, seconds suspended).
 * - `gpus` (`gpuRequest.ts`): `{count, type, per_node, job_type, steps, weight}`: `count` GPUs at once
 *   (in total, or on each of the job's `nodes` when `per_node`, default false), of `type` (default any);
 *   a deep-learning job gives `job_type` (a job type of the throughput table) and `steps` (its work; its
 *   `runtime` is what engines without the DL progress model run); `weight` is Gavel's priority weight
 *   (default 1).
 * - `cpus_per_task`: the cores each task holds (> 0, possibly fractional; `Job.cpusPerTask`).
 * - `slurm_request`: `{exclusive, min_nodes, max_nodes, cpus_per_task, mem_per_node, defaults}`, Slurm's node
 *   request (`--exclusive`, `-N MIN-MAX`, `-c`, `--mem` in MB; `defaults`: no node option given, the request
 *   not tested at submission; `Job.slurmRequest`), read by Slurm's select plugin
 *   (`--mem-per-cpu` is the job's `mem`, MB per task). An `exclusive` job gives its shape as whole nodes:
 *   `nodes` and `ntasks_per_node` (the cores of each).
 */
import { z } from 'zod';
import type { GpuRequest } from './gpuRequest.js';
import type { Job, OperatorEvent, SlurmRequest } from './job.js';
import type { MalleableWork, SpeedupModel } from './malleability.js';

const num = z.number().finite();
const positive = num.positive();
const count = z.number().int().positive();
const name = z.union([z.string().min(1), z.number().int()]).transform(String);

/** The facet fields of a native job. */
export const FACET_FIELDS = ['user', 'account', 'partition', 'qos', 'malleable', 'operator_events', 'cpus_per_task', 'gpus', 'slurm_request'] as const;

const SpeedupSchema = z
  .object({
    name: z.string().min(1).default('app'),
    t1: positive.optional(),
    serial: num.min(0).max(1).optional(),
    times: z.record(z.string().regex(/^[1-9]\d*$/, 'a node count (a positive integer)'), positive).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const amdahl = s.t1 !== undefined || s.serial !== undefined;
    if (amdahl === (s.times !== undefined) || (amdahl && (s.t1 === undefined || s.serial === undefined)))
      ctx.addIssue({ code: 'custom', message: 'expected `t1` and `serial` (Amdahl) or `times` (step times by node count), not both' });
  });

const MalleableSchema = z
  .object({
    min: count.optional(),
    max: count.optional(),
    pref: count.nullable().optional(),
    factor: z.number().int().min(2).optional(),
    inhibit: num.nonnegative().optional(),
    steps: count,
    speedup: SpeedupSchema,
    resize_cost: z.object({ expand: num.nonnegative(), shrink: num.nonnegative() }).strict().optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if ((m.min === undefined) !== (m.max === undefined))
      ctx.addIssue({ code: 'custom', message: 'give `min` and `max` together (the malleability limits), or neither (a rigid iterative job)' });
    if (m.max === undefined && (m.pref !== undefined || m.factor !== undefined || m.inhibit !== undefined))
      ctx.addIssue({ code: 'custom', message: '`pref`, `factor` and `inhibit` need the limits `min` and `max`' });
  });

const OperatorEventsSchema = z.array(z.object({ after: num.nonnegative(), duration: positive }).strict()).superRefine((es, ctx) => {
  for (let i = 1; i < es.length; i++)
    if (es[i]!.after < es[i - 1]!.after) ctx.addIssue({ code: 'custom', path: [i, 'after'], message: 'operator events must come in increasing `after`' });
});

const GpusSchema = z
  .object({
    count: count,
    type: z.string().min(1).optional(),
    per_node: z.boolean().default(false),
    job_type: z.string().min(1).optional(),
    steps: positive.optional(),
    weight: positive.default(1),
  })
  .strict()
  .refine((g) => (g.job_type === undefined) === (g.steps === undefined), { message: 'give `job_type` and `steps` together (a deep-learning job), or neither' });

const SlurmRequestSchema = z
  .object({
    exclusive: z.boolean().optional(),
    min_nodes: count.optional(),
    max_nodes: z.number().int().nonnegative().optional(),
    cpus_per_task: count.optional(),
    mem_per_node: positive.optional(),
    defaults: z.boolean().optional(),
  })
  .strict()
  .refine((r) => r.max_nodes === undefined || r.max_nodes === 0 || r.max_nodes >= (r.min_nodes ?? 1), {
    message: 'expected max_nodes >= min_nodes (or 0: no maximum)',
  });

/** The zod shape of the facet fields (spread into the native job schema). */
export const facetShape = {
  user: name.optional(),
  account: name.optional(),
  partition: name.optional(),
  qos: name.optional(),
  malleable: MalleableSchema.optional(),
  operator_events: OperatorEventsSchema.optional(),
  gpus: GpusSchema.optional(),
  cpus_per_task: positive.optional(),
  slurm_request: SlurmRequestSchema.optional(),
};

/** The facet fields of a parsed native job. */
export type RawFacets = { [K in keyof typeof facetShape]?: z.output<(typeof facetShape)[K]> };

/** The malleability facet of `raw` (validated by zod), or undefined. */
export function malleableWork(raw: RawFacets['malleable']): MalleableWork | undefined {
  if (raw === undefined) return undefined;
  const s = raw.speedup;
  const speedup: SpeedupModel =
    s.times !== undefined
      ? { name: s.name, times: Object.fromEntries(Object.entries(s.times).map(([k, v]) => [Number(k), v])) }
      : { name: s.name, t1: s.t1!, serial: s.serial! };
  const w: MalleableWork = {
    spec: raw.max !== undefined ? { min: raw.min!, max: raw.max, pref: raw.pref ?? null, factor: raw.factor ?? 2, inhibit: raw.inhibit ?? 0 } : null,
    steps: raw.steps,
    speedup,
  };
  if (raw.resize_cost !== undefined) w.resizeCost = { ...raw.resize_cost };
  return w;
}

/** The GPU facet of `raw` (validated by zod), or undefined. */
export function gpuRequest(raw: RawFacets['gpus']): GpuRequest | undefined {
  if (raw === undefined) return undefined;
  const g: GpuRequest = { count: raw.count, perNode: raw.per_node, weight: raw.weight };
  if (raw.type !== undefined) g.type = raw.type;
  if (raw.job_type !== undefined) g.dl = { jobType: raw.job_type, steps: raw.steps! };
  return g;
}

/** The facets of a parsed native job, as `Job` fields (only those given). */
export function jobFacets(raw: RawFacets): Partial<Job> {
  const out: Partial<Job> = {};
  if (raw.user !== undefined) out.user = raw.user;
  if (raw.account !== undefined) out.account = raw.account;
  if (raw.partition !== undefined) out.partition = raw.partition;
  if (raw.qos !== undefined) out.qos = raw.qos;
  if (raw.malleable !== undefined) out.malleable = malleableWork(raw.malleable);
  if (raw.operator_events !== undefined) out.operatorEvents = raw.operator_events.map((e): OperatorEvent => ({ after: e.after, duration: e.duration }));
  if (raw.gpus !== undefined) out.gpus = gpuRequest(raw.gpus);
  if (raw.cpus_per_task !== undefined) out.cpusPerTask = raw.cpus_per_task;
  const r = raw.slurm_request;
  if (r !== undefined) {
    const q: SlurmRequest = {};
    if (r.exclusive !== undefined) q.exclusive = r.exclusive;
    if (r.min_nodes !== undefined) q.minNodes = r.min_nodes;
    if (r.max_nodes !== undefined) q.maxNodes = r.max_nodes;
    if (r.cpus_per_task !== undefined) q.cpusPerTask = r.cpus_per_task;
    if (r.mem_per_node !== undefined) q.memPerNode = r.mem_per_node;
    if (r.defaults !== undefined) q.defaults = r.defaults;
    out.slurmRequest = q;
  }
  return out;
}

/** The native JSON fields of `job`'s facets (those it has), which `jobFacets` reads back. */
export function writeFacets(job: Job): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (job.user !== undefined) out['user'] = job.user;
  if (job.account !== undefined) out['account'] = job.account;
  if (job.partition !== undefined) out['partition'] = job.partition;
  if (job.qos !== undefined) out['qos'] = job.qos;
  const m = job.malleable;
  if (m !== undefined) {
    const w: Record<string, unknown> = {};
    if (m.spec) Object.assign(w, { min: m.spec.min, max: m.spec.max, pref: m.spec.pref, factor: m.spec.factor, inhibit: m.spec.inhibit });
    w['steps'] = m.steps;
    w['speedup'] =
      'times' in m.speedup ? { name: m.speedup.name, times: { ...m.speedup.times } } : { name: m.speedup.name, t1: m.speedup.t1, serial: m.speedup.serial };
    if (m.resizeCost) w['resize_cost'] = { ...m.resizeCost };
    out['malleable'] = w;
  }
  if (job.operatorEvents !== undefined) out['operator_events'] = job.operatorEvents.map((e) => ({ after: e.after, duration: e.duration }));
  const g = job.gpus;
  if (g !== undefined) {
    const w: Record<string, unknown> = { count: g.count };
    if (g.type !== undefined) w['type'] = g.type;
    if (g.perNode) w['per_node'] = true;
    if (g.dl !== undefined) Object.assign(w, { job_type: g.dl.jobType, steps: g.dl.steps });
    if (g.weight !== 1) w['weight'] = g.weight;
    out['gpus'] = w;
  }
  if (job.cpusPerTask !== undefined) out['cpus_per_task'] = job.cpusPerTask;
  const q = job.slurmRequest;
  if (q !== undefined) {
    const w: Record<string, unknown> = {};
    if (q.exclusive !== undefined) w['exclusive'] = q.exclusive;
    if (q.minNodes !== undefined) w['min_nodes'] = q.minNodes;
    if (q.maxNodes !== undefined) w['max_nodes'] = q.maxNodes;
    if (q.cpusPerTask !== undefined) w['cpus_per_task'] = q.cpusPerTask;
    if (q.memPerNode !== undefined) w['mem_per_node'] = q.memPerNode;
    if (q.defaults !== undefined) w['defaults'] = q.defaults;
    out['slurm_request'] = w;
  }
  return out;
}
