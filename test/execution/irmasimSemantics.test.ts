/**
 * The engine's `irmasim` semantics against its documented model, on hand-computed cases: IRMaSim's
 * integer stepping, whole-job release, its order at one instant (submissions before ends), stale
 * speeds until a job ends, and the idle power of processors that never ran a task.
 */
import { describe, expect, it } from 'vitest';
import { irmasimV1 } from '../../src/platform/memoryContention.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { ClusterSimulator, roundHalfEven, type ExecutionSemantics, type IdlePowerAccounting } from '../../src/execution/simulator.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { makeJob, type Job } from '../../src/workload/job.js';

const COEFFS = { b: -1.85e-5, c: 32000, da: 1.75, db: 2000, dc: 50000, dd: 6000 };

/** Nodes given as lists of processors `[cores, mops]`; memory model on, no power unless given. */
function platform(nodes: [number, number][][], power = { static_power: 0, dynamic_power: 0, min_power: 0 }, contention = false): Platform {
  return parsePlatform(
    {
      name: 'p',
      clusters: [
        {
          nodes: nodes.map((procs) => ({
            memory_gb: 64,
            processors: procs.map(([cores, mops]) => ({ cores, clock_rate: mops / 1000, dpflops_per_cycle: 1, ...power, ...(contention ? COEFFS : {}) })),
          })),
        },
      ],
    },
    'p',
  );
}

const job = (id: string, subtime: number, ntasks: number, ops: number, fields: Partial<Job> = {}) =>
  makeJob({ id, subtime, ntasks, work: 'ops', ops, type: 'seq', nodes: 1, reqTime: 100, ...fields });

function ends(p: Platform, jobs: Job[], policy: string, semantics: ExecutionSemantics, idlePower: IdlePowerAccounting = 'always') {
  const out: Record<string, { start: number; finish: number; cores: number[] }> = {};
  const r = runSimulation(p, jobs, makeScheduler(policy), {
    semantics,
    idlePower,
    listeners: [{ onEnd: (_s, rec) => (out[rec.job.id] = { start: rec.start, finish: rec.finish, cores: Array.from(rec.cores) }) }],
  });
  return { jobs: out, summary: r.summary };
}

describe('irmasim semantics, by hand', () => {
  it("Python's round: halves to even", () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4999999, 7.5000001, 333333.3333].map(roundHalfEven)).toEqual([0, 2, 2, 4, 2, 8, 333333]);
  });

  it('integer stepping: a task loses round(rate * delta) operations at every step', () => {
    // one node, 2 cores of 1 MOPS (1e6 ops/s); a: 1e6 ops at 0; b: 1e6 ops at 1/3
    const p = platform([[[2, 1]]]);
    const jobs = [job('a', 0, 1, 1e6), job('b', 1 / 3, 1, 1e6)];
    // at 1/3, a loses round(333333.33) = 333333 ops: 666667 left, 0.666667 s more
    const aEnd = 1 / 3 + 666667 / 1e6;
    // at aEnd, b loses round(1e6 * 0.666667) = 666667 ops: 333333 left
    const bEnd = aEnd + 333333 / 1e6;
    const ir = ends(p, jobs, 'fcfs:first', 'irmasim').jobs;
    expect([ir['a']!.finish, ir['b']!.finish]).toEqual([aEnd, bEnd]);
    const cg = ends(p, jobs, 'fcfs:first', 'clustergym').jobs;
    expect([cg['a']!.finish, cg['b']!.finish]).toEqual([1, 1 / 3 + 1]);
  });

  it('a job keeps all its cores until its last task ends', () => {
    // one node: processor 0 one core of 1 MOPS, processor 1 one core of 2 MOPS; a: 2 tasks of 2e6 ops
    // (2 s on core 0, 1 s on core 1); c (1e6 ops) arrives at 0.5
    const p = platform([
      [
        [1, 1],
        [1, 2],
      ],
    ]);
    const jobs = [job('a', 0, 2, 2e6), job('c', 0.5, 1, 1e6)];
    const cg = ends(p, jobs, 'fcfs:first', 'clustergym').jobs;
    expect(cg['c']).toEqual({ start: 1, finish: 1.5, cores: [1] }); // core 1 freed at 1 s, 0.5 s there
    const ir = ends(p, jobs, 'fcfs:first', 'irmasim').jobs;
    expect(ir['c']).toEqual({ start: 2, finish: 3, cores: [0] }); // both held to 2 s; core 0 first, 1 s
  });

  it('at one instant, the submissions are served before the ends', () => {
    // node0: one core of 2 MOPS, node1: one core of 1 MOPS; a (2e6 ops) on node0 ends at 1; b (2e6) arrives at 1
    const p = platform([[[1, 2]], [[1, 1]]]);
    const jobs = [job('a', 0, 1, 2e6), job('b', 1, 1, 2e6)];
    const cg = ends(p, jobs, 'fcfs:high_gflops', 'clustergym').jobs;
    expect(cg['b']).toEqual({ start: 1, finish: 2, cores: [0] }); // a's end first: node0 is free
    const ir = ends(p, jobs, 'fcfs:high_gflops', 'irmasim').jobs;
    expect(ir['b']).toEqual({ start: 1, finish: 3, cores: [1] }); // node0 still held: the slow node
  });

  it("speeds are recomputed when a job starts or ends on the processor, not when one of another job's tasks ends", () => {
    // processor 0: 2 cores of 1000 MOPS, processor 1: 1 core of 250 MOPS, both with modelV1 contention.
    // x: 2 tasks of 1e9 ops and 2e5 MB of traffic (cores 0 and 2); y: 1 task of 4e9 ops and 2e5 MB (core 1).
    const p = parsePlatform(
      {
        name: 'p',
        clusters: [
          {
            nodes: [
              {
                memory_gb: 64,
                processors: [
                  { cores: 2, clock_rate: 1, dpflops_per_cycle: 1, ...COEFFS },
                  { cores: 1, clock_rate: 0.25, dpflops_per_cycle: 1, ...COEFFS },
                ],
              },
            ],
          },
        ],
      },
      'p',
    );
    const x = job('x', 0, 2, 1e9, { memVol: 2e5 });
    const y = job('y', 0, 1, 4e9, { memVol: 2e5, type: 'mpi', nodes: 0 });
    // requests: y 2e5 / 4 s = 5e4 MB/s, x0 2e5 MB/s; processor 0 carries 2.5e5 > c: both get d(., 1) = 1/1.6
    const shared = irmasimV1.speedFactor(COEFFS, 5e4, 2.5e5, 1);
    expect(shared).toBe(0.625);
    expect(irmasimV1.speedFactor(COEFFS, 2e5, 2.5e5, 1)).toBe(0.625);
    expect(irmasimV1.speedFactor(COEFFS, 5e4, 5e4, 0)).toBe(1); // y alone
    // x0 ends at 1 / 0.625 = 1.6 s; x1 (250 MOPS, alone, 5e4 MB/s: no slowdown) at 4 s: x ends at 4
    const sim = (semantics: ExecutionSemantics) => {
      const s = new ClusterSimulator(p, [x, y], { semantics });
      s.advance();
      s.startJob(s.waiting[0]!, [0, 2]);
      s.startJob(s.waiting[0]!, [1]);
      const out: Record<string, number> = {};
      s.addListener({ onEnd: (_q, rec) => (out[rec.job.id] = rec.finish) });
      while (s.advance());
      return out;
    };
    // clustergym: y speeds up when x0 ends: 1e9 ops done by 1.6 s, 3e9 left at full speed: 4.6 s
    const cg = sim('clustergym');
    expect(cg['x']).toBeCloseTo(4, 12);
    expect(cg['y']).toBeCloseTo(4.6, 9);
    // irmasim: y stays at 0.625 until x ends at 4 s (2.5e9 done), then 1.5e9 at full speed: 5.5 s
    const ir = sim('irmasim');
    expect(ir['x']).toBeCloseTo(4, 9);
    expect(ir['y']).toBeCloseTo(5.5, 9);
  });

  it("idle power: from t = 0 (documented) or from the processor's first task (IRMaSim)", () => {
    // two single-core nodes, static 10 W, dynamic 5 W, min_power 0.1; one 1 s job on node0; node1 never runs
    const p = platform([[[1, 1]], [[1, 1]]], { static_power: 10, dynamic_power: 5, min_power: 0.1 });
    const jobs = [job('a', 0, 1, 1e6)];
    expect(ends(p, jobs, 'fcfs:first', 'irmasim', 'always').summary.energy).toBeCloseTo(15 + 0.1 * 10 * 1, 12);
    expect(ends(p, jobs, 'fcfs:first', 'irmasim', 'after-first-task').summary.energy).toBeCloseTo(15, 12);
    expect(ends(p, jobs, 'fcfs:first', 'clustergym', 'after-first-task').summary.energy).toBeCloseTo(15, 12);
  });
});
