/**
 * A Slurm site's job records (an SWF trace, `sacct -P` or `sacct --json` output) replayed on the
 * engine under a slurm.conf, as seed 004's runworkload replays them on a live Slurm (§3.3.2), and
 * schedules compared job by job.
 *
 * **Replay** with shrink factor `F` (`--shrink F`, a divisor: 2 halves every time): job `j` is submitted
 * at `(submit_j - first submit) / F`, runs `run_j / F` seconds, and its time limit is `limit_j / F`
 * rounded up to whole minutes (at least one), because Slurm keeps time limits in minutes (`sbatch -t`).
 * With whole nodes (`select/linear` or `OverSubscribe=EXCLUSIVE`) a job asks for its node count (the
 * record's, else `ceil(cpus / CPUs per node)` of its partition's smallest node); otherwise for its CPUs.
 * Users are numbered in order of appearance.
 *
 * **Schedule**: per job `{id, submit, start, end, nodes, state, backfilled}` (`backfilled`: started by
 * a backfill pass, Slurm's `Scheduler=Backfill`) and a summary: mean, 90th-percentile and largest wait
 * (`start - submit`), mean response, makespan (last end - first submission), utilisation
 * (`sum(units x (end - start)) / (units of the platform x makespan)`), and the jobs that **overtook**
 * (started while a job submitted before them in the same partition still waited: backfilling in the
 * scheduling-theory sense, whichever pass started it).
 *
 * **Comparison** of two schedules of the same jobs (engine vs Slurm, or Slurm vs Slurm): per job
 * `|start_a - start_b|` (median, 90th percentile, max), the Kolmogorov-Smirnov distance
 * `max_x |F_a(x) - F_b(x)|` of the two wait distributions, each side's summary, and the jobs that
 * overtook in one schedule and not in the other, with the job they passed and when each side started it.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../core/errors.js';
import { derive } from '../core/rng.js';
import { quantile } from '../core/statistics.js';
import { loadSwf } from '../workload/swf.js';
import { SlurmEngine, type SlurmJobInput } from './engine.js';
import { JobState, STATE_NAMES } from './jobs.js';
import { SlurmPlatform } from './platform.js';
import type { SlurmConf } from './slurmConf.js';

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
  /** GPUs allocated (`gres/gpu[:TYPE]` of its TRES; issue 45), absent without. */
  gpus?: { count: number; type: string | undefined } | undefined;
}

/**
 * The GPUs of a TRES list (`sacct -P`'s AllocTRES/ReqTRES: `cpu=8,gres/gpu:v100=2,gres/gpu=2,...`;
 * `sacct --json`'s `{ type: "gres", name: "gpu" | "gpu:v100", count }`): the typed entry when there is one.
 */
export function tresGpus(entries: readonly { name: string; count: number }[]): TraceJob['gpus'] {
  let out: TraceJob['gpus'];
  for (const e of entries) {
    const m = /^(?:gres\/)?gpu(?::([^=,]+))?$/.exec(e.name.trim());
    if (m === null || !(e.count > 0)) continue;
    if (m[1] !== undefined) return { count: e.count, type: m[1] };
    out = { count: e.count, type: undefined };
  }
  return out;
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
          required: z.object({ CPUs: z.number().int().optional() }).passthrough().optional(),
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

/** Reads `sacct --json` output (Slurm 22.05's and later layouts): finished jobs only. */
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
    jobs.push({
      id: String(j.job_id),
      submit: t.submission,
      runTime: t.elapsed ?? t.end - t.start,
      timeLimit: sacctLimit(t.limit),
      cpus: Math.max(1, cpus),
      nodes: j.allocation_nodes ?? 0,
      user: j.user ?? '0',
      partition: j.partition,
      gpus: tresGpus((j.tres?.allocated ?? []).filter((x) => x.type === 'gres').map((x) => ({ name: x.name ?? '', count: x.count }))),
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
    jobs.push({
      id,
      submit,
      runTime: run,
      timeLimit: limit,
      cpus: Math.max(1, cpus),
      nodes: Number.isInteger(nodes) ? nodes : 0,
      user: cUser >= 0 ? f[cUser]! : '0',
      partition: cPart >= 0 && f[cPart] !== '' ? f[cPart] : undefined,
      gpus:
        cTres >= 0
          ? tresGpus(
              f[cTres]!.split(',').map((kv) => {
                const eq = kv.indexOf('=');
                return { name: kv.slice(0, eq), count: Number(kv.slice(eq + 1)) };
              }),
            )
          : undefined,
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

/** A job as the replay submits it (engine and live Slurm alike). */
export interface ReplayJob {
  /** The record's id. */
  id: string;
  /** Index in the replay (the engine's job id). */
  index: number;
  /** Submission (s from the start of the replay). */
  submit: number;
  /** Sleep (s). */
  runTime: number;
  /** Whole minutes. */
  limitMinutes: number;
  /** Nodes (whole nodes) or CPUs asked for. */
  units: number;
  partition: number;
  user: number;
  /** GPUs (issue 45). */
  gpus?: number;
  gpuType?: string;
}

/** The jobs of `trace` as replayed on `conf` with shrink divisor `shrink` (see the module comment). */
export function replayJobs(trace: Trace, conf: SlurmConf, shrink = 1): ReplayJob[] {
  const t0 = trace.jobs[0]!.submit;
  const users = new Map<string, number>();
  const parts = conf.partitions.map((p) => p.name);
  const minCpus = conf.partitions.map((p) => {
    const g = new Set(p.nodes);
    let m = Number.POSITIVE_INFINITY;
    for (const [i, names] of conf.groupNodes.entries()) if (names.some((n) => g.has(n))) m = Math.min(m, conf.groupCpus[i]!);
    return m;
  });
  return trace.jobs.map((j, index) => {
    let partition = conf.defaultPartition;
    if (j.partition !== undefined && parts.includes(j.partition)) partition = parts.indexOf(j.partition);
    if (!users.has(j.user)) users.set(j.user, users.size);
    const limit = Number.isFinite(j.timeLimit) ? j.timeLimit : conf.partitions[partition]!.maxTime;
    const limitMinutes = Number.isFinite(limit) ? Math.max(1, Math.ceil(limit / shrink / 60 - 1e-9)) : 365 * 1440;
    const units = conf.wholeNodes ? (j.nodes > 0 ? j.nodes : Math.ceil(j.cpus / minCpus[partition]!)) : j.cpus;
    const gpus = j.gpus ? { gpus: j.gpus.count, ...(j.gpus.type !== undefined ? { gpuType: j.gpus.type } : {}) } : {};
    return {
      id: j.id,
      index,
      submit: (j.submit - t0) / shrink,
      runTime: j.runTime / shrink,
      limitMinutes,
      units,
      partition,
      user: users.get(j.user)!,
      ...gpus,
    };
  });
}

/** One job of a schedule. */
export interface ScheduledJob {
  id: string;
  submit: number;
  start: number;
  end: number;
  /** Nodes (whole nodes; else `ceil(CPUs / CPUs per node)` of the group it ran on). */
  nodes: number;
  state: string;
  /** Started by a backfill pass (null when unknown). */
  backfilled: boolean | null;
  /** Slurm's node list (live runs only). */
  nodelist?: string;
}

/** The summary of a schedule (see the module comment). */
export interface ScheduleSummary {
  jobs: number;
  mean_wait: number;
  p90_wait: number;
  max_wait: number;
  mean_response: number;
  makespan: number;
  utilisation: number;
  /** Jobs started by a backfill pass. */
  backfill_starts: number;
  /** Jobs that started while a job submitted before them waited. */
  overtaking: number;
}

/** For each job, the ids of the jobs it overtook (submitted before it, same partition key, started after it). */
export function overtaken(jobs: readonly ScheduledJob[], partitionOf: (id: string) => number = () => 0): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const bySubmit = [...jobs].sort((a, b) => a.submit - b.submit);
  for (const [i, j] of bySubmit.entries()) {
    const passed: string[] = [];
    for (let k = 0; k < i; k++) {
      const e = bySubmit[k]!;
      if (e.submit < j.submit && partitionOf(e.id) === partitionOf(j.id) && e.start > j.start) passed.push(e.id);
    }
    out.set(j.id, passed);
  }
  return out;
}

/** The summary of a schedule on a platform of `capacity` units. */
export function summarise(jobs: readonly ScheduledJob[], capacity: number, units: (id: string) => number): ScheduleSummary {
  const ran = jobs.filter((j) => Number.isFinite(j.start));
  const waits = ran.map((j) => j.start - j.submit).sort((a, b) => a - b);
  const first = Math.min(...jobs.map((j) => j.submit));
  const last = Math.max(...ran.map((j) => j.end));
  const makespan = last - first;
  let work = 0;
  for (const j of ran) work += units(j.id) * (j.end - j.start);
  const over = overtaken(ran);
  return {
    jobs: jobs.length,
    mean_wait: waits.reduce((a, b) => a + b, 0) / Math.max(1, waits.length),
    p90_wait: quantile(waits, 0.9),
    max_wait: waits[waits.length - 1] ?? 0,
    mean_response: ran.reduce((a, j) => a + j.end - j.submit, 0) / Math.max(1, ran.length),
    makespan,
    utilisation: makespan > 0 ? work / (capacity * makespan) : 0,
    backfill_starts: ran.filter((j) => j.backfilled === true).length,
    overtaking: [...over.values()].filter((x) => x.length > 0).length,
  };
}

/**
 * Seconds a job holds its nodes beyond its sleep on the live Slurm (launch, exit, completion RPC):
 * the median of `end - start - run` over the live runs in docs/slurm.md (0.04-0.07 s).
 */
export const SLURM_JOB_OVERHEAD = 0.05;

/**
 * The engine's schedule of the replay jobs on `conf` (each job holding its nodes `jobOverhead` s beyond its run).
 * `clockPhase` (s): where the replay's time 0 falls on the wall clock, past a multiple of `bf_resolution`
 * (Slurm's backfill grid and will-run windows are on absolute time; a live run's phase is its first
 * submission's epoch time modulo 60 s): the engine runs with its clock shifted by it, and the schedule is
 * given back in replay time.
 */
export function engineSchedule(
  jobs: readonly ReplayJob[],
  conf: SlurmConf,
  jobOverhead = SLURM_JOB_OVERHEAD,
  clockPhase = 0,
): { jobs: ScheduledJob[]; summary: ScheduleSummary } {
  const platform = new SlurmPlatform(conf.platform, conf.file);
  const users = Math.max(1, ...jobs.map((j) => j.user + 1));
  const engine = new SlurmEngine(platform, { ...conf.config, users });
  const out: ScheduledJob[] = new Array(jobs.length);
  engine.onFinish((J, s) => {
    const k = J.id[s]!;
    const g = J.group[s]!;
    const cpn = platform.coresPerNode[g] ?? 1;
    out[k] = {
      id: jobs[k]!.id,
      submit: J.submit[s]! - clockPhase,
      start: J.start[s]! - clockPhase,
      end: J.end[s]! - clockPhase,
      nodes: g >= 0 ? Math.ceil(J.cores[s]! / cpn) : 0,
      state: STATE_NAMES[J.state[s]!]!,
      backfilled: J.state[s] === JobState.Refused ? null : J.backfilled[s] === 1,
    };
  });
  engine.stream(
    jobs.map(
      (j): SlurmJobInput => ({
        id: j.index,
        submit: j.submit + clockPhase,
        cores: j.units,
        timeLimit: j.limitMinutes * 60,
        runTime: Math.min(j.runTime + jobOverhead, j.limitMinutes * 60),
        user: j.user,
        partition: j.partition,
        ...(j.gpus !== undefined ? { gpus: j.gpus, gpuType: j.gpuType } : {}),
      }),
    ),
  );
  engine.run();
  const units = new Map(jobs.map((j) => [j.id, j.units]));
  return { jobs: out, summary: summarise(out, platform.totalCores, (id) => units.get(id) ?? 0) };
}

/** Per-job start differences and distribution distances of two schedules of the same jobs. */
export interface ScheduleComparison {
  /** Jobs in both schedules that started in both. */
  jobs: number;
  start_diff: { median: number; p90: number; max: number; mean: number };
  ks_wait: number;
  a: ScheduleSummary;
  b: ScheduleSummary;
  /** Jobs that overtook in one schedule and not in the other. */
  backfill_differences: { id: string; overtook_in: 'a' | 'b'; passed: string[]; start_a: number; start_b: number; reason: string }[];
}

/** The Kolmogorov-Smirnov distance of two samples. */
export function ksDistance(a: readonly number[], b: readonly number[]): number {
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!);
    while (i < x.length && x[i]! <= v) i++;
    while (j < y.length && y[j]! <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
}

/** Compares schedule `a` with `b` (`names` for the reasons: `['engine', 'slurm']`). */
export function compareSchedules(
  a: { jobs: readonly ScheduledJob[]; summary: ScheduleSummary },
  b: { jobs: readonly ScheduledJob[]; summary: ScheduleSummary },
  names: [string, string] = ['a', 'b'],
): ScheduleComparison {
  const bById = new Map(b.jobs.map((j) => [j.id, j]));
  const diffs: number[] = [];
  for (const j of a.jobs) {
    const k = bById.get(j.id);
    if (k && Number.isFinite(j.start) && Number.isFinite(k.start)) diffs.push(Math.abs(j.start - k.start));
  }
  diffs.sort((p, q) => p - q);
  const oa = overtaken(a.jobs.filter((j) => Number.isFinite(j.start)));
  const ob = overtaken(b.jobs.filter((j) => Number.isFinite(j.start)));
  const aById = new Map(a.jobs.map((j) => [j.id, j]));
  const fmt = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));
  const differences: ScheduleComparison['backfill_differences'] = [];
  for (const j of a.jobs) {
    const pa = oa.get(j.id) ?? [];
    const pb = ob.get(j.id) ?? [];
    if (pa.length > 0 === pb.length > 0) continue;
    const inA = pa.length > 0;
    const passed = inA ? pa : pb;
    const first = passed[0]!;
    const [yes, no] = inA ? names : [names[1], names[0]];
    const startYes = inA ? j.start : bById.get(j.id)?.start;
    const startNo = inA ? bById.get(j.id)?.start : j.start;
    const otherYes = (inA ? aById : bById).get(first)?.start;
    const otherNo = (inA ? bById : aById).get(first)?.start;
    differences.push({
      id: j.id,
      overtook_in: inA ? 'a' : 'b',
      passed,
      start_a: j.start,
      start_b: bById.get(j.id)?.start ?? Number.NaN,
      reason:
        `${yes} started it at ${fmt(startYes)} s ahead of ${passed.length} earlier job(s) (job ${first} started at ${fmt(otherYes)} s); ` +
        `${no} started it at ${fmt(startNo)} s, ${(startNo ?? 0) >= (otherNo ?? 0) ? `after job ${first} (${fmt(otherNo)} s)` : 'before them too'}`,
    });
  }
  const waits = (s: { jobs: readonly ScheduledJob[] }) => s.jobs.filter((j) => Number.isFinite(j.start)).map((j) => j.start - j.submit);
  return {
    jobs: diffs.length,
    start_diff: {
      median: quantile(diffs, 0.5),
      p90: quantile(diffs, 0.9),
      max: diffs[diffs.length - 1] ?? Number.NaN,
      mean: diffs.reduce((p, q) => p + q, 0) / Math.max(1, diffs.length),
    },
    ks_wait: ksDistance(waits(a), waits(b)),
    a: a.summary,
    b: b.summary,
    backfill_differences: differences,
  };
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
}

/**
 * A small seeded workload of sleep jobs for comparing the engine with a live Slurm (jobs of a few
 * seconds on a few whole nodes; `derive(seed, 'slurm-sleep-trace')`).
 */
export function sleepTrace(o: SleepTraceOptions): TraceJob[] {
  const rng = derive(o.seed, 'slurm-sleep-trace');
  const meanWork = ((o.minRun + o.maxRun) / 2) * ((1 + o.maxNodes) / 2);
  const gap = meanWork / (o.platformNodes * o.load);
  const out: TraceJob[] = [];
  let t = 0;
  for (let i = 0; i < o.jobs; i++) {
    if (i > 0) t += rng.exponential(1 / gap);
    const run = o.minRun + rng.int(o.maxRun - o.minRun + 1);
    const nodes = 1 + rng.int(o.maxNodes);
    const limit = Math.ceil((run * rng.uniform(1, o.limitFactor)) / 60) * 60;
    out.push({ id: String(i + 1), submit: Math.round(t * 10) / 10, runTime: run, timeLimit: limit, cpus: nodes, nodes, user: '1', partition: undefined });
  }
  return out;
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
