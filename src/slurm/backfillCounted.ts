/**
 * The counted backfill planner (`backfill.ts`): units counted per group, seed 004's model, sized for
 * millions of jobs. The free-unit profile of every group over `bf_window` at `bf_resolution` is built from
 * the running jobs' time limits (one walk of the running jobs per pass); up to `bf_max_job_test` pending
 * jobs in priority order; a job starts now if it fits from now for its whole time limit without touching
 * the reservations made so far, otherwise it reserves its earliest start in the window (a job whose start
 * is beyond the window gets no reservation). With `bfSlurmRounding` the profile sits on the absolute
 * grid and reservations are floored as Slurm 22.05 does; `bfReserveIdle` says which units a reservation
 * holds among those idle now. On a platform with GPUs a free-GPU profile per group is kept beside the
 * core profile (issue 45): a GPU job's bucket is the first where both its cores and its GPUs fit
 * (`jointFit`) in a group of its GPU type, and its reservation holds both (`bfReserveIdle` holds cores only).
 */
import { type BackfillPlanner, type BackfillView, bfBuckets, bucketsNow, bucketsReserved, endBucket, gpuFits } from './backfill.js';

/** The counted planner; keeps its profile buffers from pass to pass. */
export class CountedPlanner implements BackfillPlanner {
  private profile: Float64Array[] = [];
  private gpuProfile: Float64Array[] = [];
  private delta = new Float64Array(0);

  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const cfg = v.config;
    const K = bfBuckets(cfg);
    const res = cfg.bfResolution;
    const G = v.platform.groupNames.length;
    // with Slurm's rounding the buckets sit on the absolute grid: bucket 0 began `offset` s ago
    const offset = cfg.bfSlurmRounding ? v.now - Math.floor(v.now / res) * res : 0;
    const gpus = v.platform.gpuTypes.length > 0;
    if (this.profile.length !== G || this.profile[0]!.length !== K) {
      this.profile = Array.from({ length: G }, () => new Float64Array(K));
      this.gpuProfile = gpus ? Array.from({ length: G }, () => new Float64Array(K)) : [];
      this.delta = new Float64Array(K + 1);
    }
    for (let g = 0; g < G; g++) {
      this.fillProfile(v, g, K, offset, this.profile[g]!, v.free[g]!, J.cores);
      // the group's free GPUs over the window, as its cores
      if (gpus && v.platform.gpusPerNode[g]! > 0) this.fillProfile(v, g, K, offset, this.gpuProfile[g]!, v.freeGpus[g]!, J.gpus);
    }
    let started = 0;
    // bfReserveIdle: per group, the idle cores held by reservations and the bucket each starts at
    const holdIdle = cfg.bfReserveIdle !== 'none';
    const heldCores: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
    const heldFrom: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
    for (let i = 0; i < n; i++) {
      const s = p[i]!;
      const c = J.cores[s]!;
      const limit = J.timeLimit[s]!;
      // buckets a job starting now touches, and the length of a reservation
      const Lnow = bucketsNow(limit, offset, res);
      const Lres = bucketsReserved(limit, res, cfg.bfSlurmRounding, Lnow);
      let bestK = -1;
      let bestG = -1;
      const n = J.gpus[s]!;
      for (const g of v.platform.partitions[J.part[s]!]!.groups) {
        if (n > 0 && !gpuFits(v, s, g, v.platform.gpusPerNode[g]! * v.platform.nodes[g]!)) continue;
        let k = this.firstFit(g, K, c, n, Lnow, 0);
        if (k === 0) {
          // idle cores held for a reservation that starts before this job would end are not for it
          let usable = v.free[g]!;
          if (holdIdle) for (let a = 0; a < heldFrom[g]!.length; a++) if (heldFrom[g]![a]! < Lnow) usable -= heldCores[g]![a]!;
          if (usable < c) k = this.firstFit(g, K, c, n, Lres, 1);
        } else if (k > 0 && Lres !== Lnow) k = this.firstFit(g, K, c, n, Lres, 1);
        if (k >= 0 && (bestK < 0 || k < bestK)) {
          bestK = k;
          bestG = g;
        }
      }
      if (bestK < 0) continue; // beyond the window: no reservation
      const prof = this.profile[bestG]!;
      const e = Math.min(K, bestK + (bestK === 0 ? Lnow : Lres));
      if (bestK > 0 && holdIdle) {
        let idleLeft = v.free[bestG]!;
        for (const x of heldCores[bestG]!) idleLeft -= x;
        const take = Math.max(0, Math.min(c, idleLeft, cfg.bfReserveIdle === 'first' ? c : Math.round((c * idleLeft) / Math.max(1, prof[bestK]!))));
        if (take > 0) {
          heldCores[bestG]!.push(take);
          heldFrom[bestG]!.push(bestK);
        }
      }
      for (let k = bestK; k < e; k++) prof[k]! -= c;
      if (n > 0) for (let k = bestK; k < e; k++) this.gpuProfile[bestG]![k]! -= n;
      if (bestK === 0 && v.free[bestG]! >= c && gpuFits(v, s, bestG, v.freeGpus[bestG]!)) {
        p[i] = -1;
        started++;
        v.startByBackfill(s, bestG, null);
      }
    }
    return started;
  }

  /** `prof[k]`: `free` plus the `amount` (cores, GPUs) of group `g`'s running jobs expected to end by bucket `k`. */
  private fillProfile(v: BackfillView, g: number, K: number, offset: number, prof: Float64Array, free: number, amount: Int32Array): void {
    const J = v.jobs;
    const d = this.delta;
    d.fill(0);
    for (let i = 0; i < v.runningCount; i++) {
      const r = v.runningSlots[i]!;
      if (J.group[r] !== g || amount[r] === 0) continue;
      const b = endBucket(v, r, offset);
      if (b < K) d[b]! += amount[r]!;
    }
    let f = free;
    for (let k = 0; k < K; k++) {
      f += d[k]!;
      prof[k] = f;
    }
  }

  /** Group `g`'s first bucket from `from` with `c` cores (and `n` GPUs) free for `L` buckets, or -1. */
  private firstFit(g: number, K: number, c: number, n: number, L: number, from: number): number {
    return n > 0 ? jointFit(this.profile[g]!, this.gpuProfile[g]!, K, c, n, L, from) : earliestFit(this.profile[g]!, K, c, L, from);
  }
}

/** The first bucket from `from` where both `c` cores and `n` GPUs are free for `L` buckets (`earliestFit` on both profiles), or -1. */
export function jointFit(cores: Float64Array, gpus: Float64Array, K: number, c: number, n: number, L: number, from = 0): number {
  let k = earliestFit(cores, K, c, L, from);
  for (;;) {
    if (k < 0) return -1;
    const kg = earliestFit(gpus, K, n, L, k);
    if (kg === k || kg < 0) return kg;
    k = earliestFit(cores, K, c, L, kg);
  }
}

/**
 * The first bucket `k` of `free` (length `K`) such that `free[j] >= c` for every `j` in `[k, k + L)`
 * (buckets past the window count as free), or -1. Linear: a failing bucket moves the candidate past it.
 */
export function earliestFit(free: Float64Array, K: number, c: number, L: number, from = 0): number {
  let k = from;
  let j = 0;
  while (k < K) {
    const e = Math.min(K, k + L);
    if (j < k) j = k;
    while (j < e && free[j]! >= c) j++;
    if (j >= e) return k;
    k = j + 1;
  }
  return -1;
}
