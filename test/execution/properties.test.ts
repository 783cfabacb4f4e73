/**
 * Property tests of the execution engine over random small platforms and workloads (fast-check,
 * fixed seeds): no core runs two tasks at once, every job ends exactly once, start >= submit,
 * energy >= 0 and equal to the integral of the timeline's power, work is conserved (no task runs
 * faster than its core allows; without contention, exactly at its core's speed), and identical
 * inputs give identical outputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/execution/simulator.js';
import type { TimelineRow } from '../../src/metrics/writers.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { ListScheduler } from '../../src/scheduling/scheduler.js';
import type { Job } from '../../src/workload/job.js';

/** The type of the values an arbitrary generates. */
type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

const procArb = fc.record({
  count: fc.integer({ min: 1, max: 2 }),
  cores: fc.integer({ min: 1, max: 4 }),
  clock_rate: fc.constantFrom(1.0, 2.0, 2.5),
  dpflops_per_cycle: fc.constantFrom(1, 2),
  static_power: fc.integer({ min: 0, max: 50 }),
  dynamic_power: fc.integer({ min: 0, max: 20 }),
  min_power: fc.constantFrom(0, 0.05, 0.5),
  contention: fc.boolean(),
});

const platformArb = fc.record({
  memory: fc.constantFrom('irmasim-v1' as const, 'none' as const),
  comm: fc.constantFrom('step' as const, 'shared' as const),
  nodes: fc.array(fc.record({ count: fc.integer({ min: 1, max: 2 }), comm_bw: fc.constantFrom(1e8, 1e9), proc: procArb }), { minLength: 1, maxLength: 3 }),
});

function buildPlatform(d: ValueOf<typeof platformArb>): Platform {
  return parsePlatform(
    {
      models: { memory: d.memory, comm: d.comm },
      clusters: [
        {
          nodes: d.nodes.map((n) => ({
            count: n.count,
            memory_gb: 1,
            comm_bw: n.comm_bw,
            processors: [
              {
                count: n.proc.count,
                cores: n.proc.cores,
                clock_rate: n.proc.clock_rate,
                dpflops_per_cycle: n.proc.dpflops_per_cycle,
                static_power: n.proc.static_power,
                dynamic_power: n.proc.dynamic_power,
                min_power: n.proc.min_power,
                ...(n.proc.contention ? { b: -1.85e-5, c: 32000, da: 1.75, db: 2000, dc: 50000, dd: 6000 } : {}),
              },
            ],
          })),
        },
      ],
    },
    'random platform',
  );
}

const jobArb = fc.record({
  gap: fc.constantFrom(0, 0, 0.25, 0.5, 1, 3),
  mpi: fc.boolean(),
  delay: fc.boolean(),
  size: fc.integer({ min: 1, max: 100 }),
  seconds: fc.constantFrom(0.5, 1, 2, 3.5),
  memVol: fc.constantFrom(0, 1e3, 5e4, 2e5),
  commVol: fc.constantFrom(0, 1e7, 5e8),
  tCompute: fc.constantFrom(1, 0.9, 0.5),
  mem: fc.constantFrom(0, 100, 300),
});

function buildJobs(platform: Platform, specs: ValueOf<typeof jobArb>[]): Job[] {
  let t = 0;
  return specs.map((s, i) => {
    t += s.gap;
    const ntasks = s.mpi ? 1 + (s.size % platform.coreCount) : 1 + (s.size % platform.maxNodeCores);
    const ops = s.seconds * 2e9;
    return {
      id: `j${i}`,
      subtime: t,
      ntasks,
      reqTime: s.seconds * 2,
      reqEnergy: 0,
      type: s.mpi ? 'mpi' : 'seq',
      work: s.delay ? 'delay' : 'ops',
      ops: s.delay ? 0 : ops,
      runtime: s.delay ? s.seconds : 0,
      mem: Math.min(s.mem, Math.floor(1024 / platform.maxNodeCores)),
      memVol: s.memVol,
      commVol: s.mpi ? s.commVol : 0,
      tCompute: s.mpi ? s.tCompute : 1,
      nodes: s.mpi ? 0 : 1,
      ntasksPerNode: 0,
      tasks: null,
      source: `$.jobs[${i}]`,
    } satisfies Job;
  });
}

function simulate(platform: Platform, jobs: Job[]) {
  const records: JobRecord[] = [];
  const timeline: TimelineRow[] = [];
  const { summary, sim } = runSimulation(platform, jobs, new ListScheduler(), {
    listeners: [{ onEnd: (_s, r) => records.push(r) }],
    onTimeline: (r) => timeline.push(r),
  });
  return { summary, records, timeline, sim };
}

const caseArb = fc.record({ platform: platformArb, jobs: fc.array(jobArb, { minLength: 1, maxLength: 25 }) });

describe('engine invariants (fast-check)', () => {
  it('no core double-booked; every job ends once; start >= submit; energy = integral of power >= 0; work conserved', () => {
    fc.assert(
      fc.property(caseArb, ({ platform: pd, jobs: js }) => {
        const platform = buildPlatform(pd);
        const jobs = buildJobs(platform, js);
        const { summary, records, timeline } = simulate(platform, jobs);
        // every job ends exactly once
        expect(records.map((r) => r.job.id).sort()).toEqual(jobs.map((j) => j.id).sort());
        expect(summary.jobs_finished).toBe(jobs.length);
        // start >= submit, finish > start
        for (const r of records) {
          expect(r.start).toBeGreaterThanOrEqual(r.submit);
          expect(r.finish).toBeGreaterThan(r.start);
        }
        // no core runs two tasks at once: the intervals [start, release] of each core are disjoint
        const perCore = new Map<number, [number, number][]>();
        for (const r of records)
          r.cores.forEach((c, t) => {
            const l = perCore.get(c) ?? [];
            l.push([r.start, r.releases[t]!]);
            expect(r.releases[t]).toBeLessThanOrEqual(r.finish);
            perCore.set(c, l);
          });
        for (const l of perCore.values()) {
          l.sort((a, b) => a[0] - b[0]);
          for (let i = 1; i < l.length; i++) expect(l[i]![0]).toBeGreaterThanOrEqual(l[i - 1]![1]);
        }
        // energy
        expect(summary.energy).toBeGreaterThanOrEqual(0);
        let integral = 0;
        for (let i = 0; i + 1 < timeline.length; i++) integral += timeline[i]!.power * (timeline[i + 1]!.time - timeline[i]!.time);
        expect(Math.abs(integral - summary.energy)).toBeLessThanOrEqual(1e-9 * Math.max(1, summary.energy));
        // work conservation: no task faster than its core; without any contention exactly its nominal time
        const contentionFree = platform.models.memory === 'none' && jobs.every((j) => j.commVol === 0 && j.tCompute === 1);
        for (const r of records) {
          const j = r.job;
          const run = r.finish - r.start;
          if (j.work === 'delay') {
            expect(run).toBeCloseTo(j.runtime, 9);
            continue;
          }
          r.cores.forEach((c, t) => {
            const nominal = j.ops / (platform.coreMops[c]! * 1e6);
            const held = r.releases[t]! - r.start;
            expect(held).toBeGreaterThanOrEqual(nominal * (1 - 1e-12));
            if (contentionFree && j.type === 'seq') expect(held).toBeCloseTo(nominal, 9);
          });
          if (contentionFree) expect(run).toBeCloseTo(Math.max(...Array.from(r.cores, (c) => j.ops / (platform.coreMops[c]! * 1e6))), 9);
        }
      }),
      { numRuns: 300, seed: 20261122 },
    );
  });

  it('identical inputs give identical outputs', () => {
    fc.assert(
      fc.property(caseArb, ({ platform: pd, jobs: js }) => {
        const platform = buildPlatform(pd);
        const a = simulate(platform, buildJobs(platform, js));
        const b = simulate(buildPlatform(pd), buildJobs(platform, js));
        const view = (x: ReturnType<typeof simulate>) =>
          JSON.stringify({ s: x.summary, r: x.records.map((r) => [r.job.id, r.start, r.finish, Array.from(r.cores)]), t: x.timeline });
        expect(view(a)).toBe(view(b));
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});
