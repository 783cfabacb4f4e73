/**
 * Slurm 22.05's own backfill pass for whole nodes (`nodeSelect` + `bfWillRun`; `backfill.ts`), as
 * sched/backfill (`_attempt_backfill`) and the select plugin's will-run test (cons_common
 * `_will_run_test`) make it: a map of records `[begin, end)` on the `bf_resolution` grid, each with the
 * nodes no reservation of this pass holds, split and merged as `_add_reservation` does (running jobs are
 * not in it: no `bf_running_job_reserve`); for each pending job the will-run test (`willRunStart`) and the
 * `later_start` retries. What it models, and why, is `SlurmConfig.bfWillRun` and docs/slurm.md. Cost per
 * job tested: retries x (records x nodes + running jobs x nodes): meant for partitions of tens of whole
 * nodes.
 */
import { type BackfillPlanner, type BackfillView, expectedEnd } from './backfill.js';
import { JobPhase } from '../core/engine.js';
import { type NodeAlloc, type NodeRequest, allocOf, evalNodes, usableUnits } from './nodes.js';

/**
 * A running job's expected end as slurmctld holds it (`end_time`): its start in whole seconds (`time_t`;
 * the engine's clock is on the wall clock's seconds, `engineSchedule`'s `clockPhase`) plus its time limit.
 * The will-run test's 30 s windows (`_will_run_test`: `end_time % time_window`) group running jobs by it:
 * a job started at 60.53 s with a 2-minute limit ends at 180 s for Slurm, inside a window closing at 180 s.
 * Only the windows follow it: a start found behind a window is the latest own expected end of the jobs
 * removed (never before now while their nodes are held).
 */
function wallEnd(v: BackfillView, r: number, end: number): number {
  if (v.jobs.state[r] !== JobPhase.Running) return end;
  const t = v.jobs.lastResume[r]!;
  return end - (t - Math.floor(t + 1e-9));
}

/** The planner (no state between passes). */
export class WillRunPlanner implements BackfillPlanner {
  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const cfg = v.config;
    const nodeMap = v.nodeMap!;
    const res = cfg.bfResolution;
    const now = v.now;
    const N = nodeMap.cap.length;
    const g0 = Math.floor(now / res + 1e-9) * res;
    const windowEnd = Math.max(g0 + res, Math.floor((now + cfg.bfWindow) / res + 1e-9) * res);
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
    // running jobs in order of expected end (ties: slot order), with their ends
    const run: { r: number; end: number; real: number }[] = [];
    for (let i = 0; i < v.runningCount; i++) {
      const r = v.runningSlots[i]!;
      if (nodeMap.held.has(r)) {
        const real = expectedEnd(v, r);
        run.push({ r, end: wallEnd(v, r, real), real });
      }
    }
    run.sort((a, b) => a.end - b.end || a.r - b.r);
    // nodes still COMPLETING (a job ended, slurmd has not answered yet: `SlurmJobInput.completing`); the select
    // plugin has their CPUs back, so the will-run test may choose them
    const cg = v.completingNodes;
    let started = 0;
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const limit = J.timeLimit[s]!;
      const req = v.nodeRequest(s);
      const best = willRunStart(v, req, limit, nodeMap.partitionNodes[J.part[s]!]!, rb, re, rav, run, overlaps);
      if (best === null) continue; // no start within the window: no reservation
      // a start now on nodes still completing waits a second: a reservation from now + 1 (backfill.c: "Need
      // to wait for in-progress completion/epilog", `start_time = now + 1`)
      if (best.start <= now + 1e-9 && cg !== null && best.alloc.nodes.some((x) => cg[x]! > 0)) best.start = now + 1;
      if (best.start <= now + 1e-9) {
        // a job started now is in the map only when it holds its nodes whole (_bf_reserve_running)
        if (best.alloc.whole) addReservation(g0, Math.floor((now + limit) / res + 1e-9) * res, best.alloc.nodes);
        p[i] = -1;
        started++;
        v.startByBackfill(s, nodeMap.groupOf[best.alloc.nodes[0]!]!, best.alloc);
        // the will-run tests of later jobs see it among the running jobs
        const real = expectedEnd(v, s);
        const end = wallEnd(v, s, real);
        let at = run.length;
        while (at > 0 && run[at - 1]!.end > end) at--;
        run.splice(at, 0, { r: s, end, real });
      } else addReservation(Math.floor(best.start / res + 1e-9) * res, Math.floor((best.start + limit) / res + 1e-9) * res, best.alloc.nodes);
    }
    return started;
  }
}

/**
 * The earliest start of job `req` (time limit `limit`) on the nodes `P` of its partition (module comment
 * of `bfWillRun`), and what it gets then, or null when it has none within the window.
 */
function willRunStart(
  v: BackfillView,
  req: NodeRequest,
  limit: number,
  P: Int32Array,
  rb: readonly number[],
  re: readonly number[],
  rav: readonly Uint8Array[],
  run: readonly { r: number; end: number; real: number }[],
  overlaps: (nodes: Int32Array, start: number, end: number) => boolean,
): { start: number; alloc: NodeAlloc } | null {
  const res = v.config.bfResolution;
  const now = v.now;
  const nm = v.nodeMap!;
  const m = P.length;
  const A = new Uint8Array(m);
  const inA = new Uint8Array(nm.cap.length);
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
      const usable = (q: { r: number }): boolean => nm.held.get(q.r)!.nodes.some((g) => inA[g] === 1);
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
          const a = nm.held.get(q.r)!;
          for (let i = 0; i < a.nodes.length; i++) {
            const x = at.get(a.nodes[i]!);
            if (x === undefined) continue;
            fFree[x]! += a.units[i]!;
            fMem[x]! += a.mem[i]!;
            fJobs[x]! -= 1;
            fGpus[x]! += a.gpus[i]!;
          }
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
    if (start > now + v.config.bfWindow) return null;
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
