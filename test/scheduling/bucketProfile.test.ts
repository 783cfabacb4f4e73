import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketProfile, earliestFit, jointFit } from '../../src/scheduling/countedBackfill.js';

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
