import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketProfile, CountedBackfill, type CountedBackfillView, earliestFit, jointFit, mayStartAny } from '../../src/scheduling/countedBackfill.js';

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
  const reads = { holdings: 0, starts: [] as number[] };
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
    timeLimit: (h) => pending[h]![2],
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

describe('CountedBackfill.pass: skipped when no job tested fits the cores free now (mayStartAny)', () => {
  it('hand-computed: groups with 3 and 5 cores free', () => {
    const { v } = countedView(
      [3, 5],
      [],
      [
        [0, 6, 600],
        [1, 8, 600],
      ],
    );
    expect(mayStartAny(v, [0, 1], 2)).toBe(false);
    expect(mayStartAny(v, [0, 1, 2], 2)).toBe(false);
    // a started job's entry (-1) is not tested
    const w = countedView(
      [3, 5],
      [],
      [
        [0, 6, 600],
        [1, 5, 600],
      ],
    );
    expect(mayStartAny(w.v, [0, 1], 2)).toBe(true);
    expect(mayStartAny(w.v, [0, -1], 2)).toBe(false);
  });

  it('a pass that starts none of them does not read the running jobs; one that may start reads them once', () => {
    const none = countedView([2], [[0, 6, 120]], [[0, 4, 600]]);
    expect(new CountedBackfill().pass(none.v, SETTINGS, none.handles, 1)).toBe(0);
    expect(none.reads.holdings).toBe(0);
    // 4 cores free in 2 min (bucket 2): the job of 4 cores for 10 min is reserved there, the one-core job of 1 min starts now
    const one = countedView(
      [2],
      [[0, 6, 120]],
      [
        [0, 4, 600],
        [0, 1, 60],
      ],
    );
    expect(new CountedBackfill().pass(one.v, SETTINGS, one.handles, 2)).toBe(1);
    expect(one.reads).toEqual({ holdings: 1, starts: [1] });
    expect(Array.from(one.handles)).toEqual([0, -1]);
  });

  it('every job a pass starts had its cores free in its group when the pass began (what the skip relies on)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 16 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 7200 })), { maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 60, max: 7200 })), { minLength: 1, maxLength: 20 }),
        (free, running, pending) => {
          const G = free.length;
          const { v, reads, handles } = countedView(
            free,
            running.map(([g, c, l]) => [g % G, c, l]),
            pending.map(([g, c, l]) => [g % G, c, l]),
          );
          const may = mayStartAny(v, handles, handles.length);
          const started = new CountedBackfill().pass(v, SETTINGS, handles, handles.length);
          expect(started).toBe(reads.starts.length);
          for (const h of reads.starts) expect(pending[h]![1]).toBeLessThanOrEqual(free[pending[h]![0] % G]!);
          if (!may) expect(reads).toEqual({ holdings: 0, starts: [] });
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});
