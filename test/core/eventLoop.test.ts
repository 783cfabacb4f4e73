/**
 * The event loop (`src/core/eventLoop.ts`): its order (time, kind rank, scheduling order), lazy
 * cancellation, and `reschedule`, checked against a reference that sorts every event it was given.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../src/core/eventLoop.js';

/** Takes every event out as `payload@time`. */
function drain<T>(loop: EventLoop<T>): string[] {
  const out: string[] = [];
  while (loop.next()) out.push(`${String(loop.payload)}@${loop.time}`);
  return out;
}

describe('EventLoop', () => {
  it('orders by time, then by the rank of the kind, then by scheduling order', () => {
    // kind 1 ranks before kind 0 within an instant
    const loop = new EventLoop<string>({ ranks: [1, 0], capacity: 16 });
    loop.schedule(5, 0, 'a');
    loop.schedule(2, 0, 'b');
    loop.schedule(5, 1, 'c');
    loop.schedule(5, 0, 'd');
    loop.schedule(2, 1, 'e');
    expect(drain(loop)).toEqual(['e@2', 'b@2', 'c@5', 'a@5', 'd@5']);
  });

  it('drops the events isLive says are stale, and keeps the fields of the last taken', () => {
    const current = new Map<string, number>([
      ['x', 2],
      ['y', 1],
    ]);
    const loop = new EventLoop<string>({ isLive: (_k, p, stamp) => current.get(p) === stamp });
    loop.schedule(1, 0, 'x', 1); // stale: x's stamp is now 2
    loop.schedule(3, 0, 'x', 2);
    loop.schedule(2, 4, 'y', 1);
    expect(loop.peekTime()).toBe(2);
    expect(loop.peekKind()).toBe(4);
    expect(loop.nextAt(1)).toBe(false);
    expect(loop.nextAt(2)).toBe(true);
    expect([loop.payload, loop.kind, loop.stamp, loop.time]).toEqual(['y', 4, 1, 2]);
    expect(drain(loop)).toEqual(['x@3']);
    expect(loop.next()).toBe(false);
    expect(loop.peekTime()).toBe(Number.POSITIVE_INFINITY);
  });

  it('reschedule moves a pending event in place and refuses a handle that is no longer that event', () => {
    const loop = new EventLoop<string>({ capacity: 16 });
    const a = loop.schedule(10, 0, 'a');
    loop.schedule(5, 0, 'b');
    const c = loop.schedule(7, 0, 'c');
    expect(loop.reschedule(a, 0, 'a', 1)).toBe(true); // earlier
    expect(loop.reschedule(c, 0, 'c', 20)).toBe(true); // later
    expect(loop.reschedule(c, 1, 'c', 3)).toBe(false); // another kind
    expect(loop.reschedule(c, 0, 'z', 3)).toBe(false); // another payload
    expect(loop.size).toBe(3);
    expect(loop.next()).toBe(true);
    expect(loop.payload).toBe('a');
    expect(loop.reschedule(a, 0, 'a', 2)).toBe(false); // taken
    expect(loop.reschedule(-1, 0, 'a', 2)).toBe(false);
    expect(drain(loop)).toEqual(['b@5', 'c@20']);
  });

  it('a rescheduled event comes out where a cancel-and-schedule puts it (same time: after those scheduled before)', () => {
    const loop = new EventLoop<string>({ capacity: 16 });
    const a = loop.schedule(1, 0, 'a');
    loop.schedule(4, 0, 'b');
    loop.schedule(4, 0, 'c');
    loop.reschedule(a, 0, 'a', 4);
    expect(drain(loop)).toEqual(['b@4', 'c@4', 'a@4']);
  });

  it('gives the order of lazy cancellation for any sequence of schedules, moves and takes (property)', () => {
    const op = fc.oneof(
      fc.record({ op: fc.constant('schedule' as const), time: fc.integer({ min: 0, max: 20 }), kind: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ op: fc.constant('move' as const), which: fc.nat(), time: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ op: fc.constant('take' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.boolean(), (ops, ranked) => {
        const ranks = ranked ? [2, 0, 1] : undefined;
        // under test: moves through reschedule
        const loop = new EventLoop<number>({ ranks, capacity: 16 });
        // reference: every event ever scheduled, a move cancels the old one (stamp) and adds a new one
        const ref = new EventLoop<number>({ ranks, capacity: 16, isLive: (_k, p, stamp) => version[p] === stamp });
        const version: number[] = [];
        const handle: number[] = [];
        const kindOf: number[] = [];
        const pending = new Set<number>();
        const taken: string[] = [];
        const takenRef: string[] = [];
        for (const o of ops) {
          if (o.op === 'schedule') {
            const id = version.length;
            version.push(0);
            kindOf.push(o.kind);
            handle.push(loop.schedule(o.time, o.kind, id, 0));
            ref.schedule(o.time, o.kind, id, 0);
            pending.add(id);
          } else if (o.op === 'move') {
            if (pending.size === 0) continue;
            const id = [...pending][o.which % pending.size]!;
            version[id]!++;
            expect(loop.reschedule(handle[id]!, kindOf[id]!, id, o.time, version[id])).toBe(true);
            ref.schedule(o.time, kindOf[id]!, id, version[id]);
          } else {
            const got = loop.next();
            expect(ref.next()).toBe(got);
            if (!got) continue;
            taken.push(`${loop.payload}@${loop.time}/${loop.kind}`);
            takenRef.push(`${ref.payload}@${ref.time}/${ref.kind}`);
            pending.delete(loop.payload!);
          }
        }
        while (loop.next()) taken.push(`${loop.payload}@${loop.time}/${loop.kind}`);
        while (ref.next()) takenRef.push(`${ref.payload}@${ref.time}/${ref.kind}`);
        expect(taken).toEqual(takenRef);
        // only the pending events were ever in the heap
        expect(loop.size).toBe(0);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });
});
