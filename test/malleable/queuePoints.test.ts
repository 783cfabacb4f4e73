/**
 * Queue points (engine.ts `queuePoints`, Malleable-v0's second kind of decision): offered when the
 * queue's head waits for nodes that shrinks of running malleable jobs could free; a request is carried
 * out at the job's next reconfiguration point. Hand-computed runs (decline, request), `dmr` with queue
 * points equal to `dmr` without, and invariants under a random agent on random workloads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidResizeError, DmrSim, simulate } from '../../src/malleable/preset.js';
import { type AppModel, allowedSizes, type MWorkload, validResize } from '../../src/malleable/model.js';
import { dmrPolicy, type ResizePolicy } from '../../src/malleable/policy.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { malleableWorkloadArb } from './arbitraries.js';

const lin: AppModel = { name: 'lin', t1: 1, serial: 0 };

// 4 nodes. A: malleable (1..4, pref 4, factor 2: sizes 1, 2, 4; inhibit 1 s), 10 steps of d(n) = 1/n,
// starts at 0 on 4 nodes: d = 0.25, k = ceil(1 / 0.25) = 4 steps, points at 1 and 2, end at 2.5.
// B: rigid, 2 nodes, 3 steps (1.5 s on 2 nodes), arrives at 0.1: needs 2 > 0 free, and A could give
// 4 - 1 = 3 nodes: a queue point for A at 0.1 (size 4, free 0, queue [2]).
const w: MWorkload = {
  nodes: 4,
  jobs: [
    { id: 'A', subtime: 0, app: lin, steps: 10, nodes: 4, malleable: { min: 1, max: 4, pref: 4, factor: 2, inhibit: 1 } },
    { id: 'B', subtime: 0.1, app: lin, steps: 3, nodes: 2, malleable: null },
  ],
};

/** dmr at reconfiguration points; `size` requested at every queue point. */
const requesting =
  (size: number): ResizePolicy =>
  (ctx) =>
    ctx.kind === 'queue' ? { size, promote: -1, rule: 'wide-shrink' } : dmrPolicy(ctx);

describe('queue points: hand-computed', () => {
  it('is offered at the arrival of the blocked head, with the job and the queue', () => {
    const sim = new DmrSim(w, { queuePoints: true });
    const p = sim.next()!;
    expect(p.kind).toBe('queue');
    expect(sim.atQueuePoint).toBe(true);
    expect(sim.time).toBeCloseTo(0.1, 12);
    expect(sim.pendingJob?.id).toBe('A');
    expect([p.size, p.free, p.queue]).toEqual([4, 0, [2]]);
    // 0.1 s of 2.5 s done
    expect(sim.pendingProgress).toBeCloseTo(0.04, 12);
    // only shrinks to an allowed size can be requested
    expect(() => sim.decide(3)).toThrow(InvalidResizeError);
    expect(() => sim.decide(8)).toThrow(/only a shrink/);
    sim.decide(4);
    // declined: A is not offered again for B; next is A's own point at 1 (kind 'point')
    const q = sim.next()!;
    expect(q.kind).toBe('point');
    expect(sim.time).toBeCloseTo(1, 12);
  });
  it('declined: the run is the plain dmr run (A at pref keeps its size, B starts at 2.5)', () => {
    const r = simulate(w, dmrPolicy, { queuePoints: true });
    expect(r.queuePoints).toBe(1);
    expect(r.shrinkRequests).toBe(0);
    expect(r.jobs[1]!.start).toBeCloseTo(2.5, 12);
    expect(r.jobs[1]!.finish).toBeCloseTo(4, 12);
    const plain = simulate(w, dmrPolicy);
    expect({ ...r, queuePoints: 0 }).toEqual(plain);
  });
  it("a request for 2 nodes: carried out at A's next point (1), B starts when the shrink ends", () => {
    // 1: A's point applies the request without asking: shrink 4 -> 2 (0.425 s), B starts at 1.425,
    // ends at 2.925. A resumes at 1.425 on 2 nodes (d = 0.5, 6 steps left, k = 2): points at 2.425
    // (queue empty, no free node: no-action) and 3.425 (B gone, 2 free: expand to 4, 0.423 s),
    // resumes at 3.848 with 2 steps of 0.25: ends at 4.348.
    const r = simulate(w, requesting(2), { queuePoints: true });
    expect(r.queuePoints).toBe(1);
    expect(r.shrinkRequests).toBe(1);
    const [a, b] = r.jobs;
    expect(b!.start).toBeCloseTo(1.425, 12);
    expect(b!.finish).toBeCloseTo(2.925, 12);
    expect(a!.finish).toBeCloseTo(4.348, 12);
    expect(r.resizes.map((x) => [x.job, x.from, x.to, x.cost])).toEqual([
      ['A', 4, 2, 0.425],
      ['A', 2, 4, 0.423],
    ]);
    expect(r.resizes[0]!.time).toBeCloseTo(1, 12);
    expect(r.resizes[1]!.time).toBeCloseTo(3.425, 12);
    // the point at 1 was the request's, not offered: the only no-action is 2.425's
    expect(r.noActions).toBe(1);
    expect(r.meanWait).toBeCloseTo((1.425 - 0.1) / 2, 12);
    expect(a!.nodeSeconds).toBeCloseTo(4 * 1.425 + 2 * 2 + 4 * 0.923, 9);
  });
  it('a request for 1 node frees 3; no further queue point once the pledge covers the head', () => {
    const r = simulate(w, requesting(1), { queuePoints: true });
    expect(r.queuePoints).toBe(1);
    expect(r.resizes[0]).toMatchObject({ job: 'A', from: 4, to: 1 });
    expect(r.jobs[1]!.start).toBeCloseTo(1.425, 12);
  });
  it('no queue point when the head fits, nor when no shrink could make it fit', () => {
    // B needs 4: A holds all 4 and can free at most 3 (down to 1): 0 + 3 < 4, none
    const big: MWorkload = { nodes: 4, jobs: [w.jobs[0]!, { ...w.jobs[1]!, nodes: 4 }] };
    expect(simulate(big, dmrPolicy, { queuePoints: true }).queuePoints).toBe(0);
    // a rigid runner cannot shrink
    const rigid: MWorkload = { nodes: 4, jobs: [{ ...w.jobs[0]!, malleable: null }, w.jobs[1]!] };
    expect(simulate(rigid, dmrPolicy, { queuePoints: true }).queuePoints).toBe(0);
  });
});

describe('queue points: dmr declines, so dmr with them is dmr without', () => {
  it('on the paper workload, several seeds', () => {
    for (const seed of [1, 2, 3]) {
      const pw = paperWorkload({ jobs: 60, seed });
      const q = simulate(pw, dmrPolicy, { queuePoints: true });
      const plain = simulate(pw, dmrPolicy);
      expect(q.queuePoints).toBeGreaterThan(0);
      expect({ ...q, queuePoints: 0 }).toEqual(plain);
    }
  });
});

const workloadArb = malleableWorkloadArb({ minJobs: 2, maxSubtime: 30, unknownPref: false });

describe('queue points: properties on random workloads', () => {
  it('a random agent at both kinds: offers only for a blocked head, each job once per head; requests carried out at the next point', () => {
    fc.assert(
      fc.property(workloadArb, fc.integer({ min: 0, max: 1e6 }), (w, seed) => {
        const sim = new DmrSim(w, { queuePoints: true });
        const byId = new Map(w.jobs.map((j) => [j.id, j]));
        // jobs offered while the current head waits; requests: job -> [size, its resizes when made]
        let head = '';
        const offered = new Set<string>();
        const requested = new Map<string, [number, number]>();
        const resizesOf = (id: string) => sim.resizes.filter((r) => r.job === id);
        // a request is the job's next resize, to the requested size
        const settle = () => {
          for (const [id, [size, before]] of requested) {
            const rs = resizesOf(id);
            if (rs.length > before) {
              expect(rs[before]!.to).toBe(size);
              requested.delete(id);
            }
          }
        };
        let x = seed;
        for (let p = sim.next(); p !== null; p = sim.next()) {
          settle();
          const job = sim.pendingJob!;
          x = (x * 1103515245 + 12345) % 2147483648;
          if (p.kind === 'queue') {
            expect(p.queue[0]!).toBeGreaterThan(p.free);
            expect(requested.has(job.id)).toBe(false);
            if (sim.headJob!.id !== head) {
              head = sim.headJob!.id;
              offered.clear();
            }
            expect(offered.has(job.id)).toBe(false);
            offered.add(job.id);
            const smaller = allowedSizes(p.spec).filter((s) => s < p.size);
            expect(smaller.length).toBeGreaterThan(0);
            const options = [p.size, ...smaller];
            const size = options[x % options.length]!;
            sim.decide(size);
            if (size < p.size) requested.set(job.id, [size, resizesOf(job.id).length]);
          } else {
            // a requested job's point is carried out, never offered
            expect(requested.has(job.id)).toBe(false);
            const options = allowedSizes(p.spec).filter((s) => s - p.size <= p.free);
            sim.decide(options[x % options.length]!);
          }
          expect(sim.freeNodes).toBeGreaterThanOrEqual(0);
        }
        settle();
        // every request was carried out (a job with a request has a point before its end)
        expect(requested.size).toBe(0);
        expect(sim.over).toBe(true);
        const r = sim.result();
        expect(r.shrinkRequests).toBeLessThanOrEqual(r.queuePoints);
        for (const rz of r.resizes) expect(validResize(byId.get(rz.job)!.malleable!, rz.from, rz.to)).toBe(true);
        const total = r.jobs.reduce((a, j) => a + j.nodeSeconds, 0);
        expect(total).toBeCloseTo(r.allocation * w.nodes * r.makespan, 6);
      }),
      { numRuns: 120, seed: 13 },
    );
  });
});
