import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TombstoneMap } from '../../src/core/tombstoneMap.js';

describe('TombstoneMap', () => {
  it('answers as a Map does under any sequence of sets, deletes and clears (fast-check)', () => {
    // keys from a few (set again after their deletion) and from thousands (enough tombstones for rebuilds)
    const key = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 3000 }));
    const op = fc.oneof(
      { weight: 50, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }) },
      { weight: 45, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 2000, maxLength: 6000 }), (ops) => {
        const keys = Array.from({ length: 3001 }, (_, i) => ({ i }));
        const ref = new Map<{ i: number }, number>();
        const m = new TombstoneMap<{ i: number }, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            ref.set(keys[o.key]!, o.value);
            m.set(keys[o.key]!, o.value);
          } else if (o.kind === 'delete') expect(m.delete(keys[o.key]!)).toBe(ref.delete(keys[o.key]!));
          else {
            ref.clear();
            m.clear();
          }
          expect(m.size).toBe(ref.size);
        }
        for (const k of keys) {
          expect(m.get(k)).toBe(ref.get(k));
          expect(m.has(k)).toBe(ref.has(k));
        }
        expect(new Set(m.values())).toEqual(new Set(ref.values()));
        const seen: number[] = [];
        m.forEach((v, k) => {
          expect(ref.get(k)).toBe(v);
          seen.push(v);
        });
        expect(seen.length).toBe(ref.size);
      }),
      { seed: 42, numRuns: 40 },
    );
  });

  it('rebuilds its table once the tombstones outnumber the live entries: 3,000 keys come and go, a few stay', () => {
    const m = new TombstoneMap<number, number>();
    for (let round = 0; round < 5; round++) {
      for (let k = 0; k < 3000; k++) m.set(round * 3000 + k, k);
      for (let k = 10; k < 3000; k++) expect(m.delete(round * 3000 + k)).toBe(true);
    }
    // 10 live per round stay; the 2,990 dead of each round were dropped by rebuilds
    expect(m.size).toBe(50);
    expect(m.get(4 * 3000 + 5)).toBe(5);
    expect(m.get(4 * 3000 + 11)).toBeUndefined();
    expect(m.delete(4 * 3000 + 11)).toBe(false);
    const table = (m as unknown as { map: Map<number, number | undefined> }).map;
    expect(table.size).toBeLessThan(2 * 1024 + 2 * 50 + 3000);
  });
});
