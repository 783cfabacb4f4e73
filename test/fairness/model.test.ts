import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jainIndex } from '../../src/core/statistics.js';
import { fairPreset, runFairPreset, type TraceTask } from '../../src/fairness/preset.js';
import { alignmentScore, bestFit, drf, drfOrder, firstFit, tetris } from '../../src/scheduling/multiResource.js';
import { UserLedger } from '../../src/scheduling/userLedger.js';

/** A task submitted at 0. */
const atZero = (cpu: number, memory: number, duration = 10, user = 'a'): TraceTask => ({ submit: 0, cpu, memory, duration, user });

describe('hosts of the preset (the vector capacity)', () => {
  it('built from groups with totals and names', () => {
    const h = fairPreset(
      [
        { count: 2, cpus: 20, memory: 20, name_prefix: 'c' },
        { count: 1, cpus: 5, memory: 60 },
      ],
      [],
      firstFit(),
    ).hosts;
    expect(h.count).toBe(3);
    expect(h.names).toEqual(['c0', 'c1', 'g1-0']);
    expect(h.totalCpu).toBe(45);
    expect(h.totalMem).toBe(100);
    expect(h.maxCapacity()).toEqual({ cpu: 20, memory: 60 });
  });

  it('a start that oversubscribes either resource is refused, changing nothing', () => {
    const p = fairPreset([{ count: 1, cpus: 4, memory: 10 }], [atZero(3, 4), atZero(2, 1), atZero(1, 7)], null);
    p.sim.advanceUntil(0);
    const [a, b, c] = [...p.waiting.tasks()];
    p.start({ task: a!, host: 0 });
    expect(p.hosts.fits(0, 1, 6)).toBe(true);
    expect(p.hosts.fits(0, 2, 1)).toBe(false);
    expect(() => p.start({ task: b!, host: 0 })).toThrow(/1 cores and 6 memory free; a task of 2 cores and 1 memory does not fit/);
    expect(() => p.start({ task: c!, host: 0 })).toThrow(/does not fit/);
    expect(() => p.start({ task: c!, host: 1 })).toThrow(/no host 1/);
    expect([p.hosts.usedCpu, p.hosts.usedMem, p.waiting.size, p.stats.started]).toEqual([3, 4, 2, 1]);
    p.sim.advanceUntil(Number.POSITIVE_INFINITY);
    expect([p.hosts.usedCpu, p.hosts.freeMem[0]]).toEqual([0, 10]);
  });

  it('rejects bad groups with the JSON path', () => {
    expect(() => fairPreset([{ count: 0, cpus: 1, memory: 1 }], [], firstFit())).toThrow(/count/);
  });
});

describe('scores and shares', () => {
  it('alignment score by hand: cosine of capacity-normalised demand and free vectors', () => {
    const p = fairPreset([{ count: 1, cpus: 20, memory: 20 }], [atZero(10, 0)], null);
    const h = p.hosts;
    // d = (0.5, 0.1), r = (1, 1): 0.6 / (sqrt(0.26) * sqrt(2))
    expect(alignmentScore(h, 0, 10, 2)).toBeCloseTo(0.6 / (Math.sqrt(0.26) * Math.SQRT2), 12);
    p.sim.advanceUntil(0);
    p.start({ task: p.waiting.oldest()!, host: 0 }); // r = (0.5, 1)
    // d = (0.25, 0.25), r = (0.5, 1): 0.375 / (sqrt(0.125) * sqrt(1.25))
    expect(alignmentScore(h, 0, 5, 5)).toBeCloseTo(0.375 / (Math.sqrt(0.125) * Math.sqrt(1.25)), 12);
  });

  it('dominant share is the larger of the CPU and memory fractions, divided by the weight for DRF', () => {
    const u = new UserLedger(100, 1000, { b: 2 });
    const a = u.id('a');
    const b = u.id('b');
    u.take(a, 10, 50); // 0.1 vs 0.05
    u.take(b, 5, 300); // 0.05 vs 0.3
    expect(u.dominantShare(a)).toBeCloseTo(0.1);
    expect(u.dominantShare(b)).toBeCloseTo(0.3);
    expect(u.weightedShare(b)).toBeCloseTo(0.15);
    u.give(b, 5, 300);
    expect(u.dominantShare(b)).toBe(0);
  });

  it("Jain's index", () => {
    expect(jainIndex([1, 1, 1])).toBe(1);
    expect(jainIndex([1, 0])).toBe(0.5);
    expect(jainIndex([0, 0])).toBe(1);
  });
});

const task = fc.record({
  submit: fc.integer({ min: 0, max: 50 }),
  cpu: fc.integer({ min: 1, max: 12 }),
  memory: fc.integer({ min: 0, max: 40 }),
  duration: fc.integer({ min: 0, max: 30 }),
  user: fc.constantFrom('a', 'b', 'c'),
});

describe('placement never oversubscribes (property)', () => {
  for (const [name, mk] of [
    ['drf', drf],
    ['tetris(0)', () => tetris(0)],
    ['tetris(0.5)', () => tetris(0.5)],
    ['first-fit', firstFit],
    ['best-fit', bestFit],
  ] as const) {
    it(name, () => {
      fc.assert(
        fc.property(fc.array(task, { maxLength: 60 }), (raw) => {
          const tasks: TraceTask[] = raw.sort((x, y) => x.submit - y.submit);
          const engine = fairPreset(
            [
              { count: 2, cpus: 8, memory: 16 },
              { count: 1, cpus: 4, memory: 40 },
            ],
            tasks,
            mk(),
          );
          const hosts = engine.hosts;
          const check = () => {
            for (let h = 0; h < hosts.count; h++) {
              expect(hosts.freeCpu[h]).toBeGreaterThanOrEqual(0);
              expect(hosts.freeMem[h]).toBeGreaterThanOrEqual(0);
              expect(hosts.freeCpu[h]).toBeLessThanOrEqual(hosts.cpuCap[h]!);
              expect(hosts.freeMem[h]).toBeLessThanOrEqual(hosts.memCap[h]!);
            }
          };
          engine.sim.addListener({ onStart: check, onEnd: check });
          const stats = runFairPreset(engine);
          // every task that fits some empty host eventually runs
          expect(stats.finished + stats.rejected).toBe(tasks.length);
          expect(stats.rejected).toBe(tasks.filter((t) => !(t.cpu <= 8 && t.memory <= 16) && !(t.cpu <= 4 && t.memory <= 40)).length);
          expect(hosts.usedCpu).toBe(0);
          expect(hosts.usedMem).toBe(0);
        }),
        { numRuns: 60, seed: 16 },
      );
    });
  }
});

describe('drfOrder', () => {
  it('gives the users with waiting tasks by weighted dominant share, then index: the first k of a full sort (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.integer({ min: 0, max: 6 }), mem: fc.integer({ min: 0, max: 6 }), weight: fc.integer({ min: 1, max: 3 }) }), {
          minLength: 1,
          maxLength: 70,
        }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer(),
        (spec, k, salt) => {
          const weights: Record<string, number> = {};
          spec.forEach((s, u) => {
            weights[`u${u}`] = s.weight;
          });
          const ledger = new UserLedger(40, 40, weights);
          spec.forEach((s, u) => {
            ledger.id(`u${u}`);
            if (s.cpu + s.mem > 0) ledger.take(u, s.cpu, s.mem);
          });
          // the active users in some order (the queue's), ties of share on purpose (equal takes)
          const active = spec.map((_, u) => u).sort((a, b) => ((a * 7919 + salt) % 13) - ((b * 7919 + salt) % 13) || a - b);
          const full = [...active].sort((a, b) => ledger.weightedShare(a) - ledger.weightedShare(b) || a - b);
          expect(drfOrder(ledger, active, k)).toEqual(full.slice(0, Math.min(k, active.length)));
        },
      ),
      { seed: 77, numRuns: 400 },
    );
  });
});
