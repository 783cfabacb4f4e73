/**
 * The malleable simulator: hand-computed runs (a shrink for a queued job, an expansion once the
 * queue is empty, exact times and costs; EASY backfilling), and property tests on random workloads
 * (every resize respects min, max and the factor; nodes are never oversubscribed; node-seconds add up).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidResizeError, DmrSim, simulate } from '../../src/malleable/preset.js';
import { type AppModel, allowedSizes, type MJob, type MWorkload, validResize } from '../../src/malleable/model.js';
import { dmrPolicy, neverPolicy } from '../../src/malleable/policy.js';
import { malleableWorkloadArb } from './arbitraries.js';

const lin: AppModel = { name: 'lin', t1: 1, serial: 0 };
const flat: AppModel = { name: 'flat', t1: 1, serial: 1 };

describe('hand-computed run', () => {
  // 4 nodes. A: malleable (1..4, pref 2, inhibit 0), 10 steps of d(n) = 1/n, at 0 on 4 nodes.
  // B: rigid, 2 nodes, 3 steps, arrives at 0.1 and waits.
  // 0.25: A's first point, B queued, 4 > pref -> shrink to 2 (0.425 s), nodes free at 0.675, B starts.
  // A at d(2) = 0.5: points at 1.175, 1.675 (queue empty, no free node: no action), 2.175.
  // 2.175: B ends (3 x 0.5), then A's point: queue empty, 2 free -> expand to 4 (0.423 s), resumes
  // at 2.598 with 6 steps of 0.25: ends at 4.098.
  const w: MWorkload = {
    nodes: 4,
    jobs: [
      { id: 'A', subtime: 0, app: lin, steps: 10, nodes: 4, malleable: { min: 1, max: 4, pref: 2, factor: 2, inhibit: 0 } },
      { id: 'B', subtime: 0.1, app: lin, steps: 3, nodes: 2, malleable: null },
    ],
  };
  it('shrinks for the queued job, expands once the queue is empty', () => {
    const r = simulate(w, dmrPolicy);
    const [a, b] = r.jobs;
    expect(b!.start).toBeCloseTo(0.675, 12);
    expect(b!.finish).toBeCloseTo(2.175, 12);
    expect(a!.finish).toBeCloseTo(4.098, 12);
    expect(a!.shrinks).toBe(1);
    expect(a!.expands).toBe(1);
    expect(r.resizes.map((x) => [x.job, x.from, x.to, x.cost])).toEqual([
      ['A', 4, 2, 0.425],
      ['A', 2, 4, 0.423],
    ]);
    expect(r.resizes[0]!.time).toBeCloseTo(0.25, 12);
    expect(r.resizes[1]!.time).toBeCloseTo(2.175, 12);
    expect(a!.nodeSeconds).toBeCloseTo(4 * 0.675 + 2 * 1.5 + 4 * 1.923, 9);
    expect(b!.nodeSeconds).toBeCloseTo(3, 12);
    expect(r.makespan).toBeCloseTo(4.098, 12);
    expect(r.allocation).toBeCloseTo(1, 12);
    expect(r.meanWait).toBeCloseTo(0.575 / 2, 12);
    // no-actions: 1.175, 1.675, then 5 of the 6 last steps at max (the 6th ends the job)
    expect(r.noActions).toBe(7);
    expect(r.invalidResizes).toBe(0);
  });
  it('configurable costs: free resizes move every time by the costs saved', () => {
    // shrink done at 0.25 (B starts then), B ends at 1.75, expand at 1.75 done at once, 6 steps of 0.25
    const r = simulate(w, dmrPolicy, { cost: { expand: 0, shrink: 0 } });
    expect(r.jobs[1]!.start).toBeCloseTo(0.25, 12);
    expect(r.jobs[0]!.finish).toBeCloseTo(3.25, 12);
    expect(r.resizes.map((x) => x.cost)).toEqual([0, 0]);
    expect(r.resizeTime).toBe(0);
  });
  it('never: the rigid run at max', () => {
    const r = simulate(w, neverPolicy);
    expect(r.jobs[0]!.finish).toBeCloseTo(2.5, 12);
    expect(r.jobs[1]!.start).toBeCloseTo(2.5, 12);
    expect(r.jobs[1]!.finish).toBeCloseTo(4, 12);
    expect(r.resizes).toEqual([]);
  });
  it('refuses a resize outside min/max/factor or beyond the free nodes, changing nothing', () => {
    const sim = new DmrSim(w);
    const p = sim.next()!;
    expect(p.size).toBe(4);
    expect(() => sim.decide(3)).toThrow(InvalidResizeError);
    expect(() => sim.decide(8)).toThrow(/min 1, max 4 or factor 2/);
    expect(sim.pendingJob?.id).toBe('A');
    sim.decide(1);
    expect(sim.next()).not.toBeNull();
  });
  it('a point respects the inhibitor: k = ceil(inhibit / d) steps', () => {
    const one: MWorkload = {
      nodes: 4,
      jobs: [{ id: 'A', subtime: 5, app: lin, steps: 100, nodes: 4, malleable: { min: 1, max: 4, pref: 4, factor: 2, inhibit: 1.1 } }],
    };
    const sim = new DmrSim(one);
    const times: number[] = [];
    while (sim.next()) {
      times.push(sim.time);
      sim.decide(sim.context().size);
    }
    // d = 0.25, k = 5 steps = 1.25 s; time 0 is the first submission
    expect(times.length).toBe(19);
    expect(times[0]).toBeCloseTo(1.25, 12);
    expect(times[18]).toBeCloseTo(23.75, 12);
    expect(sim.result().jobs[0]!.finish).toBeCloseTo(25, 12);
  });
});

describe('EASY backfilling', () => {
  // 4 nodes, d(n) = 1 s. J1: 3 nodes, 10 steps, at 0. J2: 2 nodes at 1 (head, shadow 10, extra 2).
  // J3: 1 node, 5 steps at 2: ends at 7 <= 10, backfills. J4: 1 node, 20 steps at 8: ends after the
  // shadow time but uses 1 <= 2 extra nodes: backfills. J2 starts at 10.
  const job = (id: string, subtime: number, nodes: number, steps: number): MJob => ({ id, subtime, app: flat, steps, nodes, malleable: null });
  it('starts the hand-computed jobs', () => {
    const r = simulate({ nodes: 4, jobs: [job('J1', 0, 3, 10), job('J2', 1, 2, 5), job('J3', 2, 1, 5), job('J4', 8, 1, 20)] }, neverPolicy);
    expect(r.jobs.map((j) => j.start)).toEqual([0, 10, 2, 8]);
    expect(r.jobs.map((j) => j.finish)).toEqual([10, 15, 7, 28]);
  });
});

const workloadArb = malleableWorkloadArb({ minJobs: 1, maxSubtime: 50, unknownPref: true });

describe('properties on random workloads', () => {
  it('dmr: every resize respects min, max and factor; nodes never oversubscribed; node-seconds add up', () => {
    fc.assert(
      fc.property(workloadArb, (w) => {
        const sim = new DmrSim(w);
        const byId = new Map(w.jobs.map((j) => [j.id, j]));
        for (let p = sim.next(); p !== null; p = sim.next()) {
          expect(sim.freeNodes).toBeGreaterThanOrEqual(0);
          expect(sim.freeNodes).toBeLessThanOrEqual(w.nodes);
          expect(allowedSizes(p.spec)).toContain(p.size);
          sim.decideWith(dmrPolicy);
        }
        const r = sim.result();
        expect(r.invalidResizes).toBe(0);
        for (const x of r.resizes) {
          const spec = byId.get(x.job)!.malleable!;
          expect(validResize(spec, x.from, x.to)).toBe(true);
        }
        for (const j of r.jobs) {
          expect(j.start).toBeGreaterThanOrEqual(j.submit);
          expect(j.finish).toBeGreaterThan(j.start);
        }
        const total = r.jobs.reduce((a, j) => a + j.nodeSeconds, 0);
        expect(total).toBeCloseTo(r.allocation * w.nodes * r.makespan, 6);
        expect(r.allocation).toBeLessThanOrEqual(1 + 1e-9);
      }),
      { numRuns: 150, seed: 7 },
    );
  });
  it('a random agent choosing any allowed size keeps the same invariants', () => {
    fc.assert(
      fc.property(workloadArb, fc.integer({ min: 0, max: 1e6 }), (w, seed) => {
        const sim = new DmrSim(w);
        let x = seed;
        for (let p = sim.next(); p !== null; p = sim.next()) {
          const options = allowedSizes(p.spec).filter((s) => s - p.size <= p.free);
          x = (x * 1103515245 + 12345) % 2147483648;
          sim.decide(options[x % options.length]!);
          expect(sim.freeNodes).toBeGreaterThanOrEqual(0);
        }
        expect(sim.over).toBe(true);
        const r = sim.result();
        const byId = new Map(w.jobs.map((j) => [j.id, j]));
        for (const rz of r.resizes) expect(validResize(byId.get(rz.job)!.malleable!, rz.from, rz.to)).toBe(true);
      }),
      { numRuns: 100, seed: 11 },
    );
  });
});

describe('EASY reservation with releases tied at the shadow time', () => {
  // 10 nodes. A and B (4 nodes each, 1 step of 400/4 = 100 s) start at 0, 2 nodes free.
  // H (6 nodes) arrives at 1 and waits: shadow time 100, when A and B both end: 2 + 4 + 4 = 10
  // nodes, H takes 6, 4 are extra. C (2 nodes, 1,000 s) arrives at 2: it fits the free nodes and
  // the extra ones, so it backfills at 2 without delaying H (H still starts at 100).
  // Counting only the first release at 100 (4 + 2 = 6 = H's need) would give 0 extra nodes and keep
  // C waiting until H ends: the result would depend on which of A and B comes first in the job list.
  const app: AppModel = { name: 'lin400', t1: 400, serial: 0 };
  const long: AppModel = { name: 'lin2000', t1: 2000, serial: 0 };
  const w: MWorkload = {
    nodes: 10,
    jobs: [
      { id: 'A', subtime: 0, app, steps: 1, nodes: 4, malleable: null },
      { id: 'B', subtime: 0, app, steps: 1, nodes: 4, malleable: null },
      { id: 'H', subtime: 1, app, steps: 1, nodes: 6, malleable: null },
      { id: 'C', subtime: 2, app: long, steps: 1, nodes: 2, malleable: null },
    ],
  };
  it('counts every release at the shadow time as extra nodes', () => {
    const r = simulate(w, neverPolicy);
    const by = Object.fromEntries(r.jobs.map((j) => [j.id, j]));
    expect(by.H!.start).toBe(100);
    expect(by.C!.start).toBe(2);
    expect(by.C!.finish).toBe(1002);
  });
});

describe('the queue a point sees is the current queue', () => {
  // context().queue and queuedNodes are cached until the queue changes: at every point they must
  // agree with the uncached queue length and head (arrivals, starts, backfills, §4.3 promotions).
  it('on the paper workload (and without pref) under dmr, with and without queue points', async () => {
    const { paperWorkload } = await import('../../src/malleable/workload.js');
    for (const seed of [5, 9, 14]) {
      for (const queuePoints of [false, true]) {
        // without pref, §4.3's shrinks promote queued jobs
        const w = paperWorkload({ jobs: 60, seed });
        const noPref = { ...w, jobs: w.jobs.map((j) => ({ ...j, malleable: j.malleable && { ...j.malleable, pref: null } })) };
        const sim = new DmrSim(seed === 5 ? w : noPref, { queuePoints });
        let points = 0;
        for (let p = sim.next(); p !== null; p = sim.next()) {
          expect(p.queue.length).toBe(sim.queueLength);
          expect(p.queue[0] ?? null).toBe(sim.headJob?.nodes ?? null);
          expect(sim.queuedNodes).toBe(p.queue.reduce((a, b) => a + b, 0));
          points++;
          sim.decideWith(dmrPolicy);
        }
        expect(points).toBeGreaterThan(100);
      }
    }
  });
});
