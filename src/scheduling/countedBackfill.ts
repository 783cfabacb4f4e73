/**
 * Slurm's backfill pass (`sched/backfill`) with units counted per node group: seed 004's model, sized
 * for millions of jobs, run by the one engine's Slurm backfill (`slurmBackfill.ts`; the retired Slurm engine
 * ran it too, test/golden/slurmEngine.ts). Time is cut into buckets of `bf_resolution` seconds over `bf_window`; the free
 * units of every group in each bucket form a profile, built from the running jobs' expected ends (their
 * time limits) in one walk of the running jobs per pass:
 *
 *     profile[g][k] = free[g] + sum of the units of g's running jobs expected to end by bucket k
 *
 * Up to `bf_max_job_test` pending jobs are tested in priority order. A job that fits from bucket 0 for
 * the buckets its time limit touches, without touching the reservations made so far in the pass, starts
 * now; any other job reserves its earliest bucket in the window (a job whose start lies beyond the
 * window gets no reservation), and the buckets it holds leave the profile for the jobs after it.
 *
 * Variants (slurm.conf's names in `CountedBackfillSettings`):
 * - **rounding**: by default buckets start now and a running job's end is rounded up; with Slurm 22.05's
 *   rounding (`slurmRounding`) the profile sits on the absolute grid (bucket 0 began `now mod res` ago),
 *   ends are floored and a reservation holds `floor(limit / res)` buckets;
 * - **idle units held** (`reserveIdle`): Slurm reserves specific nodes, so a reservation also holds units
 *   idle now; `first` holds up to the job's size of them, `proportional` its share of its bucket's free
 *   units; a later job may not start now on idle units held by a reservation that begins before it ends;
 * - **GPUs** (issue 45): beside the core profile a GPU profile per group with GPUs; a GPU job's bucket is
 *   the first where both fit (`jointFit`) in a group of its GPU type, and its reservation holds both.
 *
 * The planner reads an engine through `CountedBackfillView` (integer handles: the caller's numbering of
 * its pending jobs) and starts jobs only through `view.start`.
 */

/** The settings of the counted pass (Slurm's names in the module comment). */
export interface CountedBackfillSettings {
  /** bf_window (s). */
  window: number;
  /** bf_resolution (s). */
  resolution: number;
  /** Slurm 22.05's rounding on the absolute grid (the module comment). */
  slurmRounding: boolean;
  /** Which idle units a reservation holds (the module comment). */
  reserveIdle: 'none' | 'first' | 'proportional';
}

/** What the counted pass reads of an engine, and its one action (see the module comment). */
export interface CountedBackfillView {
  /** Current time (s). */
  readonly now: number;
  /** Node groups (the profile's rows). */
  readonly groupCount: number;
  /** Whether the platform has GPUs (a GPU profile is kept for the groups that have some). */
  readonly hasGpus: boolean;
  /** Free cores and GPUs of group `g` now. */
  freeCores(g: number): number;
  freeGpus(g: number): number;
  /** GPUs of group `g` in all (0: the group has none). */
  groupGpus(g: number): number;
  /**
   * Calls `hold(group, cores, gpus, timeLeft)` for what every job holding units holds (running, or
   * suspended on its units): `timeLeft` is the seconds until it is expected to end by its time limit
   * (an operator-suspended job resumes first), at least 0. A job on several groups calls once per group.
   */
  forEachHolding(hold: (group: number, cores: number, gpus: number, timeLeft: number) => void): void;
  /** Pending job `h`'s cores, GPUs, time limit (s) and the groups it may run on. */
  cores(h: number): number;
  gpus(h: number): number;
  timeLimit(h: number): number;
  groupsOf(h: number): readonly number[];
  /** Whether `h`'s GPUs fit group `g` with `free` GPUs free there (the group's GPU type; true without GPUs). */
  gpuFits(h: number, g: number, free: number): boolean;
  /** Starts pending job `h` now on group `g` (as a backfill start); false when the engine could not place it after all. */
  start(h: number, g: number): boolean;
}

/** Buckets of the backfill window. */
export function windowBuckets(window: number, resolution: number): number {
  return Math.max(1, Math.ceil(window / resolution));
}

/** The bucket in which a running job with `left` seconds to go ends (bucket 0 began `offset` s ago). */
export function endBucketOf(left: number, offset: number, resolution: number, slurmRounding: boolean): number {
  return slurmRounding ? Math.floor((left + offset) / resolution) : Math.ceil(left / resolution);
}

/** Buckets of `bf_resolution` a job of time limit `limit` starting now touches (bucket 0 began `offset` s ago). */
export function bucketsNow(limit: number, offset: number, res: number): number {
  return Math.max(1, Math.ceil((offset + limit) / res - 1e-9));
}

/** Buckets a reservation of a job of time limit `limit` holds: floored with `slurmRounding`, else `now` (`bucketsNow`). */
export function bucketsReserved(limit: number, res: number, slurmRounding: boolean, now: number): number {
  return slurmRounding ? Math.max(1, Math.floor(limit / res + 1e-9)) : now;
}

/** Seconds since the start of bucket 0: 0, or with Slurm's rounding the time since the last multiple of `res`. */
export function bucketOffset(now: number, res: number, slurmRounding: boolean): number {
  return slurmRounding ? now - Math.floor(now / res) * res : 0;
}

/** The counted pass; keeps its profile buffers from pass to pass. */
export class CountedBackfill {
  private profile: BucketProfile[] = [];
  private gpuProfile: BucketProfile[] = [];
  /** Per group, the units that free up in each bucket (`K + 1` each: the last collects nothing). */
  private delta: Float64Array[] = [];
  private gpuDelta: Float64Array[] = [];
  /** The fewest cores asked for from each tested job on (`leastCoresLeft`). */
  private least = new Float64Array(64);

  /**
   * Tests `pending[0 .. n)` in order under `cfg`: starts a job now through `v.start` (and sets its entry
   * to -1) or reserves its earliest start for the rest of the pass. Returns the number started.
   */
  pass(v: CountedBackfillView, cfg: CountedBackfillSettings, p: Int32Array, n: number): number {
    if (!(cfg.resolution > 0 && cfg.window > 0)) throw new RangeError(`backfill: window and resolution must be > 0, found ${cfg.window} and ${cfg.resolution}`);
    // The pass starts a job only where its cores are free now, free cores only fall during a pass, and what else
    // it plans (the reservations) goes with it. So it ends at the first job from which no job left asks for as few
    // cores as some group has free (`leastLeft`), and is not run at all when that is the first.
    const leastLeft = this.leastCoresLeft(v, p, n);
    let mostFree = mostFreeCores(v);
    if (leastLeft[0]! > mostFree) return 0;
    const res = cfg.resolution;
    const K = windowBuckets(cfg.window, res);
    const G = v.groupCount;
    const offset = bucketOffset(v.now, res, cfg.slurmRounding);
    this.fillProfiles(v, cfg, G, K, offset);
    let started = 0;
    // reserveIdle: per group, the idle cores held by reservations and the bucket each starts at
    const holdIdle = cfg.reserveIdle !== 'none';
    const heldCores: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
    const heldFrom: number[][] = holdIdle ? Array.from({ length: G }, () => []) : [];
    for (let i = 0; i < n; i++) {
      if (leastLeft[i]! > mostFree) break;
      const h = p[i]!;
      if (h < 0) continue;
      const c = v.cores(h);
      const gpus = v.gpus(h);
      const limit = v.timeLimit(h);
      // buckets a job starting now touches, and the length of a reservation
      const Lnow = bucketsNow(limit, offset, res);
      const Lres = bucketsReserved(limit, res, cfg.slurmRounding, Lnow);
      let bestK = -1;
      let bestG = -1;
      for (const g of v.groupsOf(h)) {
        if (gpus > 0 && !v.gpuFits(h, g, v.groupGpus(g))) continue;
        let k = this.firstFit(g, K, c, gpus, Lnow, 0);
        if (k === 0) {
          // idle cores held for a reservation that starts before this job would end are not for it
          let usable = v.freeCores(g);
          if (holdIdle) for (let a = 0; a < heldFrom[g]!.length; a++) if (heldFrom[g]![a]! < Lnow) usable -= heldCores[g]![a]!;
          if (usable < c) k = this.firstFit(g, K, c, gpus, Lres, 1);
        } else if (k > 0 && Lres !== Lnow) k = this.firstFit(g, K, c, gpus, Lres, 1);
        if (k >= 0 && (bestK < 0 || k < bestK)) {
          bestK = k;
          bestG = g;
        }
      }
      if (bestK < 0) continue; // beyond the window: no reservation
      const prof = this.profile[bestG]!;
      const e = Math.min(K, bestK + (bestK === 0 ? Lnow : Lres));
      if (bestK > 0 && holdIdle) {
        let idleLeft = v.freeCores(bestG);
        for (const x of heldCores[bestG]!) idleLeft -= x;
        const take = Math.max(0, Math.min(c, idleLeft, cfg.reserveIdle === 'first' ? c : Math.round((c * idleLeft) / Math.max(1, prof.at(bestK)))));
        if (take > 0) {
          heldCores[bestG]!.push(take);
          heldFrom[bestG]!.push(bestK);
        }
      }
      prof.subtract(bestK, e, c);
      if (gpus > 0) this.gpuProfile[bestG]!.subtract(bestK, e, gpus);
      if (bestK === 0 && v.freeCores(bestG) >= c && v.gpuFits(h, bestG, v.freeGpus(bestG)) && v.start(h, bestG)) {
        p[i] = -1;
        started++;
        mostFree = mostFreeCores(v);
      }
    }
    return started;
  }

  /** `least[i]`: the fewest cores a job of `p[i .. n)` asks for (entries < 0 skipped; `least[n]` infinite). */
  private leastCoresLeft(v: CountedBackfillView, p: Int32Array, n: number): Float64Array {
    if (this.least.length <= n) this.least = new Float64Array(Math.max(n + 1, 2 * this.least.length));
    const least = this.least;
    let m = Number.POSITIVE_INFINITY;
    least[n] = m;
    for (let i = n - 1; i >= 0; i--) {
      const h = p[i]!;
      if (h >= 0) {
        const c = v.cores(h);
        if (c < m) m = c;
      }
      least[i] = m;
    }
    return least;
  }

  /** Every group's profiles from one walk of the holdings: `free` now plus what ends by each bucket. */
  private fillProfiles(v: CountedBackfillView, cfg: CountedBackfillSettings, G: number, K: number, offset: number): void {
    if (this.profile.length !== G || this.profile[0]!.length !== K) {
      this.profile = Array.from({ length: G }, () => new BucketProfile(K));
      this.gpuProfile = Array.from({ length: G }, () => new BucketProfile(K));
      this.delta = Array.from({ length: G }, () => new Float64Array(K + 1));
      this.gpuDelta = Array.from({ length: G }, () => new Float64Array(K + 1));
    }
    const gpus = v.hasGpus;
    for (let g = 0; g < G; g++) {
      this.delta[g]!.fill(0);
      if (gpus) this.gpuDelta[g]!.fill(0);
    }
    const delta = this.delta;
    const gpuDelta = this.gpuDelta;
    const res = cfg.resolution;
    const rounding = cfg.slurmRounding;
    v.forEachHolding((g, cores, n, left) => {
      const b = endBucketOf(left, offset, res, rounding);
      if (b >= K) return;
      delta[g]![b]! += cores;
      if (n > 0) gpuDelta[g]![b]! += n;
    });
    for (let g = 0; g < G; g++) {
      this.profile[g]!.accumulate(delta[g]!, v.freeCores(g));
      if (gpus && v.groupGpus(g) > 0) this.gpuProfile[g]!.accumulate(gpuDelta[g]!, v.freeGpus(g));
    }
  }

  /** Group `g`'s first bucket from `from` with `c` cores (and `n` GPUs) free for `L` buckets, or -1. */
  private firstFit(g: number, K: number, c: number, n: number, L: number, from: number): number {
    return n > 0 ? jointFit(this.profile[g]!, this.gpuProfile[g]!, K, c, n, L, from) : this.profile[g]!.earliestFit(c, L, from);
  }
}

/** The most cores free now in one group of `v`. */
function mostFreeCores(v: CountedBackfillView): number {
  let free = 0;
  for (let g = 0; g < v.groupCount; g++) if (v.freeCores(g) > free) free = v.freeCores(g);
  return free;
}

/** Buckets per block of a `BucketProfile` (a power of two: `1 << BLOCK_BITS`). */
const BLOCK_BITS = 5;

/**
 * The free units of one group per bucket (`K` buckets), kept in blocks of 32 buckets with each block's
 * minimum, a bound on its maximum and an amount taken from the whole block, so that a reservation takes from whole blocks
 * at once (`subtract`) and the pass's `earliestFit` skips whole blocks, both over stretches where the job fits
 * (`firstBelow`) and over stretches where it does not (`firstAtLeast`). The values are the plain array's, to
 * the bit: units are whole numbers, whose sums and differences are exact in any order; a profile that meets a
 * fraction (a share of a CPU) takes from every bucket one at a time from then on, as the plain array does, and
 * a block's minimum or maximum less a number is then the minimum or maximum of the differences (rounding is
 * monotone).
 */
export class BucketProfile {
  /**
   * Free units per bucket before its block's `taken`; each block's minimum of those, a bound from above on them
   * (their maximum after `accumulate`; a reservation lowers values without lowering it), and what was taken
   * from the whole block.
   */
  private readonly v: Float64Array;
  private readonly blockMin: Float64Array;
  private readonly blockMax: Float64Array;
  private readonly taken: Float64Array;
  /** Whether every value is a whole number (blocks are taken from lazily), since the last `accumulate`. */
  private whole = true;

  constructor(readonly length: number) {
    this.v = new Float64Array(length);
    const blocks = (length >> BLOCK_BITS) + 1;
    this.blockMin = new Float64Array(blocks);
    this.blockMax = new Float64Array(blocks);
    this.taken = new Float64Array(blocks);
  }

  /** Free units in bucket `k`. */
  at(k: number): number {
    return this.v[k]! - this.taken[k >> BLOCK_BITS]!;
  }

  /** `profile[k] = free + d[0] + ... + d[k]` for every bucket. */
  accumulate(d: Float64Array, free: number): void {
    const v = this.v;
    const K = this.length;
    const mins = this.blockMin;
    const maxs = this.blockMax;
    let f = free;
    let whole = Number.isInteger(f);
    for (let b = 0; b << BLOCK_BITS < K; b++) {
      const lo = b << BLOCK_BITS;
      const hi = Math.min(K, lo + (1 << BLOCK_BITS));
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let k = lo; k < hi; k++) {
        const x = d[k]!;
        if (x !== 0) {
          f += x;
          if (whole && !Number.isInteger(f)) whole = false;
        }
        v[k] = f;
        if (f < min) min = f;
        if (f > max) max = f;
      }
      mins[b] = min;
      maxs[b] = max;
      this.taken[b] = 0;
    }
    this.whole = whole;
  }

  /** Takes `x` units from buckets `[from, to)`. */
  subtract(from: number, to: number, x: number): void {
    if (from >= to) return;
    if (this.whole && !Number.isInteger(x)) this.settle();
    const v = this.v;
    const b0 = from >> BLOCK_BITS;
    const b1 = (to - 1) >> BLOCK_BITS;
    for (let b = b0; b <= b1; b++) {
      const lo = b << BLOCK_BITS;
      const hi = (b + 1) << BLOCK_BITS;
      if (lo >= from && hi <= to) {
        if (this.whole) this.taken[b]! += x;
        else {
          for (let k = lo; k < hi; k++) v[k]! -= x;
          this.blockMin[b]! -= x;
          this.blockMax[b]! -= x;
        }
      } else {
        const e = hi < to ? hi : to;
        let min = this.blockMin[b]!;
        for (let k = lo > from ? lo : from; k < e; k++) {
          v[k]! -= x;
          if (v[k]! < min) min = v[k]!;
        }
        // (units taken only lower values: the block's minimum is the least of the old one and the new values,
        // and its old maximum still bounds it from above, which is all `firstAtLeast` needs)
        if (x >= 0) this.blockMin[b] = min;
        else this.refreshBlock(b);
      }
    }
  }

  /** The first bucket in `[from, to)` with fewer than `c` units free, or -1. */
  firstBelow(from: number, to: number, c: number): number {
    const v = this.v;
    const m = this.blockMin;
    const taken = this.taken;
    let k = from;
    while (k < to) {
      const b = k >> BLOCK_BITS;
      const end = (b + 1) << BLOCK_BITS;
      // (a block's values are `v - taken`: compare `v` with `c + taken`, exact for whole numbers)
      const need = c + taken[b]!;
      // the rest of a block whose every bucket is at or above `c` is skipped at once (from wherever in it `k` is)
      if (m[b]! >= need) {
        k = end;
        continue;
      }
      const e = end < to ? end : to;
      for (; k < e; k++) if (v[k]! < need) return k;
    }
    return -1;
  }

  /** The first bucket in `[from, length)` with at least `c` units free, or -1. */
  firstAtLeast(from: number, c: number): number {
    const v = this.v;
    const M = this.blockMax;
    const taken = this.taken;
    const K = this.length;
    let k = from;
    while (k < K) {
      const b = k >> BLOCK_BITS;
      const end = (b + 1) << BLOCK_BITS;
      const need = c + taken[b]!;
      // a whole block below `c` is skipped at once
      if (M[b]! < need) {
        k = end;
        continue;
      }
      const e = end < K ? end : K;
      for (; k < e; k++) if (v[k]! >= need) return k;
    }
    return -1;
  }

  /**
   * `earliestFit` on this profile: the first bucket `k >= from` such that every bucket of `[k, k + L)` has
   * at least `c` units free (buckets past the window count as free), or -1.
   */
  earliestFit(c: number, L: number, from = 0): number {
    const K = this.length;
    let k = from;
    while (k < K) {
      k = this.firstAtLeast(k, c);
      if (k < 0) return -1;
      const j = this.firstBelow(k, Math.min(K, k + L), c);
      if (j < 0) return k;
      k = j + 1;
    }
    return -1;
  }

  /** Takes what was taken from whole blocks from their buckets (before a fraction: from then on every bucket is written). */
  private settle(): void {
    const v = this.v;
    for (let k = 0; k < this.length; k++) v[k]! -= this.taken[k >> BLOCK_BITS]!;
    for (let b = 0; b < this.taken.length; b++) {
      this.blockMin[b]! -= this.taken[b]!;
      this.blockMax[b]! -= this.taken[b]!;
      this.taken[b] = 0;
    }
    this.whole = false;
  }

  private refreshBlock(b: number): void {
    const v = this.v;
    const from = b << BLOCK_BITS;
    const to = Math.min(this.length, from + (1 << BLOCK_BITS));
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = from; k < to; k++) {
      const x = v[k]!;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    this.blockMin[b] = min;
    this.blockMax[b] = max;
  }
}

/** The first bucket from `from` where both `c` cores and `n` GPUs are free for `L` buckets (`earliestFit` on both profiles), or -1. */
export function jointFit(cores: BucketProfile, gpus: BucketProfile, K: number, c: number, n: number, L: number, from = 0): number {
  if (cores.length !== K || gpus.length !== K) throw new RangeError(`jointFit: profiles of ${cores.length} and ${gpus.length} buckets, expected ${K}`);
  let k = cores.earliestFit(c, L, from);
  for (;;) {
    if (k < 0) return -1;
    const kg = gpus.earliestFit(n, L, k);
    if (kg === k || kg < 0) return kg;
    k = cores.earliestFit(c, L, kg);
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
