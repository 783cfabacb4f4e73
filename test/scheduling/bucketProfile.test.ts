import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketProfile, CountedBackfill, type CountedBackfillView, earliestFit, jointFit } from '../../src/scheduling/countedBackfill.js';

/**
 * The counted pass's blocked profile (`BucketProfile`) against the plain array it replaces: the same values
 * and the same earliest fits after any sequence of reservations, whole numbers (taken from whole blocks
 * lazily) or fractions (every bucket written).
 */

/** A profile and its plain twin from the same deltas. */
function twins(free: number, deltas: number[]): [BucketProfile, Float64Array] {
  const K = deltas.length;
  const d = new Float64Array(K + 1);
  d.set(deltas);
  const p = new BucketProfile(K);
  p.accumulate(d, free);
  const a = new Float64Array(K);
  let f = free;
  for (let k = 0; k < K; k++) {
    f += deltas[k]!;
    a[k] = f;
  }
  return [p, a];
}

const values = (p: BucketProfile) => Array.from({ length: p.length }, (_, k) => p.at(k));

describe('BucketProfile', () => {
  it('a hand-computed profile of 70 buckets: fits, a reservation across three blocks, fits again', () => {
    // 2 free now, 10 more from bucket 40
    const deltas = Array.from({ length: 70 }, (_, k) => (k === 40 ? 10 : 0));
    const [p] = twins(2, deltas);
    expect(p.earliestFit(2, 70)).toBe(0);
    expect(p.earliestFit(3, 5)).toBe(40);
    expect(p.earliestFit(12, 30)).toBe(40);
    expect(p.earliestFit(13, 1)).toBe(-1);
    // 5 taken from buckets 10..66 (part of block 0, all of block 1, part of block 2)
    p.subtract(10, 66, 5);
    expect(p.at(9)).toBe(2);
    expect(p.at(10)).toBe(-3);
    expect(p.at(45)).toBe(7);
    expect(p.at(66)).toBe(12);
    expect(p.earliestFit(2, 10)).toBe(0);
    expect(p.earliestFit(2, 11)).toBe(40);
    expect(p.earliestFit(8, 1)).toBe(66);
    // buckets past the window count as free
    expect(p.earliestFit(12, 100)).toBe(66);
  });

  it('gives the plain array values and earliest fits after any reservations', () => {
    const op = fc.record({ from: fc.nat(200), len: fc.nat(120), x: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constantFrom(0.5, 0.25, 1.1)) });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 200, maxLength: 200 }),
        fc.array(op, { maxLength: 30 }),
        fc.array(fc.record({ c: fc.integer({ min: 1, max: 30 }), L: fc.integer({ min: 1, max: 250 }), from: fc.nat(199) }), { minLength: 1, maxLength: 10 }),
        (K, free, deltas, ops, queries) => {
          const [p, a] = twins(free, deltas.slice(0, K));
          for (const o of ops) {
            const from = Math.min(K, o.from);
            const to = Math.min(K, from + o.len);
            p.subtract(from, to, o.x);
            for (let k = from; k < to; k++) a[k]! -= o.x;
            for (const q of queries) {
              const from = Math.min(q.from, K - 1);
              expect(p.earliestFit(q.c, q.L, from)).toBe(earliestFit(a, K, q.c, q.L, from));
            }
          }
          expect(values(p)).toEqual(Array.from(a));
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });

  it('jointFit: the first bucket where both profiles fit', () => {
    const [cores] = twins(
      4,
      Array.from({ length: 50 }, (_, k) => (k === 20 ? 4 : 0)),
    );
    const [gpus] = twins(
      0,
      Array.from({ length: 50 }, (_, k) => (k === 10 ? 2 : k === 35 ? 2 : 0)),
    );
    expect(jointFit(cores, gpus, 50, 4, 2, 5)).toBe(10);
    expect(jointFit(cores, gpus, 50, 8, 2, 5)).toBe(20);
    expect(jointFit(cores, gpus, 50, 8, 4, 5)).toBe(35);
    expect(jointFit(cores, gpus, 50, 9, 1, 5)).toBe(-1);
  });
});

/** A counted view of one or more groups: running jobs (group, cores, seconds left) and pending jobs (group, cores, limit); it counts what the pass reads. */
function countedView(free: number[], running: [number, number, number][], pending: [number, number, number][]) {
  const reads = { holdings: 0, limits: 0, starts: [] as number[] };
  const freeNow = [...free];
  const v: CountedBackfillView = {
    now: 0,
    groupCount: free.length,
    hasGpus: false,
    freeCores: (g) => freeNow[g]!,
    freeGpus: () => 0,
    groupGpus: () => 0,
    forEachHolding: (hold) => {
      reads.holdings++;
      for (const [g, c, left] of running) hold(g, c, 0, left);
    },
    cores: (h) => pending[h]![1],
    gpus: () => 0,
    timeLimit: (h) => {
      reads.limits++;
      return pending[h]![2];
    },
    groupsOf: (h) => [pending[h]![0]],
    gpuFits: () => true,
    start: (h, g) => {
      freeNow[g]! -= pending[h]![1];
      reads.starts.push(h);
      return true;
    },
  };
  return { v, reads, handles: Int32Array.from(pending, (_, h) => h) };
}

const SETTINGS = { window: 3600, resolution: 60, slurmRounding: false, reserveIdle: 'none' } as const;

/**
 * The counted pass written plainly (one group per job, no GPUs, `reserveIdle: "none"`, no Slurm rounding): every
 * job tested in order, each reserving its earliest fit on a plain array, a job fitting now started. Returns the
 * jobs started, in order.
 */
function plainPass(free: number[], running: [number, number, number][], pending: [number, number, number][], K: number, res: number): number[] {
  const freeNow = [...free];
  const profiles = free.map((f, g) => {
    const d = new Float64Array(K + 1);
    for (const [rg, c, left] of running) if (rg === g && Math.ceil(left / res) < K) d[Math.ceil(left / res)]! += c;
    const a = new Float64Array(K);
    let x = f;
    for (let k = 0; k < K; k++) a[k] = x += d[k]!;
    return a;
  });
  const started: number[] = [];
  pending.forEach(([g, c, limit], h) => {
    const L = Math.max(1, Math.ceil(limit / res - 1e-9));
    let k = earliestFit(profiles[g]!, K, c, L, 0);
    // (bucket 0 holds what ends now too: a job starts now only on the cores free now)
    if (k === 0 && freeNow[g]! < c) k = earliestFit(profiles[g]!, K, c, L, 1);
    if (k < 0) return;
    for (let b = k; b < Math.min(K, k + L); b++) profiles[g]![b]! -= c;
    if (k === 0) {
      freeNow[g]! -= c;
      started.push(h);
    }
  });
  return started;
}

describe('CountedBackfill.pass: it ends where no job left can start', () => {
  it('hand-computed: not run when no job fits the cores free now; ended once the cores free are fewer than any job left asks', () => {
    const none = countedView([2], [[0, 6, 120]], [[0, 4, 600]]);
    expect(new CountedBackfill().pass(none.v, SETTINGS, none.handles, 1)).toBe(0);
    expect(none.reads).toEqual({ holdings: 0, limits: 0, starts: [] });
    // 2 cores free; 6 more in 2 min. The one-core job starts (1 core left free); none of the jobs after it asks
    // for 1 core, so none is tested (the four-core job would reserve bucket 2, and the others start nowhere now)
    const queue: [number, number, number][] = [
      [0, 1, 60],
      [0, 4, 600],
      [0, 2, 60],
      [0, 3, 60],
    ];
    const one = countedView([2], [[0, 6, 120]], queue);
    expect(new CountedBackfill().pass(one.v, SETTINGS, one.handles, 4)).toBe(1);
    expect(one.reads).toEqual({ holdings: 1, limits: 1, starts: [0] });
    expect(Array.from(one.handles)).toEqual([-1, 1, 2, 3]);
    // with 3 cores free, 2 are left after the one-core job: the four-core job reserves 4 of the 8 free from bucket 2,
    // the two-core job of one bucket starts now on the 2 left, and the three-core job is not tested (none free)
    const two = countedView([3], [[0, 6, 120]], queue);
    expect(new CountedBackfill().pass(two.v, SETTINGS, two.handles, 4)).toBe(2);
    expect(two.reads.starts).toEqual([0, 2]);
    expect(two.reads.limits).toBe(3);
  });

  it('starts the jobs the plain pass starts, on any groups, holdings and queue', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 16 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 7200 })), { maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 60, max: 7200 })), { minLength: 1, maxLength: 20 }),
        (free, running, pending) => {
          const G = free.length;
          const hold = running.map(([g, c, l]) => [g % G, c, l] as [number, number, number]);
          const queue = pending.map(([g, c, l]) => [g % G, c, l] as [number, number, number]);
          const { v, reads, handles } = countedView(free, hold, queue);
          const started = new CountedBackfill().pass(v, SETTINGS, handles, handles.length);
          expect(reads.starts).toEqual(plainPass(free, hold, queue, 60, 60));
          expect(started).toBe(reads.starts.length);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
