import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObservationBuilder, type Limits } from '../../envs/observation.js';
import type { Job } from '../../src/workload/job.js';
import { opsJob, tfg2x2x4 } from '../helpers.js';

const LIMITS: Limits = { req_time: 100, ntasks: 8, mem: 1000, mem_vol: 50 };
const K = 6;

function builder(): ObservationBuilder {
  return new ObservationBuilder('dict', K, tfg2x2x4(), LIMITS, 500, 0.5);
}

describe('ObservationBuilder job rows', () => {
  it('writes each feature of a row (hand-computed)', () => {
    const b = builder();
    const job = opsJob('a', 4, { subtime: 10, reqTime: 50, mem: 250, memVol: 100, type: 'mpi' });
    b.writeJobs(110, [job], 1, Uint8Array.from([1]));
    // present, wait (100 / 500), req_time (50 / 100), ntasks (4 / 8), mem (250 / 1000), mem_bw (clipped), is_mpi, can_start
    expect([...b.jobs.subarray(0, 8)]).toEqual([1, Math.fround(0.2), 0.5, 0.5, 0.25, 1, 1, 1]);
    expect(b.jobs.subarray(8).every((x) => x === 0)).toBe(true);
  });

  it('incremental rows equal rows written from scratch, whatever the windows (starts, arrivals, reorders, time)', () => {
    const pool: Job[] = Array.from({ length: 16 }, (_, i) =>
      opsJob(`j${i}`, 1 + (i % 8), { subtime: i * 7, reqTime: 5 + i * 9, mem: i * 80, memVol: i * 4, type: i % 3 === 0 ? 'mpi' : 'seq' }),
    );
    const step = fc.record({
      removeAt: fc.array(fc.nat(), { maxLength: 3 }),
      arrivals: fc.nat({ max: 3 }),
      shuffle: fc.boolean(),
      swap: fc.tuple(fc.nat(), fc.nat()),
      dt: fc.oneof(fc.constant(0), fc.nat({ max: 400 })),
      fits: fc.array(fc.boolean(), { minLength: K, maxLength: K }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const inc = builder();
        let queue: Job[] = [];
        let next = 0;
        let now = 0;
        for (const s of steps) {
          for (const r of s.removeAt) if (queue.length) queue.splice(r % queue.length, 1);
          for (let i = 0; i < s.arrivals; i++) queue.push(pool[next++ % pool.length]!);
          if (s.shuffle && queue.length > 1) {
            const [x, y] = [s.swap[0] % queue.length, s.swap[1] % queue.length];
            [queue[x], queue[y]] = [queue[y]!, queue[x]!];
          }
          queue = [...queue];
          now += s.dt;
          const count = Math.min(K, queue.length);
          const canStart = Uint8Array.from(s.fits, (f) => (f ? 1 : 0));
          inc.writeJobs(now, queue, count, canStart);
          const fresh = builder();
          fresh.writeJobs(now, queue, count, canStart);
          expect([...inc.jobs]).toEqual([...fresh.jobs]);
        }
        inc.reset();
        expect(inc.jobs.every((x) => x === 0)).toBe(true);
      }),
      { seed: 7, numRuns: 400 },
    );
  });
});

describe('the jobs observation', () => {
  it("is flat's job rows then its global features, step by step, on the same episode", async () => {
    const { make } = await import('../../envs/index.js');
    const { SMALL } = await import('./envHelpers.js');
    const config = { ...SMALL, k: 5, unfit: 'reserve' };
    const flat = make('clustergym/Job-v0', { ...config, observation: 'flat' });
    const jobs = make('clustergym/Job-v0', { ...config, observation: 'jobs' });
    const nodes = flat.nodeCount;
    const split = (o: Float32Array): number[] => [...o.subarray(0, 5 * 8), ...o.subarray(5 * 8 + nodes * 7)];
    let a = flat.reset({ seed: 3 }).observation as Float32Array;
    let b = jobs.reset({ seed: 3 }).observation as Float32Array;
    expect(b.length).toBe(5 * 8 + 5);
    let steps = 0;
    for (;;) {
      expect([...b]).toEqual(split(a));
      const mask = flat.actionMask();
      expect([...jobs.actionMask()]).toEqual([...mask]);
      const action = mask.lastIndexOf(1);
      const ra = flat.step(action);
      const rb = jobs.step(action);
      expect(rb.reward).toBe(ra.reward);
      steps++;
      if (ra.terminated || ra.truncated) {
        expect(rb.terminated || rb.truncated).toBe(true);
        break;
      }
      a = ra.observation as Float32Array;
      b = rb.observation as Float32Array;
    }
    expect(steps).toBeGreaterThanOrEqual(20);
  });
});
