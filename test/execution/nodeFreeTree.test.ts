import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NodeFreeTree } from '../../src/execution/nodeFreeTree.js';

/** Free counts a tree starts from. */
const initialFree = fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 70 });

/** Sets the leaves of `batch` (positions modulo the length) in the tree and in the mirror `free` (a leaf may be set twice). */
function setBatch(t: NodeFreeTree, free: number[], batch: [number, number][]): void {
  for (const [i, v] of batch) {
    free[i % free.length] = v;
    t.setLeaf(i % free.length, v);
  }
}

/** The naive answer of `findFirst`: a scan. */
function scanFirst(free: number[], from: number, k: number): number {
  for (let i = Math.max(0, from); i < free.length; i++) if (free[i]! >= k) return i;
  return -1;
}

describe('NodeFreeTree', () => {
  it('finds the first position with enough free cores (hand-computed)', () => {
    const t = new NodeFreeTree([0, 2, 1, 4, 0]);
    expect(t.max()).toBe(4);
    expect(t.findFirst(0, 1)).toBe(1);
    expect(t.findFirst(2, 2)).toBe(3);
    expect(t.findFirst(4, 1)).toBe(-1);
    expect(t.findFirst(0, 5)).toBe(-1);
    // a batch: three leaves, one commit
    t.setLeaf(3, 0);
    t.setLeaf(4, 3);
    t.setLeaf(0, 2);
    t.commit();
    expect(t.max()).toBe(3);
    expect(t.findFirst(0, 2)).toBe(0);
    expect(t.findFirst(1, 3)).toBe(4);
    expect(t.findFirst(0, 4)).toBe(-1);
  });

  it('batched updates (setLeaf + commit) and single updates agree with a scan', () => {
    const op = fc.record({
      batch: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 8 })), { maxLength: 40 }),
      single: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 8 }))),
      queries: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 9 })), { maxLength: 8 }),
    });
    fc.assert(
      fc.property(initialFree, fc.array(op, { maxLength: 12 }), (init, ops) => {
        const free = [...init];
        const n = free.length;
        const t = new NodeFreeTree(free);
        for (const o of ops) {
          setBatch(t, free, o.batch);
          t.commit();
          if (o.single) {
            free[o.single[0] % n] = o.single[1];
            t.update(o.single[0] % n, o.single[1]);
          }
          expect(t.max()).toBe(Math.max(...free));
          for (let i = 0; i < n; i++) expect(t.get(i)).toBe(free[i]);
          for (const [from, k] of o.queries) expect(t.findFirst(from % (n + 1), k)).toBe(scanFirst(free, from % (n + 1), k));
        }
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });

  it('leaves set without a commit are committed by the next search, max or single update (several batches in between)', () => {
    const op = fc.record({
      batch: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 8 })), { maxLength: 20 }),
      ask: fc.constantFrom('none', 'max', 'find', 'update'),
      at: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 9 })),
    });
    fc.assert(
      fc.property(initialFree, fc.array(op, { maxLength: 16 }), (init, ops) => {
        const free = [...init];
        const n = free.length;
        const t = new NodeFreeTree(free);
        for (const o of ops) {
          setBatch(t, free, o.batch);
          const [i, v] = o.at;
          if (o.ask === 'max') expect(t.max()).toBe(Math.max(...free));
          else if (o.ask === 'find') expect(t.findFirst(i % (n + 1), Math.max(1, v))).toBe(scanFirst(free, i % (n + 1), Math.max(1, v)));
          else if (o.ask === 'update') {
            free[i % n] = Math.min(v, 8);
            t.update(i % n, Math.min(v, 8));
          }
        }
        expect(t.max()).toBe(Math.max(...free));
        for (let k = 1; k <= 9; k++) expect(t.findFirst(0, k)).toBe(scanFirst(free, 0, k));
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });
});
