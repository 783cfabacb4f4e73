/**
 * The engine's `WaitingQueue` (holes and a moving head instead of `splice`) against a plain array
 * (fast-check).
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
});
