/**
 * The data structures behind the schedulers, against plain reference implementations (fast-check):
 * `IndexedHeap` (running jobs by expected end) and `SortedList` (queues kept by a static key). The
 * engine's `WaitingQueue` is tested in test/execution/waitingQueue.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedHeap } from '../../src/scheduling/indexedHeap.js';
import { ScratchIndexList, ScratchList } from '../../src/core/scratchList.js';
import { BoundedMemo } from '../../src/core/boundedMemo.js';
import { SortedList } from '../../src/scheduling/sortedList.js';

interface Item {
  key: number;
  seq: number;
  heapPos: number;
}

const cmp = (a: Item, b: Item) => a.key - b.key || a.seq - b.seq;

/** Operations: insert a key, or delete the item at a (wrapped) index of the live ones. */
const opsArb = fc.array(
  fc.oneof(fc.record({ op: fc.constant('ins' as const), key: fc.integer({ min: 0, max: 50 }) }), fc.record({ op: fc.constant('del' as const), at: fc.nat() })),
  {
    maxLength: 400,
  },
);

describe('IndexedHeap', () => {
  it('pop order, delete anywhere and in-order visits match a sorted array', () => {
    fc.assert(
      fc.property(opsArb, fc.nat({ max: 60 }), (ops, visit) => {
        const heap = new IndexedHeap<Item>((a, b) => cmp(a, b) < 0);
        let live: Item[] = [];
        let seq = 0;
        for (const o of ops) {
          if (o.op === 'ins') {
            const it: Item = { key: o.key, seq: seq++, heapPos: -1 };
            heap.push(it);
            live.push(it);
          } else if (live.length > 0) {
            const it = live[o.at % live.length]!;
            heap.delete(it);
            live = live.filter((x) => x !== it);
          }
        }
        const sorted = live.slice().sort(cmp);
        const seen: Item[] = [];
        heap.forEachInOrder((it) => {
          seen.push(it);
          return seen.length < visit;
        });
        expect(seen).toEqual(sorted.slice(0, Math.max(1, Math.min(visit, sorted.length))).slice(0, sorted.length));
        expect(heap.size).toBe(sorted.length);
        const popped: Item[] = [];
        for (let it = heap.pop(); it; it = heap.pop()) popped.push(it);
        expect(popped).toEqual(sorted);
      }),
    );
  });
});

describe('SortedList', () => {
  it('insert, delete, first, slice and iteration match a sorted array', () => {
    fc.assert(
      fc.property(opsArb, fc.nat({ max: 20 }), fc.nat({ max: 30 }), (ops, skip, k) => {
        const list = new SortedList<Item>(cmp);
        let live: Item[] = [];
        let seq = 0;
        for (const o of ops) {
          if (o.op === 'ins') {
            const it: Item = { key: o.key, seq: seq++, heapPos: -1 };
            list.insert(it);
            live.push(it);
          } else if (live.length > 0) {
            const it = live[o.at % live.length]!;
            expect(list.delete(it)).toBe(true);
            expect(list.delete(it)).toBe(false);
            live = live.filter((x) => x !== it);
          }
        }
        const sorted = live.slice().sort(cmp);
        expect(list.toArray()).toEqual(sorted);
        expect([...list]).toEqual(sorted);
        expect(list.first()).toBe(sorted[0]);
        expect(list.length).toBe(sorted.length);
        expect(list.slice(skip, k)).toEqual(sorted.slice(skip, skip + k));
        // firstInto appends (a kept list: refilled after clear, its storage reused)
        const into = new ScratchList<Item>();
        into.push(sorted[0] ?? { key: -1, seq: -1, heapPos: -1 });
        into.clear();
        list.firstInto(k, into);
        expect(into.toArray()).toEqual(sorted.slice(0, k));
      }),
    );
  });

  it('many items (chunks split) stay sorted', () => {
    const list = new SortedList<Item>(cmp);
    for (let i = 0; i < 5000; i++) list.insert({ key: (i * 7919) % 1000, seq: i, heapPos: -1 });
    const a = list.toArray();
    for (let i = 1; i < a.length; i++) expect(cmp(a[i - 1]!, a[i]!)).toBeLessThan(0);
    expect(list.shift()!.key).toBe(0);
  });
});

describe('ScratchList', () => {
  it('push, at, includes, remove (the first match, order kept), toArray and clear', () => {
    const l = new ScratchList<number>();
    for (const x of [3, 1, 4, 1, 5]) l.push(x);
    expect(l.toArray()).toEqual([3, 1, 4, 1, 5]);
    expect(l.remove(1)).toBe(true);
    expect(l.toArray()).toEqual([3, 4, 1, 5]);
    expect(l.remove(9)).toBe(false);
    expect(l.includes(5) && !l.includes(9)).toBe(true);
    expect(l.at(2)).toBe(1);
    l.clear();
    expect(l.length).toBe(0);
    l.push(7);
    expect(l.toArray()).toEqual([7]);
  });
});

describe('ScratchIndexList', () => {
  it('push (past its first storage), at, includes, remove (the first match, order kept), toArray and clear', () => {
    const l = new ScratchIndexList();
    const xs = Array.from({ length: 40 }, (_, i) => (i * 7) % 13);
    for (const x of xs) l.push(x);
    expect(l.length).toBe(40);
    expect(l.toArray()).toEqual(xs);
    expect(l.remove(1)).toBe(true);
    xs.splice(xs.indexOf(1), 1);
    expect(l.toArray()).toEqual(xs);
    expect(l.remove(99)).toBe(false);
    expect(l.includes(12) && !l.includes(99)).toBe(true);
    expect(l.at(2)).toBe(xs[2]);
    l.clear();
    expect(l.length).toBe(0);
    l.push(2 ** 31 - 1);
    expect(l.toArray()).toEqual([2 ** 31 - 1]);
  });
});

describe('BoundedMemo', () => {
  it('makes a value once per key, keeps at most `size`, the oldest going first', () => {
    const made: number[] = [];
    const memo = new BoundedMemo<number, string>(2);
    const get = (k: number) =>
      memo.get(k, () => {
        made.push(k);
        return `v${k}`;
      });
    expect([get(1), get(2), get(1)]).toEqual(['v1', 'v2', 'v1']);
    expect(made).toEqual([1, 2]);
    // a third key drops the oldest kept (1), not the one read last
    expect(get(3)).toBe('v3');
    expect([get(2), get(1)]).toEqual(['v2', 'v1']);
    expect(made).toEqual([1, 2, 3, 1]);
    expect(() => new BoundedMemo(0)).toThrow(RangeError);
  });
});
