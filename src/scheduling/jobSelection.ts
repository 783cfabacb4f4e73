/**
 * Job selection (DESIGN §4): the order in which a scheduler considers the waiting jobs. Each policy is
 * a priority key, lower first; ties keep arrival order (the sort is stable over the arrival-ordered
 * queue).
 *
 * | name                  | key                                                    | kind     |
 * |-----------------------|--------------------------------------------------------|----------|
 * | `fcfs` (`first`)      | submit time (arrival order)                            | arrival  |
 * | `random`              | a uniform number drawn for the job when it arrives     | static   |
 * | `sjf` (`shortest`)    | `req_time`                                             | static   |
 * | `ljf` (`longest`)     | `-req_time`                                            | static   |
 * | `smallest`            | `ntasks`                                               | static   |
 * | `low_mem`             | `mem` (MB per task; the largest task's when tasks differ) | static |
 * | `low_mem_bw` (`low_mem_ops`) | `mem_vol` (MB of traffic per task; largest task's) | static |
 * | `wfp3`                | `-(wait / req_time)^3 * ntasks`                        | dynamic  |
 * | `unicep`              | `-wait / (log2(ntasks) * req_time)`, `log2(1)` taken as 1 | dynamic |
 * | `f1`                  | `log10(req_time) * ntasks + 870 * log10(subtime)`      | static   |
 * | `multifactor`         | `-(partition tier, Slurm's multifactor priority)` (`multifactor.ts`) | dynamic |
 *
 * `wait = now - submit`. The last three are the priority functions of RLScheduler (Zhang et al.,
 * SC'20) and its F1 of Carastan-Santos & de Camargo (SC'17). Guards, as RLScheduler's own code does for
 * F1: a `req_time <= 0` is taken as 0.1 s in `wfp3`, `unicep` and `f1`, and a `subtime <= 0` as 0.1 s in
 * `f1`, so that no key is `-Infinity` or `NaN`. F1 uses the ORIGINAL submit time (the trace's, before the
 * simulator rebases time to the first submission: `subtime + sim.timeOrigin`), as RLScheduler does;
 * its `870 * log10(subtime)` term otherwise changes meaning with the trajectory's origin.
 *
 * Kinds tell a scheduler how to keep the queue ordered: `arrival` is the simulator's queue itself;
 * `static` keys depend on the job only, so the queue is kept sorted incrementally (insert on
 * submission); `dynamic` keys depend on the time and are re-sorted at every decision point
 * (`O(q log q)`). `random` is IRMaSim's: each job gets `random()` from the run's stream when it is
 * first keyed (on submission, in submission order: IRMaSim's `job.rand = random.random()`), and keeps
 * it; the queue is then sorted by it like any static key.
 */
import type { Rng } from '../core/rng.js';
import { maxTaskMem, type Job } from '../workload/job.js';
import { type MultifactorOptions, MultifactorSelection } from './multifactor.js';
import type { JobSelection } from './selection.js';

export type { JobSelection, SelectionKind } from './selection.js';

/** Names of the job-selection policies, canonical first. */
export const JOB_SELECTION_NAMES = ['fcfs', 'random', 'sjf', 'ljf', 'smallest', 'low_mem', 'low_mem_bw', 'wfp3', 'unicep', 'f1', 'multifactor'] as const;
/** A canonical job-selection name. */
export type JobSelectionName = (typeof JOB_SELECTION_NAMES)[number];
/** Other accepted spellings (IRMaSim's names). */
export const JOB_SELECTION_ALIASES: Readonly<Record<string, JobSelectionName>> = {
  first: 'fcfs',
  shortest: 'sjf',
  longest: 'ljf',
  low_mem_ops: 'low_mem_bw',
};

/** IRMaSim's job-selection names (its `Heuristic` manager), each an alias or a name here. */
export const IRMASIM_JOB_SELECTIONS = ['first', 'shortest', 'longest', 'smallest', 'low_mem', 'low_mem_ops', 'random'] as const;

/** `x` when positive, else 0.1 (RLScheduler's guard before a logarithm or a division). */
export function positiveOr01(x: number): number {
  return x > 0 ? x : 0.1;
}

/** `log2(ntasks)`, with `log2(1)` (and anything below 2) taken as 1. */
export function log2Tasks(ntasks: number): number {
  return ntasks >= 2 ? Math.log2(ntasks) : 1;
}

/** WFP3 key: `-(wait / req_time)^3 * ntasks`. */
export function wfp3Key(job: Job, now: number): number {
  const r = (now - job.subtime) / positiveOr01(job.reqTime);
  return -(r * r * r) * job.ntasks;
}

/** UNICEP key: `-wait / (log2(ntasks) * req_time)`. */
export function unicepKey(job: Job, now: number): number {
  return -(now - job.subtime) / (log2Tasks(job.ntasks) * positiveOr01(job.reqTime));
}

/** F1 key: `log10(req_time) * ntasks + 870 * log10(original subtime)`. */
export function f1Key(job: Job, origin: number): number {
  return Math.log10(positiveOr01(job.reqTime)) * job.ntasks + 870 * Math.log10(positiveOr01(job.subtime + origin));
}

/** Largest memory traffic of one task, MB. */
function maxTaskMemVol(job: Job): number {
  if (!job.tasks) return job.memVol;
  let m = 0;
  for (const t of job.tasks) if (t.memVol > m) m = t.memVol;
  return m;
}

/** Stable sort of `queue` (arrival order) by `key`, computed once per job. */
export function sortByKey(queue: readonly Job[], key: (job: Job) => number): Job[] {
  const n = queue.length;
  const keys = new Float64Array(n);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = key(queue[i]!);
    idx[i] = i;
  }
  idx.sort((a, b) => keys[a]! - keys[b]! || a - b);
  const out: Job[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = queue[idx[i]!]!;
  return out;
}

function keyed(name: JobSelectionName, kind: 'static' | 'dynamic', key: (job: Job, now: number, origin: number) => number): JobSelection {
  return {
    name,
    kind,
    key,
    order: (queue, now, origin = 0) => sortByKey(queue, (j) => key(j, now, origin)),
  };
}

/** First come, first served: arrival order. */
export const fcfsSelection: JobSelection = {
  name: 'fcfs',
  kind: 'arrival',
  key: (job) => job.subtime,
  order: (queue) => queue.slice(),
};

/** Shortest requested time first. */
export const sjfSelection = keyed('sjf', 'static', (j) => j.reqTime);
/** Longest requested time first. */
export const ljfSelection = keyed('ljf', 'static', (j) => -j.reqTime);
/** Fewest tasks first. */
export const smallestSelection = keyed('smallest', 'static', (j) => j.ntasks);
/** Least memory per task first. */
export const lowMemSelection = keyed('low_mem', 'static', (j) => maxTaskMem(j));
/** Least memory traffic per task first. */
export const lowMemBwSelection = keyed('low_mem_bw', 'static', (j) => maxTaskMemVol(j));
/** RLScheduler's WFP3. */
export const wfp3Selection = keyed('wfp3', 'dynamic', (j, now) => wfp3Key(j, now));
/** RLScheduler's UNICEP. */
export const unicepSelection = keyed('unicep', 'dynamic', (j, now) => unicepKey(j, now));
/** F1 (Carastan-Santos & de Camargo), as in RLScheduler. */
export const f1Selection = keyed('f1', 'static', (j, _now, origin) => f1Key(j, origin));

/** IRMaSim's random order: a number drawn from `rng` for each job when first keyed, kept for the job's life. */
export function randomSelection(rng: Rng): JobSelection {
  const drawn = new WeakMap<Job, number>();
  const key = (job: Job) => {
    let k = drawn.get(job);
    if (k === undefined) {
      k = rng.next();
      drawn.set(job, k);
    }
    return k;
  };
  return {
    name: 'random',
    kind: 'static',
    key,
    order: (queue) => sortByKey(queue, key),
  };
}

const FIXED: Readonly<Record<Exclude<JobSelectionName, 'random' | 'multifactor'>, JobSelection>> = {
  fcfs: fcfsSelection,
  sjf: sjfSelection,
  ljf: ljfSelection,
  smallest: smallestSelection,
  low_mem: lowMemSelection,
  low_mem_bw: lowMemBwSelection,
  wfp3: wfp3Selection,
  unicep: unicepSelection,
  f1: f1Selection,
};

/** The canonical name of a job-selection policy name or alias, or null when unknown. */
export function canonicalJobSelection(name: string): JobSelectionName | null {
  if ((JOB_SELECTION_NAMES as readonly string[]).includes(name)) return name as JobSelectionName;
  return JOB_SELECTION_ALIASES[name] ?? null;
}

/** The job-selection policy `name` (canonical); `rng` serves `random`, `multifactor` its options (a fresh one each call). */
export function makeJobSelection(name: JobSelectionName, rng: Rng, multifactor?: MultifactorOptions): JobSelection {
  if (name === 'random') return randomSelection(rng);
  if (name === 'multifactor') return new MultifactorSelection(multifactor);
  return FIXED[name];
}
