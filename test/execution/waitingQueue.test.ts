/**
 * The engine's `WaitingQueue` (holes and a moving head instead of `splice`) against a plain array
 * (fast-check), and its waiting slots against a map of the jobs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WaitingQueue } from '../../src/execution/waitingQueue.js';
import { makeJob, type Job } from '../../src/workload/job.js';

describe('WaitingQueue', () => {
  it('matches an array under arrivals and removals, across compactions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('push' as const), n: fc.integer({ min: 1, max: 3000 }) }),
            fc.record({ op: fc.constant('rm' as const), at: fc.nat({ max: 50 }) }),
            fc.constant({ op: 'tidy' as const }),
          ),
          {
            maxLength: 200,
          },
        ),
        (ops) => {
          const q = new WaitingQueue();
          const ref: Job[] = [];
          let id = 0;
          for (const o of ops) {
            if (o.op === 'push')
              for (let i = 0; i < o.n; i++) {
                const j = makeJob({ id: String(id++), subtime: 0, ntasks: 1, runtime: 1 });
                q.push(j);
                ref.push(j);
              }
            else if (o.op === 'rm' && ref.length > 0) {
              const j = ref[Math.min(o.at, ref.length - 1)]!;
              q.removeAt(q.indexOf(j));
              ref.splice(ref.indexOf(j), 1);
            } else if (o.op === 'tidy') q.tidy();
            expect(q.length).toBe(ref.length);
            expect(q.first()).toBe(ref[0]);
          }
          expect(q.toArray()).toEqual(ref);
          const walked: Job[] = [];
          for (let i = q.nextAt(q.start); i < q.end; i = q.nextAt(i + 1)) walked.push(q.at(i)!);
          expect(walked).toEqual(ref);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('compacts when holes outnumber jobs, keeping the order', () => {
    const q = new WaitingQueue();
    const jobs = Array.from({ length: 3000 }, (_, i) => makeJob({ id: String(i), subtime: 0, ntasks: 1, runtime: 1 }));
    for (const j of jobs) q.push(j);
    // remove the first 1000 and every other one of the next 2000: 2000 holes for 1000 jobs
    for (let i = 0; i < 1000; i++) q.removeAt(q.indexOf(jobs[i]!));
    for (let i = 1000; i < 3000; i += 2) q.removeAt(q.indexOf(jobs[i]!));
    expect(q.generation).toBe(0);
    const before = q.toArray();
    q.tidy();
    expect(q.generation).toBe(1);
    expect(q.start).toBe(0);
    expect(q.end).toBe(1000);
    expect(q.toArray()).toEqual(before);
    expect(before[0]!.id).toBe('1001');
  });

  it('gives each waiting job a slot of its own, found from its position and back across compactions, recycled once freed', () => {
    let reusedInAll = 0;
    let compactions = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('push' as const), n: fc.integer({ min: 1, max: 400 }) }),
            fc.record({ op: fc.constant('rm' as const), at: fc.nat({ max: 60 }), k: fc.integer({ min: 1, max: 300 }) }),
            fc.constant({ op: 'free' as const }),
            fc.constant({ op: 'tidy' as const }),
          ),
          { minLength: 30, maxLength: 80 },
        ),
        (ops) => {
          const q = new WaitingQueue();
          const ref: Job[] = [];
          const slotOf = new Map<Job, number>();
          // jobs removed whose slots are not freed yet (the engine frees them after their listeners)
          let leaving: Job[] = [];
          let id = 0;
          let most = 0;
          const freed = new Set<number>();
          for (const o of ops) {
            if (o.op === 'push')
              for (let i = 0; i < o.n; i++) {
                const j = makeJob({ id: String(id++), subtime: 0, ntasks: 1, runtime: 1 });
                const slot = q.push(j);
                if (freed.delete(slot)) reusedInAll++;
                slotOf.set(j, slot);
                ref.push(j);
              }
            else if (o.op === 'rm')
              for (let r = 0; r < o.k && ref.length > 0; r++) {
                const j = ref[Math.min(o.at, ref.length - 1)]!;
                expect(q.removeAt(q.positionOf(slotOf.get(j)!))).toBe(slotOf.get(j));
                ref.splice(ref.indexOf(j), 1);
                leaving.push(j);
              }
            else if (o.op === 'free') {
              for (const j of leaving) {
                q.freeSlot(slotOf.get(j)!);
                freed.add(slotOf.get(j)!);
                slotOf.delete(j);
              }
              leaving = [];
            } else q.tidy();
            most = Math.max(most, ref.length + leaving.length);
            // every waiting job: its slot, its position from its slot, its slot from its position
            const seen = new Set<number>();
            for (const j of ref) {
              const slot = slotOf.get(j)!;
              if (seen.has(slot) || q.jobOf(slot) !== j || q.at(q.positionOf(slot)) !== j || q.slotAt(q.positionOf(slot)) !== slot)
                expect.fail(`job ${j.id}: slot ${slot} (seen ${seen.has(slot)}), its job ${q.jobOf(slot)?.id}, position ${q.positionOf(slot)}`);
              seen.add(slot);
            }
            // (the slot from the job: the last arrival's at once, a scan otherwise)
            if (ref.length > 0) expect(q.slotOf(ref[ref.length - 1]!)).toBe(slotOf.get(ref[ref.length - 1]!));
            if (ref.length > 0) expect(q.slotOf(ref[0]!)).toBe(slotOf.get(ref[0]!));
            // a job that left keeps its slot until it is freed, with no position
            for (const j of leaving.slice(0, 5)) expect([q.slotOf(j), q.positionOf(slotOf.get(j)!)]).toEqual([slotOf.get(j), -1]);
            for (const j of leaving) if (seen.has(slotOf.get(j)!)) expect.fail(`job ${j.id} left, and its slot is another's`);
            for (const s of freed) if (q.jobOf(s) !== null) expect.fail(`slot ${s} was freed, and holds job ${q.jobOf(s)!.id}`);
          }
          const pairs: [Job, number][] = [];
          q.forEach((j, slot) => {
            pairs.push([j, slot]);
          });
          expect(pairs).toEqual(ref.map((j) => [j, slotOf.get(j)!]));
          // dense: no slot beyond the most jobs waiting or leaving at once
          for (const s of slotOf.values()) expect(s).toBeLessThan(Math.max(1, most));
          compactions += q.generation;
        },
      ),
      { numRuns: 50, seed: 4242 },
    );
    // (the cases did recycle slots and compact the buffer)
    expect(reusedInAll).toBeGreaterThan(50);
    expect(compactions).toBeGreaterThan(10);
  });

  it('refuses to free a slot whose job still waits, or a free one', () => {
    const q = new WaitingQueue();
    const a = makeJob({ id: 'a', subtime: 0, ntasks: 1, runtime: 1 });
    const b = makeJob({ id: 'b', subtime: 0, ntasks: 1, runtime: 1 });
    const sa = q.push(a);
    const sb = q.push(b);
    expect([sa, sb]).toEqual([0, 1]);
    expect(() => q.freeSlot(sa)).toThrow(/not a slot whose job left/);
    q.removeAt(q.positionOf(sa));
    q.freeSlot(sa);
    expect(() => q.freeSlot(sa)).toThrow(/not a slot whose job left/);
    // the freed slot goes to the next arrival
    const c = makeJob({ id: 'c', subtime: 0, ntasks: 1, runtime: 1 });
    expect(q.push(c)).toBe(sa);
    expect(q.slotOf(a)).toBe(-1);
    expect(q.toArray()).toEqual([b, c]);
  });
});
