/**
 * Slurm's backfill pass (`sched/backfill`) with units counted per node group: seed 004's model, sized
 * for millions of jobs, shared by the Slurm engine (`src/slurm/backfillCounted.ts`) and the one engine
 * (`slurmBackfill.ts`). Time is cut into buckets of `bf_resolution` seconds over `bf_window`; the free
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
  private profile: Float64Array[] = [];
  private gpuProfile: Float64Array[] = [];
  /** Per group, the units that free up in each bucket (`K + 1` each: the last collects nothing). */
  private delta: Float64Array[] = [];
  private gpuDelta: Float64Array[] = [];

  /**
   * Tests `pending[0 .. n)` in order under `cfg`: starts a job now through `v.start` (and sets its entry
   * to -1) or reserves its earliest start for the rest of the pass. Returns the number started.
   */
  pass(v: CountedBackfillView, cfg: CountedBackfillSettings, p: number[], n: number): number {
    if (!(cfg.resolution > 0 && cfg.window > 0)) throw new RangeError(`backfill: window and resolution must be > 0, found ${cfg.window} and ${cfg.resolution}`);
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
        const take = Math.max(0, Math.min(c, idleLeft, cfg.reserveIdle === 'first' ? c : Math.round((c * idleLeft) / Math.max(1, prof[bestK]!))));
        if (take > 0) {
          heldCores[bestG]!.push(take);
          heldFrom[bestG]!.push(bestK);
        }
      }
      for (let k = bestK; k < e; k++) prof[k]! -= c;
      if (gpus > 0) for (let k = bestK; k < e; k++) this.gpuProfile[bestG]![k]! -= gpus;
      if (bestK === 0 && v.freeCores(bestG) >= c && v.gpuFits(h, bestG, v.freeGpus(bestG)) && v.start(h, bestG)) {
        p[i] = -1;
        started++;
      }
    }
    return started;
  }

  /** Every group's profiles from one walk of the holdings: `free` now plus what ends by each bucket. */
  private fillProfiles(v: CountedBackfillView, cfg: CountedBackfillSettings, G: number, K: number, offset: number): void {
    if (this.profile.length !== G || this.profile[0]!.length !== K) {
      this.profile = Array.from({ length: G }, () => new Float64Array(K));
      this.gpuProfile = Array.from({ length: G }, () => new Float64Array(K));
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
      accumulate(this.profile[g]!, delta[g]!, v.freeCores(g), K);
      if (gpus && v.groupGpus(g) > 0) accumulate(this.gpuProfile[g]!, gpuDelta[g]!, v.freeGpus(g), K);
    }
  }

  /** Group `g`'s first bucket from `from` with `c` cores (and `n` GPUs) free for `L` buckets, or -1. */
  private firstFit(g: number, K: number, c: number, n: number, L: number, from: number): number {
    return n > 0 ? jointFit(this.profile[g]!, this.gpuProfile[g]!, K, c, n, L, from) : earliestFit(this.profile[g]!, K, c, L, from);
  }
}

/** `prof[k] = free + d[0] + ... + d[k]`. */
function accumulate(prof: Float64Array, d: Float64Array, free: number, K: number): void {
  let f = free;
  for (let k = 0; k < K; k++) {
    f += d[k]!;
    prof[k] = f;
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
