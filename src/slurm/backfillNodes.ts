/**
 * The whole-node backfill planner over a profile of expected ends (`nodeSelect` without `bfWillRun`;
 * `backfill.ts`): each node is free from the bucket its job is expected to end in; reservations are
 * intervals of buckets on specific nodes. A job starts now on idle nodes that no reservation touches
 * while it would run; otherwise its reservation starts at the earliest bucket (a node's end bucket or a
 * reservation's end: the only places where a node becomes usable) with enough nodes free for its whole
 * time limit, on the nodes `pickNodes` chooses among them. Cost per pass: for each job tested,
 * candidates x nodes of its groups x reservations per node (a few thousand operations on 8-64 nodes;
 * quadratic in the nodes of a partition, so meant for small ones). Whole nodes only (every unit a node,
 * every job holding its nodes whole: a whole-node platform). A job asking for GPUs only considers the nodes
 * with that many of its type (a whole node's GPUs are all its job's).
 */
import { type BackfillPlanner, type BackfillView, bfBuckets, bucketsNow, bucketsReserved, endBucket } from './backfill.js';
import { pickNodes, wholeAlloc } from './nodes.js';

/** The planner (no state between passes). */
export class NodeProfilePlanner implements BackfillPlanner {
  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const cfg = v.config;
    const nodeMap = v.nodeMap!;
    const K = bfBuckets(cfg);
    const res = cfg.bfResolution;
    const offset = cfg.bfSlurmRounding ? v.now - Math.floor(v.now / res) * res : 0;
    const N = nodeMap.cap.length;
    const freeFrom = new Int32Array(N);
    for (let x = 0; x < N; x++) {
      const r = nodeMap.slotOn[x]!;
      freeFrom[x] = r < 0 ? 0 : Math.min(K, endBucket(v, r, offset));
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
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const c = J.cores[s]!;
      const limit = J.timeLimit[s]!;
      const Lnow = bucketsNow(limit, offset, res);
      const Lres = bucketsReserved(limit, res, cfg.bfSlurmRounding, Lnow);
      const Ltest = cfg.bfSlurmRounding ? Math.floor((offset + limit) / res + 1e-9) + 1 : Lnow;
      const Lhold = cfg.bfSlurmRounding ? Math.max(1, Math.floor((offset + limit) / res + 1e-9)) : Lnow;
      let bestK = -1;
      let bestNodes: Int32Array | null = null;
      let bestG = -1;
      const req = v.nodeRequest(s);
      for (const g of v.platform.partitions[J.part[s]!]!.groups) {
        const b0 = nodeMap.base[g]!;
        const m = nodeMap.base[g + 1]! - b0;
        // nodes of a group are alike: all or none hold the job's GPUs
        if (m < c || (req.gpus > 0 && nodeMap.gpusFor(req, b0, nodeMap.gpuCap[b0]!) < req.gpus)) continue;
        const avail = new Uint8Array(m);
        // now: idle nodes no reservation touches while the job would run
        let count = 0;
        for (let x = 0; x < m; x++) {
          avail[x] = nodeMap.slotOn[b0 + x]! < 0 && clear(b0 + x, 0, Ltest) ? 1 : 0;
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
        p[i] = -1;
        started++;
        v.startByBackfill(s, bestG, wholeAlloc(bestNodes, nodeMap));
      }
    }
    return started;
  }
}
