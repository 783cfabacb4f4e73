/**
 * A Slurm site's job records: read from an SWF trace, `sacct -P` or `sacct --json` (`readTrace`), and
 * written for replays (`traceToSwf`, `traceToSacctJson`, which also carries whole-node jobs and memory),
 * with the seeded sleep workloads the live comparisons use (`sleepTrace`).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { derive } from '../core/rng.js';
import { loadSwf } from '../workload/swf.js';

/** One job record as a site keeps it. */
export interface TraceJob {
  id: string;
  /** Submission (s, any origin). */
  submit: number;
  /** Run time (s). */
  runTime: number;
  /** Time limit (s; Infinity when unlimited). */
  timeLimit: number;
  cpus: number;
  /** Nodes (0 when the record has none: SWF). */
  nodes: number;
  user: string;
  partition: string | undefined;
  /** Whole nodes (`--exclusive`; on a whole-node slurm.conf every job is). */
  exclusive?: boolean;
  /** Memory per node asked (MB; `--mem`); absent: the cluster's default. */
  memMb?: number;
  /** GPUs allocated over the job (`gres/gpu[:TYPE]` of its TRES; issue 45), absent without. */
  gpus?: TraceGpus | undefined;
}

/** A record's GPUs: how many over the job, and their type when the TRES names one. */
export interface TraceGpus {
  count: number;
  type: string | undefined;
}

/**
 * The GPUs of a TRES list (`sacct -P`'s AllocTRES/ReqTRES: `cpu=8,gres/gpu:v100=2,gres/gpu=2,...`;
 * `sacct --json`'s `{ type: "gres", name: "gpu" | "gpu:v100", count }`): the typed entry when there is one.
 */
export function tresGpus(entries: readonly { name: string; count: number }[]): TraceGpus | undefined {
  let out: TraceGpus | undefined;
  for (const e of entries) {
    const m = /^(?:gres\/)?gpu(?::([^=,]+))?$/.exec(e.name.trim());
    if (m === null || !(e.count > 0)) continue;
    if (m[1] !== undefined) return { count: e.count, type: m[1] };
    out = { count: e.count, type: undefined };
  }
  return out;
}

/** A `sacct -P` TRES string (`billing=2,cpu=2,gres/gpu:v100=4,gres/gpu=4,node=1`) as entries. */
function tresEntries(s: string): { name: string; count: number }[] {
  return s
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => ({ name: kv.slice(0, kv.indexOf('=')), count: Number(kv.slice(kv.indexOf('=') + 1)) }));
}

/** The records of a file, and its format. */
export interface Trace {
  format: 'swf' | 'sacct-json' | 'sacct-parsable';
  jobs: TraceJob[];
  /** Records left out, by reason. */
  skipped: Record<string, number>;
}

/** Slurm's elapsed/limit syntax `[D-]HH:MM:SS` or `MM:SS` (seconds); `UNLIMITED`/`Partition_Limit`: Infinity. */
export function parseElapsed(s: string): number {
  const t = s.trim();
  if (/^(unlimited|infinite|partition_limit)$/i.test(t)) return Number.POSITIVE_INFINITY;
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$/.exec(t);
  if (!m) return Number.NaN;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

/** An ISO date of sacct (`2024-01-01T10:00:00`, taken as UTC: only differences matter) in seconds. */
function isoSeconds(s: string): number {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(s)) return Number.NaN;
  return Date.parse(`${s.slice(0, 19)}Z`) / 1000;
}

const SacctNumber = z.union([
  z.number(),
  z.object({ number: z.number().optional(), set: z.boolean().optional(), infinite: z.boolean().optional() }).passthrough(),
]);
const SacctJsonSchema = z
  .object({
    jobs: z.array(
      z
        .object({
          job_id: z.number().int(),
          user: z.string().optional(),
          partition: z.string().optional(),
          allocation_nodes: z.number().int().optional(),
          state: z
            .object({ current: z.union([z.string(), z.array(z.string())]) })
            .passthrough()
            .optional(),
          time: z
            .object({
              submission: z.number(),
              start: z.number(),
              end: z.number(),
              elapsed: z.number().optional(),
              limit: SacctNumber.optional(),
            })
            .passthrough(),
          required: z.object({ CPUs: z.number().int().optional(), memory: z.number().optional() }).passthrough().optional(),
          exclusive: z.boolean().optional(),
          tres: z
            .object({ allocated: z.array(z.object({ type: z.string(), name: z.string().nullish(), count: z.number() }).passthrough()).optional() })
            .passthrough()
            .optional(),
        })
        .passthrough(),
    ),
  })
  .passthrough();

function sacctLimit(v: z.infer<typeof SacctNumber> | undefined): number {
  if (v === undefined) return Number.POSITIVE_INFINITY;
  if (typeof v === 'number') return v * 60;
  if (v.infinite || v.set === false || v.number === undefined) return Number.POSITIVE_INFINITY;
  return v.number * 60;
}

/**
 * Reads `sacct --json` output (Slurm 22.05's and later layouts): finished jobs only. `required.memory` is
 * read as MB per node; `exclusive: true` (clustergym's: sacct does not say whether a job asked for
 * `--exclusive`; `traceToSacctJson` writes it) marks a job on whole nodes.
 */
function readSacctJson(text: string, file: string): Trace {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not JSON: ${(e as Error).message}`, file);
  }
  const p = SacctJsonSchema.safeParse(raw);
  if (!p.success) throw inputErrorFromIssues(file, p.error.issues);
  const jobs: TraceJob[] = [];
  const skipped: Record<string, number> = {};
  for (const j of p.data.jobs) {
    const t = j.time;
    if (!(t.start > 0 && t.end >= t.start)) {
      skipped['never started'] = (skipped['never started'] ?? 0) + 1;
      continue;
    }
    const cpus = j.required?.CPUs ?? j.tres?.allocated?.find((x) => x.type === 'cpu')?.count ?? 1;
    const gpus = tresGpus((j.tres?.allocated ?? []).filter((x) => x.type === 'gres').map((x) => ({ name: x.name ?? '', count: x.count })));
    jobs.push({
      id: String(j.job_id),
      submit: t.submission,
      runTime: t.elapsed ?? t.end - t.start,
      timeLimit: sacctLimit(t.limit),
      cpus: Math.max(1, cpus),
      nodes: j.allocation_nodes ?? 0,
      user: j.user ?? '0',
      partition: j.partition,
      ...(j.exclusive ? { exclusive: true } : {}),
      ...(j.required?.memory !== undefined && j.required.memory > 0 && j.required.memory < 2 ** 40 ? { memMb: j.required.memory } : {}),
      ...(gpus !== undefined ? { gpus } : {}),
    });
  }
  return { format: 'sacct-json', jobs, skipped };
}

/** Reads `sacct -P` output (`|`-separated, a header line naming the fields); job steps are left out. */
function readSacctParsable(text: string, file: string): Trace {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0]!.split('|').map((h) => h.trim().toLowerCase());
  const col = (...names: string[]) => names.map((n) => header.indexOf(n)).find((i) => i >= 0) ?? -1;
  const cId = col('jobidraw', 'jobid');
  const cSubmit = col('submit');
  const cStart = col('start');
  const cEnd = col('end');
  const cElapsed = col('elapsedraw', 'elapsed');
  const cLimit = col('timelimitraw', 'timelimit');
  const cCpus = col('alloccpus', 'ncpus', 'reqcpus');
  const cNodes = col('nnodes');
  const cUser = col('user', 'uid');
  const cPart = col('partition');
  const cTres = col('alloctres', 'reqtres');
  const missing = [
    ['JobID', cId],
    ['Submit', cSubmit],
    ['Start', cStart],
    ['Elapsed or End', cElapsed >= 0 ? cElapsed : cEnd],
    ['Timelimit', cLimit],
    ['NCPUS (or AllocCPUS, ReqCPUS)', cCpus],
  ].filter(([, i]) => (i as number) < 0);
  if (missing.length > 0)
    throw new InputError(
      `line 1: sacct -P header lacks ${missing.map(([n]) => n).join(', ')} (run: sacct -P -o JobID,Submit,Start,End,Elapsed,Timelimit,NCPUS,NNodes,User,Partition)`,
      file,
    );
  const jobs: TraceJob[] = [];
  const skipped: Record<string, number> = {};
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.split('|');
    const where = `${file}:${i + 1}`;
    if (f.length < header.length) throw new InputError(`expected ${header.length} fields separated by "|", found ${f.length}`, where);
    const id = f[cId]!.trim();
    if (id.includes('.')) continue; // a job step
    const submit = isoSeconds(f[cSubmit]!);
    const start = isoSeconds(f[cStart]!);
    if (!Number.isFinite(submit)) throw new InputError(`Submit: expected a date like 2024-01-31T12:00:00, found ${JSON.stringify(f[cSubmit])}`, where);
    if (!Number.isFinite(start)) {
      skipped['never started'] = (skipped['never started'] ?? 0) + 1;
      continue;
    }
    let run: number;
    if (cElapsed >= 0) {
      const e = f[cElapsed]!.trim();
      run = header[cElapsed] === 'elapsedraw' ? Number(e) : parseElapsed(e);
    } else run = isoSeconds(f[cEnd]!) - start;
    if (!Number.isFinite(run) || run < 0)
      throw new InputError(`Elapsed: expected [D-]HH:MM:SS, found ${JSON.stringify(f[cElapsed >= 0 ? cElapsed : cEnd])}`, where);
    const lim = f[cLimit]!.trim();
    const limit = header[cLimit] === 'timelimitraw' ? (/^\d+$/.test(lim) ? Number(lim) * 60 : Number.POSITIVE_INFINITY) : parseElapsed(lim);
    if (Number.isNaN(limit)) throw new InputError(`Timelimit: expected [D-]HH:MM:SS or UNLIMITED, found ${JSON.stringify(lim)}`, where);
    const cpus = Number(f[cCpus]);
    if (!Number.isInteger(cpus) || cpus < 0) throw new InputError(`CPUs: expected an integer, found ${JSON.stringify(f[cCpus])}`, where);
    const nodes = cNodes >= 0 ? Number(f[cNodes]) : 0;
    const gpus = cTres >= 0 ? tresGpus(tresEntries(f[cTres]!)) : undefined;
    jobs.push({
      id,
      submit,
      runTime: run,
      timeLimit: limit,
      cpus: Math.max(1, cpus),
      nodes: Number.isInteger(nodes) ? nodes : 0,
      user: cUser >= 0 ? f[cUser]! : '0',
      partition: cPart >= 0 && f[cPart] !== '' ? f[cPart] : undefined,
      ...(gpus !== undefined ? { gpus } : {}),
    });
  }
  return { format: 'sacct-parsable', jobs, skipped };
}

/** Reads job records: `sacct --json` (a JSON object), `sacct -P` (a `|`-separated header) or SWF. */
export function readTrace(file: string): Trace {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read: ${(e as Error).message}`, file);
  }
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '' && !l.trimStart().startsWith(';')) ?? '';
  let trace: Trace;
  if (first.trimStart().startsWith('{')) trace = readSacctJson(text, file);
  else if (first.includes('|')) trace = readSacctParsable(text, file);
  else {
    const w = loadSwf(file);
    trace = {
      format: 'swf',
      jobs: w.jobs.map((j) => ({
        id: j.id,
        submit: j.subtime,
        runTime: j.runtime,
        timeLimit: j.reqTime,
        cpus: j.ntasks,
        nodes: 0,
        user: '0',
        partition: undefined,
      })),
      skipped: { ...w.skipped },
    };
  }
  if (trace.jobs.length === 0) throw new InputError('no job to replay', file);
  trace.jobs.sort((a, b) => a.submit - b.submit);
  return trace;
}

/** Options of `sleepTrace`. */
export interface SleepTraceOptions {
  jobs: number;
  seed: number;
  /** Run times uniform in [minRun, maxRun] (whole seconds). */
  minRun: number;
  maxRun: number;
  /** Nodes uniform in 1..maxNodes. */
  maxNodes: number;
  /** Nodes of the platform and the offered load: Poisson arrivals of mean gap `E[nodes x run] / (nodes x load)`. */
  platformNodes: number;
  load: number;
  /** Time limit = run x U(1, limitFactor), whole minutes (Slurm's unit). */
  limitFactor: number;
  /**
   * GPU jobs (issue 45): each job with probability `share` asks for 1..`perNode` GPUs on each of its nodes,
   * of a type drawn uniformly from `types` (`undefined` there: any type); drawn from their own stream
   * (`derive(seed, 'slurm-sleep-trace-gpus')`), so the jobs' other fields are those of the trace without GPUs.
   */
  gpus?: { share: number; perNode: number; types: readonly (string | undefined)[] };
}

/**
 * A small seeded workload of sleep jobs for comparing the engine with a live Slurm (jobs of a few
 * seconds on a few whole nodes; `derive(seed, 'slurm-sleep-trace')`).
 */
export function sleepTrace(o: SleepTraceOptions): TraceJob[] {
  const rng = derive(o.seed, 'slurm-sleep-trace');
  const meanWork = ((o.minRun + o.maxRun) / 2) * ((1 + o.maxNodes) / 2);
  const gap = meanWork / (o.platformNodes * o.load);
  const g = o.gpus;
  const grng = g === undefined ? null : derive(o.seed, 'slurm-sleep-trace-gpus');
  const out: TraceJob[] = [];
  let t = 0;
  for (let i = 0; i < o.jobs; i++) {
    if (i > 0) t += rng.exponential(1 / gap);
    const run = o.minRun + rng.int(o.maxRun - o.minRun + 1);
    const nodes = 1 + rng.int(o.maxNodes);
    const limit = Math.ceil((run * rng.uniform(1, o.limitFactor)) / 60) * 60;
    const job: TraceJob = {
      id: String(i + 1),
      submit: Math.round(t * 10) / 10,
      runTime: run,
      timeLimit: limit,
      cpus: nodes,
      nodes,
      user: '1',
      partition: undefined,
    };
    if (g !== undefined && grng!.uniform(0, 1) < g.share) {
      const perNode = 1 + grng!.int(g.perNode);
      job.gpus = { count: perNode * nodes, type: g.types[grng!.int(g.types.length)] };
    }
    out.push(job);
  }
  return out;
}

/**
 * `sacct --json`-shaped text of records (what `readTrace` reads back; `time.limit` in minutes,
 * `required.memory` MB per node, `exclusive` clustergym's, GPUs as `tres.allocated` gres), for workloads SWF cannot carry.
 */
export function traceToSacctJson(jobs: readonly TraceJob[]): string {
  // epoch seconds (sacct's), so that a submission at 0 is not read as "never started"
  const T0 = 1_700_000_000;
  const out = jobs.map((j) => ({
    job_id: Number(j.id),
    user: j.user,
    ...(j.partition !== undefined ? { partition: j.partition } : {}),
    allocation_nodes: j.nodes,
    time: { submission: T0 + j.submit, start: T0 + j.submit, end: T0 + j.submit + j.runTime, elapsed: j.runTime, limit: j.timeLimit / 60 },
    required: { CPUs: j.cpus, ...(j.memMb !== undefined ? { memory: j.memMb } : {}) },
    ...(j.exclusive ? { exclusive: true } : {}),
    ...(j.gpus !== undefined
      ? { tres: { allocated: [{ type: 'gres', name: j.gpus.type === undefined ? 'gpu' : `gpu:${j.gpus.type}`, count: j.gpus.count }] } }
      : {}),
  }));
  return `${JSON.stringify({ jobs: out }, null, 1)}\n`;
}

/**
 * SWF text of records (the 18 standard fields; processors = `nodes x cpusPerNode`, or the CPUs when
 * the record has no node count; user 1, status 1).
 */
export function traceToSwf(jobs: readonly TraceJob[], cpusPerNode: number, comment = 'clustergym sleepTrace'): string {
  const lines = [`; ${comment}`, `; MaxJobs: ${jobs.length}`];
  for (const j of jobs) {
    const procs = j.nodes > 0 ? j.nodes * cpusPerNode : j.cpus;
    const limit = Number.isFinite(j.timeLimit) ? j.timeLimit : -1;
    lines.push([j.id, j.submit, -1, j.runTime, procs, -1, -1, procs, limit, -1, 1, 1, 1, -1, 1, 1, -1, -1].join(' '));
  }
  return `${lines.join('\n')}\n`;
}
