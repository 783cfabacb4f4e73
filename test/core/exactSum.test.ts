/**
 * `ExactSum` (src/core/statistics.ts): the exact sum of its terms rounded once, so the same bits in any order of
 * the terms (checked against exact rational arithmetic on BigInt, and on shuffled orders), where `+=` is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactSum } from '../../src/core/statistics.js';

/** `x` as an exact fraction `n / 2^1074` (every finite double is one). */
function exact(x: number): bigint {
  if (x === 0) return 0n;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const m = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? m : m | (1n << 52n);
  const shift = BigInt(Math.max(e, 1) - 1);
  return sign * (mant << shift);
}

/** The doubles next to `v`, below and above. */
function neighbours(v: number): [number, number] {
  const step = (x: number, up: boolean): number => {
    if (x === 0) return up ? 5e-324 : -5e-324;
    const buf = new DataView(new ArrayBuffer(8));
    buf.setFloat64(0, x);
    buf.setBigUint64(0, buf.getBigUint64(0) + (x > 0 === up ? 1n : -1n));
    return buf.getFloat64(0);
  };
  return [step(v, false), step(v, true)];
}

/** Whether `v` is a double nearest the exact `n / 2^1074` (no neighbour closer). */
function isNearest(v: number, n: bigint): boolean {
  const dist = (x: number) => (exact(x) > n ? exact(x) - n : n - exact(x));
  const d = dist(v);
  for (const w of neighbours(v)) {
    if (dist(w) < d) return false;
  }
  return true;
}

const sumOf = (xs: number[]) => {
  const s = new ExactSum();
  for (const x of xs) s.add(x);
  return s.value();
};

describe('ExactSum', () => {
  it('is the exact sum rounded once: the same bits in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }), fc.integer({ min: -1e6, max: 1e6 })), { maxLength: 60 }),
        fc.integer(),
        (xs, seed) => {
          const v = sumOf(xs);
          expect(
            isNearest(
              v,
              xs.reduce((a, x) => a + exact(x), 0n),
            ),
          ).toBe(true);
          // a shuffle of the terms
          const ys = [...xs];
          let r = seed >>> 0;
          for (let i = ys.length - 1; i > 0; i--) {
            r = (r * 1103515245 + 12345) >>> 0;
            const j = r % (i + 1);
            [ys[i], ys[j]] = [ys[j]!, ys[i]!];
          }
          expect(sumOf(ys)).toBe(v);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it('where a running sum depends on the order, it does not; it is reusable after clear', () => {
    const xs = [1e16, 1, -1e16, 1, 0.1, 0.2, 0.3];
    expect(xs.reduce((a, x) => a + x, 0)).not.toBe([...xs].reverse().reduce((a, x) => a + x, 0));
    const s = new ExactSum();
    for (const x of xs) s.add(x);
    const v = s.value();
    s.clear();
    for (const x of [...xs].reverse()) s.add(x);
    expect(s.value()).toBe(v);
    s.clear();
    expect(s.value()).toBe(0);
    expect(sumOf([0.1, 0.2, 0.3])).toBe(0.6);
  });
});
