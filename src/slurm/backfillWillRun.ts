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
import { pickNodes } from './nodes.js';

/** The planner (no state between passes). */
export class WillRunPlanner implements BackfillPlanner {
  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const cfg = v.config;
    const nodeMap = v.nodeMap!;
    const res = cfg.bfResolution;
    const now = v.now;
    const N = nodeMap.slotOn.length;
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
    const run: { r: number; end: number }[] = [];
    for (let i = 0; i < v.runningCount; i++) {
      const r = v.runningSlots[i]!;
      if (nodeMap.held.has(r)) run.push({ r, end: expectedEnd(v, r) });
    }
    run.sort((a, b) => a.end - b.end || a.r - b.r);
    let started = 0;
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const c = J.cores[s]!;
      const limit = J.timeLimit[s]!;
      let best: { start: number; nodes: Int32Array; g: number } | null = null;
      for (const g of v.platform.partitions[J.part[s]!]!.groups) {
        const b0 = nodeMap.base[g]!;
        const m = nodeMap.base[g + 1]! - b0;
        if (m < c) continue;
        const r = willRunStart(v, c, limit, b0, m, rb, re, rav, run, overlaps);
        if (r !== null && (best === null || r.start < best.start)) best = { ...r, g };
      }
      if (best === null) continue; // no start within the window: no reservation
      if (best.start <= now + 1e-9) {
        addReservation(g0, Math.floor((now + limit) / res + 1e-9) * res, best.nodes);
        p[i] = -1;
        started++;
        v.startByBackfill(s, best.g, best.nodes);
        // the will-run tests of later jobs see it among the running jobs
        const end = expectedEnd(v, s);
        let at = run.length;
        while (at > 0 && run[at - 1]!.end > end) at--;
        run.splice(at, 0, { r: s, end });
      } else addReservation(Math.floor(best.start / res + 1e-9) * res, Math.floor((best.start + limit) / res + 1e-9) * res, best.nodes);
    }
    return started;
  }
}

/**
 * The earliest start of a job of `c` whole nodes and time limit `limit` on the group of nodes
 * `[b0, b0 + m)` (module comment of `bfWillRun`), and the nodes it gets then (global indices), or null
 * when it has none within the window.
 */
function willRunStart(
  v: BackfillView,
  c: number,
  limit: number,
  b0: number,
  m: number,
  rb: readonly number[],
  re: readonly number[],
  rav: readonly Uint8Array[],
  run: readonly { r: number; end: number }[],
  overlaps: (nodes: Int32Array, start: number, end: number) => boolean,
): { start: number; nodes: Int32Array } | null {
  const res = v.config.bfResolution;
  const now = v.now;
  const nodeMap = v.nodeMap!;
  const A = new Uint8Array(m);
  const free = new Uint8Array(m);
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
          if (next[b0 + x] && !(A[x] && cur[b0 + x])) {
            later = re[j]!;
            break;
          }
        }
      }
      if (re[j]! <= startRes) continue;
      if (rb[j]! <= endTime + 1e-9) {
        const av = rav[j]!;
        for (let x = 0; x < m; x++) if (!av[b0 + x]) A[x] = 0;
      } else break;
    }
    let count = 0;
    for (let x = 0; x < m; x++) count += A[x]!;
    if (count < c) {
      if (later > 0) {
        startRes = later;
        continue;
      }
      return null;
    }
    // will-run: idle nodes first, then running jobs removed in windows of 30 s, doubling
    let idle = 0;
    for (let x = 0; x < m; x++) {
      free[x] = A[x] && nodeMap.slotOn[b0 + x]! < 0 ? 1 : 0;
      idle += free[x]!;
    }
    let start = -1;
    if (idle >= c) start = now;
    else {
      // cons_common `_will_run_test` walks ALL running jobs in order of expected end: a job on none of
      // the usable nodes is skipped when reached, but it is still the one looked at to close a batch
      // (`list_peek_next`), so a usable job behind it can join the batch although it ends after it.
      const usable = (q: { r: number }): boolean => nodeMap.held.get(q.r)!.some((x) => x >= b0 && x < b0 + m && A[x - b0]);
      let k = 0;
      let window = 30;
      let barrier = Number.NaN;
      let more = true;
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
          for (const x of nodeMap.held.get(q.r)!) if (x >= b0 && x < b0 + m && A[x - b0]) free[x - b0] = 1;
          if (k >= run.length) {
            more = false;
            break;
          }
          if (run[k]!.end > barrier + window) break;
        }
        if (Number.isNaN(lastEnd)) break;
        do window *= 2;
        while (k < run.length && run[k]!.end > barrier + window);
        let f = 0;
        for (let x = 0; x < m; x++) f += free[x]!;
        if (f >= c) start = Math.max(lastEnd, now);
      }
      if (start < 0) return null;
    }
    const nodes = pickNodes(free, c)!;
    for (let x = 0; x < nodes.length; x++) nodes[x]! += b0;
    start = Math.max(start, startRes);
    if (start <= now + 1e-9) return { start: now, nodes };
    if (later > 0 && start > later) {
      startRes = later;
      continue;
    }
    if (start > now + v.config.bfWindow) return null;
    const rs = Math.floor(start / res + 1e-9) * res;
    const rEnd = Math.floor((start + limit) / res + 1e-9) * res;
    if (overlaps(nodes, rs, Math.max(rEnd, rs + res))) {
      if (start <= startRes) return null; // no progress (Slurm would retry the same test)
      startRes = start;
      continue;
    }
    return { start, nodes };
  }
  return null;
}
