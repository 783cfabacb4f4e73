/**
 * Slurm 22.05's own backfill pass for whole-node allocation (`nodeSelect` + `bfWillRun`), as sched/backfill
 * (`_attempt_backfill`) and the select plugin's will-run test (cons_common `_will_run_test`) make it, written
 * for the one engine's Slurm backfill under `within: "nodes"` (`slurmBackfill.ts`, which reads its state
 * through `WillRunView`): a map of records `[begin, end)` on the `bf_resolution` grid, each with the nodes no
 * reservation of this pass holds, split and merged as `_add_reservation` does (running jobs are not in it:
 * no `bf_running_job_reserve`); for each pending job the will-run test (`willRunStart`) and the
 * `later_start` retries. What it models, and why, is the Slurm preset's `SlurmConfig.bfWillRun` and
 * docs/slurm.md. Cost per job tested: retries x (records x nodes + running jobs x nodes): meant for
 * partitions of tens of whole nodes.
 */
import { allocOf, evalNodes, giveBack, type NodeAlloc, type NodeCapacities, type NodeRequest, usableUnits } from './nodeSelection.js';

/** The nodes as the pass reads them now, by global node index. */
export interface WillRunNodes extends NodeCapacities {
  /** Units (CPUs, or 1 for a whole node) of each node, free now, memory free (MB), jobs on it, GPUs free. */
  readonly cap: ArrayLike<number>;
  readonly free: ArrayLike<number>;
  readonly memFree: ArrayLike<number>;
  readonly jobsOn: ArrayLike<number>;
  readonly gpuFree: ArrayLike<number>;
  /** GPUs of node `x` that `req` may use when `free` of them are free (0: none of its type). */
  gpusFor(req: NodeRequest, x: number, free: number): number;
}

/**
 * A job holding nodes: its expected end (`real`), the same as slurmctld's `end_time` on whole seconds (`end`), what
 * it holds, and its place among equal ends (`key`): its place in slurmctld's job list, the order of submission
 * (`_will_run_test` builds its list of running jobs from `job_list`, where `_create_job_record` appends each job as
 * it is submitted and a requeue keeps it, and sorts it by `end_time` with `list_sort`, glibc's `qsort`: a merge
 * sort, stable, so equal ends stay in submission order).
 */
export interface WillRunJob {
  real: number;
  end: number;
  hold: NodeAlloc;
  key: number;
}

/** What the will-run pass reads of an engine, and its one action (see the module comment). */
export interface WillRunView {
  /** Current time (s). */
  readonly now: number;
  readonly nodes: WillRunNodes;
  readonly nodeCount: number;
  /** The jobs holding nodes now (running or operator-suspended on them). */
  running(): WillRunJob[];
  /** Jobs still `COMPLETING` on each node (their nodes not yet released), or null when none has been. */
  readonly completing: ArrayLike<number> | null;
  /** What job `h` asks of the nodes, its time limit (s), and its partition's nodes (ascending). */
  request(h: number): NodeRequest;
  timeLimit(h: number): number;
  partitionNodes(h: number): Int32Array;
  /** Starts job `h` now on `alloc`; returns it as a job holding nodes. */
  start(h: number, alloc: NodeAlloc): WillRunJob;
}

/**
 * A running job's expected end as slurmctld holds it (`end_time`): its start in whole seconds (`time_t`;
 * a live run's engine clock is on the wall clock's seconds: `engineSchedule`'s `clockPhase`, src/slurm/trace.ts) plus its time limit.
 * The will-run test's 30 s windows (`_will_run_test`: `end_time % time_window`) group running jobs by it:
 * a job started at 60.53 s with a 2-minute limit ends at 180 s for Slurm, inside a window closing at 180 s.
 * Only the windows follow it: a start found behind a window is the latest own expected end of the jobs
 * removed (never before now while their nodes are held).
 */
export function wallClockEnd(end: number, lastResume: number, running: boolean): number {
  return running ? end - (lastResume - Math.floor(lastResume + 1e-9)) : end;
}

/** The pass's settings (slurm.conf's names). */
export interface WillRunSettings {
  /** bf_window (s). */
  window: number;
  /** bf_resolution (s). */
  resolution: number;
}

/** One pass over jobs `0 .. n)` of `v` in order; returns the number started (see the module comment). */
export function willRunPass(v: WillRunView, settings: WillRunSettings, n: number): number {
  const res = settings.resolution;
  const now = v.now;
  const N = v.nodeCount;
  const g0 = Math.floor(now / res + 1e-9) * res;
  const windowEnd = Math.max(g0 + res, Math.floor((now + settings.window) / res + 1e-9) * res);
  // the map: records in time order, each with the nodes free of reservations (1) in it
  const rb: number[] = [g0];
  const re: number[] = [windowEnd];
  const rav: Uint8Array[] = [new Uint8Array(N).fill(1)];
  const addReservation = (start: number, end: number, nodes: Int32Array): void => {
    start = Math.max(start, rb[0]!);
    if (end < start + res) end = start + res;
    let j = 0;
    while (j < rb.length && re[j]! <= start) j++;
    if (j === rb.length) return;
    if (rb[j]! < start) {
      // split record j at start
      rb.splice(j + 1, 0, start);
      re.splice(j + 1, 0, re[j]!);
      rav.splice(j + 1, 0, rav[j]!.slice());
      re[j] = start;
      j++;
    }
    const first = Math.max(0, j - 1);
    let last = j;
    for (; j < rb.length && rb[j]! < end; j++) {
      if (end < re[j]!) {
        rb.splice(j + 1, 0, end);
        re.splice(j + 1, 0, re[j]!);
        rav.splice(j + 1, 0, rav[j]!.slice());
        re[j] = end;
      }
      for (const x of nodes) rav[j]![x] = 0;
      last = j;
    }
    // merge neighbours with identical nodes (as _add_reservation drops duplicate records)
    for (let i = Math.min(last + 1, rb.length - 1); i > first; i--) {
      const a = rav[i - 1]!;
      const b = rav[i]!;
      let same = true;
      for (let x = 0; x < N && same; x++) same = a[x] === b[x];
      if (same) {
        re[i - 1] = re[i]!;
        rb.splice(i, 1);
        re.splice(i, 1);
        rav.splice(i, 1);
      }
    }
  };
  const overlaps = (nodes: Int32Array, start: number, end: number): boolean => {
    for (let j = 0; j < rb.length; j++) {
      if (re[j]! > start && rb[j]! < end) for (const x of nodes) if (!rav[j]![x]) return true;
    }
    return false;
  };
  // running jobs in order of expected end (ties: their places in the job list), with their ends
  const run = v.running();
  run.sort((a, b) => a.end - b.end || a.key - b.key);
  // nodes still COMPLETING (a job ended, slurmd has not answered yet: `SlurmJobInput.completing`); the select
  // plugin has their CPUs back, so the will-run test may choose them
  const cg = v.completing;
  let started = 0;
  for (let i = 0; i < n; i++) {
    const limit = v.timeLimit(i);
    const req = v.request(i);
    const best = willRunStart(v, settings, req, limit, v.partitionNodes(i), rb, re, rav, run, overlaps);
    if (best === null) continue; // no start within the window: no reservation
    // a start now on nodes still completing waits a second: a reservation from now + 1 (backfill.c: "Need
    // to wait for in-progress completion/epilog", `start_time = now + 1`)
    if (best.start <= now + 1e-9 && cg !== null && best.alloc.nodes.some((x) => cg[x]! > 0)) best.start = now + 1;
    if (best.start <= now + 1e-9) {
      // a job started now is in the map only when it holds its nodes whole (_bf_reserve_running)
      if (best.alloc.whole) addReservation(g0, Math.floor((now + limit) / res + 1e-9) * res, best.alloc.nodes);
      started++;
      // the will-run tests of later jobs see it among the running jobs
      const q = v.start(i, best.alloc);
      let at = run.length;
      while (at > 0 && (run[at - 1]!.end > q.end || (run[at - 1]!.end === q.end && run[at - 1]!.key > q.key))) at--;
      run.splice(at, 0, q);
    } else addReservation(Math.floor(best.start / res + 1e-9) * res, Math.floor((best.start + limit) / res + 1e-9) * res, best.alloc.nodes);
  }
  return started;
}

/**
 * The earliest start of job `req` (time limit `limit`) on the nodes `P` of its partition (the module
 * comment), and what it gets then, or null when it has none within the window.
 */
function willRunStart(
  v: WillRunView,
  settings: WillRunSettings,
  req: NodeRequest,
  limit: number,
  P: Int32Array,
  rb: readonly number[],
  re: readonly number[],
  rav: readonly Uint8Array[],
  run: readonly WillRunJob[],
  overlaps: (nodes: Int32Array, start: number, end: number) => boolean,
): { start: number; alloc: NodeAlloc } | null {
  const res = settings.resolution;
  const now = v.now;
  const nm = v.nodes;
  const m = P.length;
  const A = new Uint8Array(m);
  const inA = new Uint8Array(v.nodeCount);
  const avail = new Int32Array(m);
  const fFree = new Int32Array(m);
  const fMem = new Float64Array(m);
  const fJobs = new Int32Array(m);
  const fGpus = new Int32Array(m);
  let startRes = now;
  for (let attempt = 0; attempt < 64; attempt++) {
    const endTime = Math.max(startRes, now) + limit;
    A.fill(1);
    let later = 0;
    for (let j = 0; j < rb.length; j++) {
      if (re[j]! > startRes && j + 1 < rb.length && later === 0) {
        // a later record where a node not usable now becomes usable
        const next = rav[j + 1]!;
        const cur = rav[j]!;
        for (let x = 0; x < m; x++) {
          if (next[P[x]!] && !(A[x] && cur[P[x]!])) {
            later = re[j]!;
            break;
          }
        }
      }
      if (re[j]! <= startRes) continue;
      if (rb[j]! <= endTime + 1e-9) {
        const av = rav[j]!;
        for (let x = 0; x < m; x++) if (!av[P[x]!]) A[x] = 0;
      } else break;
    }
    let count = 0;
    for (let x = 0; x < m; x++) count += A[x]!;
    if (count < req.minNodes) {
      if (later > 0) {
        startRes = later;
        continue;
      }
      return null;
    }
    // will-run: the nodes as they are now, then running jobs removed in windows of 30 s, doubling
    for (let x = 0; x < m; x++) {
      const g = P[x]!;
      inA[g] = A[x]!;
      fFree[x] = nm.free[g]!;
      fMem[x] = nm.memFree[g]!;
      fJobs[x] = nm.jobsOn[g]!;
      fGpus[x] = nm.gpuFree[g]!;
      avail[x] = A[x] ? usableUnits(req, nm.cap[g]!, fFree[x]!, fMem[x]!, fJobs[x] === 0, nm.gpusFor(req, g, fGpus[x]!)) : 0;
    }
    let start = -1;
    let pick = evalNodes(avail, req);
    if (pick !== null) start = now;
    else {
      // cons_common `_will_run_test` walks ALL running jobs in order of expected end: a job on none of
      // the usable nodes is skipped when reached, but it is still the one looked at to close a batch
      // (`list_peek_next`), so a usable job behind it can join the batch although it ends after it.
      const at = new Map<number, number>();
      for (let x = 0; x < m; x++) at.set(P[x]!, x);
      const usable = (q: WillRunJob): boolean => q.hold.nodes.some((g) => inA[g] === 1);
      let k = 0;
      let window = 30;
      let barrier = Number.NaN;
      let more = true;
      let held = now; // the latest own expected end of the jobs removed so far
      while (more && start < 0) {
        let lastEnd = Number.NaN;
        for (;;) {
          if (k >= run.length) {
            more = false;
            break;
          }
          const q = run[k++]!;
          if (!usable(q)) continue;
          if (Number.isNaN(barrier)) barrier = q.end + (30 - (q.end % 30));
          lastEnd = q.end;
          held = Math.max(held, q.real);
          giveBack(q.hold, at, fFree, fMem, fJobs, fGpus);
          if (k >= run.length) {
            more = false;
            break;
          }
          if (run[k]!.end > barrier + window) break;
        }
        if (Number.isNaN(lastEnd)) break;
        do window *= 2;
        while (k < run.length && run[k]!.end > barrier + window);
        for (let x = 0; x < m; x++)
          avail[x] = A[x] ? usableUnits(req, nm.cap[P[x]!]!, fFree[x]!, fMem[x]!, fJobs[x] === 0, nm.gpusFor(req, P[x]!, fGpus[x]!)) : 0;
        pick = evalNodes(avail, req);
        if (pick !== null) start = held;
      }
      for (let x = 0; x < m; x++) inA[P[x]!] = 0;
      if (start < 0) return null;
    }
    for (let x = 0; x < m; x++) inA[P[x]!] = 0;
    const alloc = allocOf(req, pick!, P, nm);
    start = Math.max(start, startRes);
    if (start <= now + 1e-9) return { start: now, alloc };
    if (later > 0 && start > later) {
      startRes = later;
      continue;
    }
    if (start > now + settings.window) return null;
    const rs = Math.floor(start / res + 1e-9) * res;
    const rEnd = Math.floor((start + limit) / res + 1e-9) * res;
    if (overlaps(alloc.nodes, rs, Math.max(rEnd, rs + res))) {
      if (start <= startRes) return null; // no progress (Slurm would retry the same test)
      startRes = start;
      continue;
    }
    return { start, alloc };
  }
  return null;
}
