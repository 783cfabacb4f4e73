/**
 * A Slurm site's job records (`records.ts`: an SWF trace, `sacct -P` or `sacct --json` output) replayed on
 * the engine under a slurm.conf, as seed 004's runworkload replays them on a live Slurm (§3.3.2), and
 * schedules compared job by job.
 *
 * **Replay** with shrink factor `F` (`--shrink F`, a divisor: 2 halves every time): job `j` is submitted
 * at `(submit_j - first submit) / F`, runs `run_j / F` seconds, and its time limit is `limit_j / F`
 * rounded up to whole minutes (at least one), because Slurm keeps time limits in minutes (`sbatch -t`).
 * With whole nodes (`select/linear` or `OverSubscribe=EXCLUSIVE`) a job asks for its node count (the
 * record's, else `ceil(cpus / CPUs per node)` of its partition's smallest node); otherwise for its CPUs.
 * Users are numbered in order of appearance. A record with GPUs (its TRES) asks for `ceil(GPUs / nodes)` on
 * each of its nodes (`--gres=gpu[:TYPE]:N`, the record's type), and, unless it has whole nodes, for exactly
 * its node count (the record's, else 1: `-N`), so that it gets the GPUs it had (issue 45).
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
import { InputError } from '../core/errors.js';
import { quantile } from '../core/statistics.js';
import type { JobShape, SlurmConfig, SlurmJobInput } from './config.js';
import { JobPhase } from '../core/engine.js';
import { STATE_NAMES } from './states.js';
import { SlurmPlatform } from './platform.js';
import { presetEndPhase, runSlurmPreset } from './preset.js';
import type { Trace } from './records.js';
import type { ClusterSimulator } from '../execution/simulator.js';
import type { JobRecord } from '../execution/running.js';
import type { SlurmConf } from './slurmConf.js';

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
  /** Units: nodes (whole-node slurm.conf) or CPUs (a job on whole nodes of a CPU slurm.conf: its nodes' CPUs). */
  units: number;
  /** Whole nodes: how many (0: a job of `units` CPUs on any nodes). */
  nodes: number;
  /** Memory per node (MB, `--mem`; 0: none given). */
  memMb: number;
  partition: number;
  user: number;
  /** GPUs on each of its nodes and their type (absent: none, any type); a job with GPUs on CPUs runs on `gpuNodes` nodes. */
  gpus?: number;
  gpuType?: string;
  gpuNodes?: number;
  /** A live run's (`engineForRun`): seconds its nodes stayed `COMPLETING` after its end, and whether an epilog message released them (`SlurmJobInput.completing`, `epilogPass`). */
  completing?: number;
  epilogPass?: boolean;
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
    const nodes = j.nodes > 0 ? j.nodes : Math.ceil(j.cpus / minCpus[partition]!);
    const whole = conf.wholeNodes || j.exclusive === true || conf.partitions[partition]!.exclusive;
    const units = conf.wholeNodes ? nodes : whole ? nodes * minCpus[partition]! : j.cpus;
    return {
      id: j.id,
      index,
      submit: (j.submit - t0) / shrink,
      runTime: j.runTime / shrink,
      limitMinutes,
      units,
      nodes: whole ? nodes : 0,
      memMb: j.memMb ?? 0,
      partition,
      user: users.get(j.user)!,
      ...(j.gpus !== undefined
        ? {
            gpus: Math.ceil(j.gpus.count / Math.max(1, j.nodes)),
            ...(j.gpus.type !== undefined ? { gpuType: j.gpus.type } : {}),
            gpuNodes: Math.max(1, j.nodes),
          }
        : {}),
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
  /**
   * Live runs with slurmctld's log at `debug2`: when the job's nodes left `COMPLETING` (s, the run's time), and
   * whether by an epilog message (`ctldCompletions`); the engine replays them (`ReplayJob.completing`).
   */
  released?: number;
  epilog?: boolean;
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
 * given back in replay time. `ctldStart` (s, replay time): when slurmctld started (a live run's, from its
 * log): multifactor priorities are recomputed every `PriorityCalcPeriod` from there, as Slurm's decay
 * thread does; absent: a period after the first submission, then every period. The engine is the one engine
 * running the Slurm preset (`preset.ts`; what it does not model yet is an `InputError` naming it).
 */
export function engineSchedule(
  jobs: readonly ReplayJob[],
  conf: SlurmConf,
  jobOverhead = SLURM_JOB_OVERHEAD,
  clockPhase = 0,
  ctldStart?: number,
  timers?: { bg?: readonly number[]; bf?: readonly number[] },
): { jobs: ScheduledJob[]; summary: ScheduleSummary } {
  const platform = new SlurmPlatform(conf.platform, conf.file);
  const users = Math.max(1, ...jobs.map((j) => j.user + 1));
  const priority = { ...conf.config.priority! };
  if (ctldStart !== undefined) priority.calcPhase = (((ctldStart + clockPhase) % priority.calcPeriod) + priority.calcPeriod) % priority.calcPeriod;
  const shift = (xs: readonly number[] | undefined) => (xs === undefined ? undefined : xs.map((t) => t + clockPhase));
  const clocks: Partial<SlurmConfig> = {
    ...(ctldStart !== undefined ? { timerOrigin: ctldStart + clockPhase } : {}),
    ...(timers?.bg && timers.bg.length >= 2 ? { bgTickTimes: shift(timers.bg)! } : {}),
    ...(timers?.bf && timers.bf.length >= 1 ? { bfTickTimes: shift(timers.bf)! } : {}),
  };
  const config: Partial<SlurmConfig> = { ...conf.config, priority, users, ...clocks };
  const out: ScheduledJob[] = new Array(jobs.length);
  // a job's nodes: its units over its first node's group's units per node (0: refused)
  const row = (k: number, submit: number, start: number, end: number, units: number, g: number, state: JobPhase, backfilled: boolean): void => {
    out[k] = {
      id: jobs[k]!.id,
      submit: submit - clockPhase,
      start: start - clockPhase,
      end: end - clockPhase,
      nodes: g >= 0 ? Math.ceil(units / (platform.coresPerNode[g] ?? 1)) : 0,
      state: STATE_NAMES[state]!,
      backfilled: state === JobPhase.Rejected ? null : backfilled,
    };
  };
  // in submission order (a live run's submissions may come out of the replay's order: `engineForRun`)
  const order = jobs.every((j, i) => i === 0 || jobs[i - 1]!.submit <= j.submit) ? jobs : [...jobs].sort((a, b) => a.submit - b.submit || a.index - b.index);
  const inputs = order.map(
    (j): SlurmJobInput => ({
      id: j.index,
      submit: j.submit + clockPhase,
      cores: j.units,
      ...(conf.config.nodeSelect ? { shape: shapeOf(j, conf) } : {}),
      timeLimit: j.limitMinutes * 60,
      runTime: Math.min(j.runTime + jobOverhead, j.limitMinutes * 60),
      user: j.user,
      partition: j.partition,
      ...(j.gpus !== undefined ? { gpus: j.gpus, ...(j.gpuType !== undefined ? { gpuType: j.gpuType } : {}) } : {}),
      ...(j.completing !== undefined ? { completing: j.completing } : {}),
      ...(j.epilogPass !== undefined ? { epilogPass: j.epilogPass } : {}),
    }),
  );
  // the one engine running the Slurm preset (preset.ts): what it does not model yet is an InputError naming it
  const submitted = new Map(inputs.map((j) => [String(j.id), j.submit]));
  const byBackfill = new Set<string>();
  const end = (sim: ClusterSimulator, r: JobRecord, state: JobPhase) =>
    row(Number(r.job.id), submitted.get(r.job.id)!, r.start, r.finish, r.job.ntasks, sim.platform.nodeGroup[r.nodes[0]!]!, state, byBackfill.has(r.job.id));
  runSlurmPreset(
    platform.spec,
    inputs,
    config,
    [
      {
        onEnd: (sim, r) => end(sim, r, presetEndPhase(r)),
        onReject: (_s, r) => row(Number(r.job.id), submitted.get(r.job.id)!, Number.NaN, Number.NaN, 0, -1, JobPhase.Rejected, false),
      },
    ],
    undefined,
    (job) => void byBackfill.add(job.id),
  );
  const units = new Map(jobs.map((j) => [j.id, j.units]));
  return { jobs: out, summary: summarise(out, platform.totalCores, (id) => units.get(id) ?? 0) };
}

/**
 * How a replay job asks for nodes on the engine with `nodeSelect`: whole nodes, or CPUs with the memory it
 * asks for (else the partition's or the cluster's `DefMemPerCPU`/`DefMemPerNode`, else, when memory is
 * consumable, the whole node's, which Slurm gives a job that names none: `DefMemPerNode`'s default, 0, is
 * "unlimited"). The whole node's memory is `--mem` of the partition's nodes' `RealMemory`, which a partition
 * of nodes of unequal memory cannot say in one request: an `InputError` there (not modelled yet).
 */
export function shapeOf(j: ReplayJob, conf: SlurmConf): JobShape {
  if (conf.wholeNodes) return { whole: true, minNodes: j.units };
  if (j.nodes > 0) return { whole: true, minNodes: j.nodes };
  // a GPU job on exactly its nodes (`-N`)
  const n = j.gpuNodes !== undefined ? { minNodes: j.gpuNodes, maxNodes: j.gpuNodes } : {};
  if (j.memMb > 0) return { memPerNode: j.memMb, ...n };
  const part = conf.partitions[j.partition]!;
  const perCpu = part.defMemPerCpu ?? conf.defMemPerCpu;
  const perNode = part.defMemPerNode ?? conf.defMemPerNode;
  if (perCpu !== undefined) return { memPerCpu: perCpu, ...n };
  if (perNode !== undefined) return { memPerNode: perNode, ...n };
  if (!conf.memory) return n;
  const groups = new Set(conf.platform.partitions[j.partition]?.groups ?? []);
  const mems = new Set(conf.platform.groups.filter((g) => groups.has(g.name)).map((g) => g.memory_mb));
  const [mem] = mems;
  if (mems.size !== 1 || mem === undefined)
    throw new InputError(
      `job ${j.id}: names no memory, so Slurm gives it the whole memory of each of its nodes (memory is consumable and no DefMemPerCPU or DefMemPerNode is set), and partition ${part.name}'s nodes have unequal memory (${[...mems].join(', ')} MB); the replay does not model that yet: set DefMemPerCPU or DefMemPerNode, or give the jobs --mem`,
      conf.file,
    );
  return { memPerNode: mem, ...n };
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
