/**
 * The whole-node backfill pass over a profile of expected ends (Slurm's `sched/backfill` with whole-node
 * allocation, `nodeSelect` without `bfWillRun`): the one engine's Slurm backfill under `within: "nodes"`
 * (`slurmBackfill.ts`) reads its state through `NodeProfileView` (written when the retired Slurm engine read
 * it too; its schedules: test/golden/slurmEngine.ts).
 *
 * Each node is free from the bucket of `bf_resolution` in which the job holding it is expected to end (its
 * time limit; idle: now); reservations are intervals of buckets on specific nodes. The jobs are tested in
 * order; a job of `u` units asks for `u` whole nodes within one node group of its partition. It starts now
 * on idle nodes that no reservation touches while it would run; otherwise its reservation starts at the
 * earliest bucket (a node's end bucket or a reservation's end: the only places where a node becomes
 * usable) with enough nodes free for its whole time limit, on the nodes `pickNodes` chooses among them;
 * beyond the window it reserves nothing. Bucket arithmetic is the counted pass's (`countedBackfill.ts`:
 * Slurm 22.05's rounding on the absolute grid with `slurmRounding`).
 *
 * Cost per pass: for each job tested, candidates x nodes of its groups x reservations per node (a few
 * thousand operations on 8-64 nodes; quadratic in the nodes of a partition, so meant for small ones).
 * Whole nodes only: every unit a node, every job holding its nodes whole (a whole-node platform).
 */
import { bucketOffset, bucketsNow, bucketsReserved, type CountedBackfillSettings, endBucketOf, windowBuckets } from './countedBackfill.js';
import { pickNodes } from './nodeSelection.js';

/** What the node-profile pass reads of an engine, and its one action (see the module comment). */
export interface NodeProfileView {
  /** Current time (s). */
  readonly now: number;
  /** The first node of each node group, and the node count at the end (`groupBase[G]`). */
  readonly groupBase: Int32Array;
  /** Seconds until the job holding node `x` is expected to end (at least 0), or -1 when no job holds it. */
  heldFor(x: number): number;
  /** Units (whole nodes) job `h` asks for. */
  units(h: number): number;
  /** Its time limit (s). */
  timeLimit(h: number): number;
  /** The node groups of its partition, in order. */
  groupsOf(h: number): readonly number[];
  /** Whether group `g`'s nodes can hold job `h` at all beyond their count (its GPUs: a group's nodes are alike). */
  groupUsable(h: number, g: number): boolean;
  /** Starts job `h` now on group `g`'s nodes `nodes` (ascending, global indices). */
  start(h: number, g: number, nodes: Int32Array): void;
}

/** One pass over jobs `0 .. n)` of `view` in order; returns the number started (see the module comment). */
export function nodeProfilePass(v: NodeProfileView, settings: CountedBackfillSettings, n: number): number {
  const K = windowBuckets(settings.window, settings.resolution);
  const res = settings.resolution;
  const rounding = settings.slurmRounding;
  const offset = bucketOffset(v.now, res, rounding);
  const base = v.groupBase;
  const N = base[base.length - 1]!;
  const freeFrom = new Int32Array(N);
  const idle = new Uint8Array(N);
  for (let x = 0; x < N; x++) {
    const left = v.heldFor(x);
    idle[x] = left < 0 ? 1 : 0;
    freeFrom[x] = left < 0 ? 0 : Math.min(K, endBucketOf(left, offset, res, rounding));
  }
  const resFrom: number[][] = Array.from({ length: N }, () => []);
  const resTo: number[][] = Array.from({ length: N }, () => []);
  const clear = (x: number, a: number, b: number): boolean => {
    const f = resFrom[x]!;
    const t = resTo[x]!;
    for (let i = 0; i < f.length; i++) if (f[i]! < b && t[i]! > a) return false;
    return true;
  };
  let started = 0;
  for (let h = 0; h < n; h++) {
    const c = v.units(h);
    const limit = v.timeLimit(h);
    const Lnow = bucketsNow(limit, offset, res);
    const Lres = bucketsReserved(limit, res, rounding, Lnow);
    const Ltest = rounding ? Math.floor((offset + limit) / res + 1e-9) + 1 : Lnow;
    const Lhold = rounding ? Math.max(1, Math.floor((offset + limit) / res + 1e-9)) : Lnow;
    let bestK = -1;
    let bestNodes: Int32Array | null = null;
    let bestG = -1;
    for (const g of v.groupsOf(h)) {
      const b0 = base[g]!;
      const m = base[g + 1]! - b0;
      if (m < c || !v.groupUsable(h, g)) continue;
      const avail = new Uint8Array(m);
      // now: idle nodes no reservation touches while the job would run
      let count = 0;
      for (let x = 0; x < m; x++) {
        avail[x] = idle[b0 + x] === 1 && clear(b0 + x, 0, Ltest) ? 1 : 0;
        count += avail[x]!;
      }
      let k = -1;
      if (count >= c) k = 0;
      else {
        const cands = new Set<number>([1]);
        for (let x = b0; x < b0 + m; x++) {
          if (freeFrom[x]! >= 1 && freeFrom[x]! < K) cands.add(freeFrom[x]!);
          for (const t of resTo[x]!) if (t >= 1 && t < K) cands.add(t);
        }
        for (const kk of [...cands].sort((a, b) => a - b)) {
          if (bestK >= 0 && kk >= bestK) break;
          const e = Math.min(K, kk + Lres);
          count = 0;
          for (let x = 0; x < m; x++) {
            avail[x] = freeFrom[b0 + x]! <= kk && clear(b0 + x, kk, e) ? 1 : 0;
            count += avail[x]!;
          }
          if (count >= c) {
            k = kk;
            break;
          }
        }
      }
      if (k >= 0 && (bestK < 0 || k < bestK)) {
        bestK = k;
        bestG = g;
        bestNodes = pickNodes(avail, c);
        for (let x = 0; x < bestNodes!.length; x++) bestNodes![x]! += b0;
      }
    }
    if (bestK < 0 || bestNodes === null) continue; // beyond the window: no reservation
    const e = Math.min(K, bestK + (bestK === 0 ? Lhold : Lres));
    for (const x of bestNodes) {
      resFrom[x]!.push(bestK);
      resTo[x]!.push(e);
    }
    if (bestK === 0) {
      started++;
      v.start(h, bestG, bestNodes);
    }
  }
  return started;
}
