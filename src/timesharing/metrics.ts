/**
 * The outputs of the time-sharing simulator (seed 003, §2.2), separately for local and parallel
 * tasks:
 *
 * - Overhead (eq. 2.3): the mean over nodes of the mean over the node's tasks of task.trq, the mean
 *   time a task waits in RQ each time it is inserted there.
 * - Slowdown (eq. 2.4): the mean over jobs of job.tr / job.tc, tr the turnaround of the job's
 *   slowest task, tc its time on a dedicated cluster (CPU time plus, for a parallel job, one
 *   latency per exchange, two with blocking sends; for a local task its interactive waits).
 * - Correlation (eq. 2.5): 100 - 100 x mean over parallel jobs of (tr_slow - tr_fast) / tr_slow.
 * - Page faults (eq. 2.6): the mean over nodes of the mean over the node's tasks of
 *   task.nrpg_fault.
 * - mem_load: the mean over nodes of the time average of node.mem / node.M.
 *
 * Nodes without a task of the kind are left out of the means over nodes.
 */
import type { JobRecord, TaskRecord, TimeSharingSimulator } from './simulator.js';

/** The metrics of one kind of task. */
export interface KindMetrics {
  /** Eq. 2.4. */
  slowdown: number;
  /** Eq. 2.3, u.t. */
  overhead: number;
  /** Eq. 2.5 (parallel only; NaN for local tasks). */
  correlation: number;
  /** Eq. 2.6, faults per task. */
  page_faults: number;
  /** Jobs and tasks measured. */
  jobs: number;
  tasks: number;
}

/** The metrics of a run. */
export interface RunMetrics {
  parallel: KindMetrics;
  local: KindMetrics;
  /** Page faults of every task (eq. 2.6 as the thesis states it: local and parallel tasks). */
  page_faults: number;
  mem_load: number;
  /** Simulated time (u.t.) and events processed. */
  makespan: number;
  events: number;
}

/** Per-node figures (one row per node). */
export interface NodeMetrics {
  node: number;
  overhead_parallel: number;
  overhead_local: number;
  page_faults: number;
  mem_load: number;
  busy: number;
  tasks: number;
}

/** Mean over nodes of the per-node mean of `value` over the selected task records (eqs. 2.3, 2.6). */
export function nodeMean(records: readonly TaskRecord[], n: number, value: (r: TaskRecord) => number, select: (r: TaskRecord) => boolean = () => true): number {
  const sum = new Float64Array(n);
  const cnt = new Float64Array(n);
  for (const r of records) {
    if (!select(r)) continue;
    sum[r.node]! += value(r);
    cnt[r.node]! += 1;
  }
  let s = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (cnt[i]! > 0) {
      s += sum[i]! / cnt[i]!;
      k++;
    }
  }
  return k > 0 ? s / k : Number.NaN;
}

/** Eq. 2.4 over the given jobs. */
export function slowdown(jobs: readonly JobRecord[]): number {
  if (jobs.length === 0) return Number.NaN;
  let s = 0;
  for (const j of jobs) s += j.tr / j.tc;
  return s / jobs.length;
}

/** Eq. 2.5 over the given parallel jobs (jobs of one task count as perfectly correlated). */
export function correlation(jobs: readonly JobRecord[]): number {
  if (jobs.length === 0) return Number.NaN;
  let s = 0;
  for (const j of jobs) s += j.tr > 0 ? (j.tr - j.trFast) / j.tr : 0;
  return 100 - (s / jobs.length) * 100;
}

/** The metrics of a finished (or partly run) simulation. */
export function runMetrics(sim: TimeSharingSimulator): RunMetrics {
  const n = sim.cfg.n;
  const tr = sim.taskRecords;
  const kind = (local: boolean): KindMetrics => {
    const jobs = sim.records.filter((j) => (j.kind === 'local') === local);
    return {
      slowdown: slowdown(jobs),
      overhead: nodeMean(
        tr,
        n,
        (r) => r.trq,
        (r) => r.local === local,
      ),
      correlation: local ? Number.NaN : correlation(jobs),
      page_faults: nodeMean(
        tr,
        n,
        (r) => r.faults,
        (r) => r.local === local,
      ),
      jobs: jobs.length,
      tasks: tr.filter((r) => r.local === local).length,
    };
  };
  const loads = sim.memLoads();
  return {
    parallel: kind(false),
    local: kind(true),
    page_faults: nodeMean(tr, n, (r) => r.faults),
    mem_load: loads.reduce((a, b) => a + b, 0) / loads.length,
    makespan: sim.now,
    events: sim.events,
  };
}

/** Per-node rows. */
export function nodeMetrics(sim: TimeSharingSimulator): NodeMetrics[] {
  const loads = sim.memLoads();
  return sim.nodes.map((nd) => {
    const mine = sim.taskRecords.filter((r) => r.node === nd.index);
    const mean = (rs: TaskRecord[], f: (r: TaskRecord) => number) => (rs.length ? rs.reduce((a, r) => a + f(r), 0) / rs.length : Number.NaN);
    return {
      node: nd.index,
      overhead_parallel: mean(
        mine.filter((r) => !r.local),
        (r) => r.trq,
      ),
      overhead_local: mean(
        mine.filter((r) => r.local),
        (r) => r.trq,
      ),
      page_faults: mean(mine, (r) => r.faults),
      mem_load: loads[nd.index]!,
      busy: sim.now > 0 ? nd.busy / sim.now : 0,
      tasks: mine.length,
    };
  });
}

/** CSV of the per-node rows. */
export function nodeMetricsCsv(rows: readonly NodeMetrics[]): string {
  const head = 'node,overhead_parallel,overhead_local,page_faults,mem_load,busy,tasks';
  const fmt = (v: number) => (Number.isFinite(v) ? String(Math.round(v * 1e6) / 1e6) : '');
  return `${[head, ...rows.map((r) => [r.node, fmt(r.overhead_parallel), fmt(r.overhead_local), fmt(r.page_faults), fmt(r.mem_load), fmt(r.busy), r.tasks].join(','))].join('\n')}\n`;
}
