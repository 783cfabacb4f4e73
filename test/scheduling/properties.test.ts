/**
 * Property tests (fast-check) of backfilling on random small workloads mixing every placement
 * constraint (mpi on any cores, seq on one node, mpi on exact nodes, memory), with run times no
 * longer than the requested times:
 * - EASY: the head job never starts later than the reservation it was given when it became head
 *   (FCFS re-ordering, and commit-head with any priority);
 * - conservative with commitments (commit-head): no job starts later than its first reservation,
 *   whatever the priority (reservations are kept and only move earlier);
 * - conservative re-ordering (Slurm): when a job starts, it delays no reservation made in the same
 *   pass for the jobs before it (checked on the reservations reported);
 * - the incremental FCFS EASY (reservation kept across arrivals, in-place scan) makes exactly the
 *   decisions of the from-scratch one;
 * - every policy finishes every job, whatever the selection, resources, fit and backfilling;
 * - the node profile's sweep (`NodeProfile.earliest`) finds exactly the reservations of the plain
 *   search it replaced (every candidate time in order, `planAt` at each), so conservative schedules
 *   are the same: equal start times and nodes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { JOB_SELECTION_NAMES } from '../../src/scheduling/jobSelection.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { RESOURCE_SELECTION_NAMES } from '../../src/scheduling/resourceSelection.js';
import { NodeProfile, type NodePlan } from '../../src/scheduling/profile.js';
import { PolicyScheduler, type ReservationEvent } from '../../src/scheduling/scheduler.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import { runPolicy } from './schedHelpers.js';

/** 3 nodes x 4 cores, 8 GB each (memory 8192 MB). */
function platform(): Platform {
  return parsePlatform(
    {
      name: '3x4',
      models: { memory: 'none' },
      clusters: [{ nodes: [{ count: 3, memory_gb: 8, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }] }] }],
    },
    '3x4',
  );
}

/** 2 nodes x 4 cores with 8 GB and 2 nodes x 8 cores with 12 GB: capacities differ by node. */
function mixedPlatform(): Platform {
  return parsePlatform(
    {
      name: 'mixed',
      models: { memory: 'none' },
      clusters: [
        {
          nodes: [
            { count: 2, memory_gb: 8, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }] },
            { count: 2, memory_gb: 12, processors: [{ cores: 8, clock_rate: 1, dpflops_per_cycle: 1 }] },
          ],
        },
      ],
    },
    'mixed',
  );
}

/** The straightforward search `NodeProfile.earliest` must agree with: `planAt` at every candidate in order. */
function referenceEarliest(this: NodeProfile, job: Job, d: number): { time: number; plan: NodePlan } {
  for (const t of this.candidates) {
    const plan = this.planAt(job, t, d);
    if (plan) return { time: t, plan };
  }
  return { time: Infinity, plan: [] };
}

const jobArb = fc.record({
  gap: fc.integer({ min: 0, max: 20 }),
  shape: fc.constantFrom('any', 'any', 'seq', 'nodes'),
  ntasks: fc.integer({ min: 1, max: 12 }),
  perNode: fc.integer({ min: 1, max: 4 }),
  nodes: fc.integer({ min: 2, max: 3 }),
  runtime: fc.integer({ min: 1, max: 60 }),
  slack: fc.integer({ min: 0, max: 40 }),
  mem: fc.constantFrom(0, 0, 1024, 3000),
});

/** One generated job (the shape of `jobArb`'s values, loose enough for the narrowed variants below). */
interface JobSpec {
  gap: number;
  shape: 'nodes' | 'seq' | 'any';
  ntasks: number;
  perNode: number;
  nodes: number;
  runtime: number;
  slack: number;
  mem: number;
}

function toJobs(specs: JobSpec[]): Job[] {
  let t = 0;
  return specs.map((s, i) => {
    t += s.gap;
    const base = { id: `j${i}`, subtime: t, runtime: s.runtime, reqTime: s.runtime + s.slack };
    if (s.shape === 'seq') {
      const n = Math.min(4, s.ntasks);
      return makeJob({ ...base, ntasks: n, type: 'seq', nodes: 1, mem: Math.min(s.mem, Math.floor(8192 / n)) });
    }
    if (s.shape === 'nodes')
      return makeJob({ ...base, ntasks: s.nodes * s.perNode, nodes: s.nodes, ntasksPerNode: s.perNode, mem: Math.min(s.mem, Math.floor(8192 / s.perNode)) });
    return makeJob({ ...base, ntasks: s.ntasks, mem: s.mem > 0 ? Math.min(s.mem, 2048) : 0 });
  });
}

const workloadArb = fc.array(jobArb, { minLength: 1, maxLength: 40 }).map(toJobs);

/** First reservation of every job that got one. */
function firstReservations(events: ReservationEvent[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of events) if (!m.has(e.job.id)) m.set(e.job.id, e.time);
  return m;
}

describe('backfilling properties', () => {
  it('EASY: a head never starts later than its first reservation (fcfs; sjf/f1/wfp3 with commit-head)', () => {
    fc.assert(
      fc.property(workloadArb, fc.constantFrom('fcfs', 'sjf-commit', 'f1-commit', 'wfp3-commit', 'fcfs-best'), (jobs, mode) => {
        const events: ReservationEvent[] = [];
        const [sel, opt] = mode.split('-');
        const r = runPolicy(platform(), jobs, `${sel}:first+easy`, {
          commitHead: opt === 'commit',
          fit: opt === 'best' ? 'best_fit' : 'first_fit',
          onReservation: (e) => events.push(e),
        });
        expect(r.records.length).toBe(jobs.length);
        for (const [id, time] of firstReservations(events)) {
          expect(time).toBeLessThan(Infinity);
          expect(r.starts[id]!).toBeLessThanOrEqual(time + 1e-9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('conservative with commitments (commit-head): no job starts later than its first reservation, whatever the order', () => {
    fc.assert(
      fc.property(workloadArb, fc.constantFrom('fcfs', 'sjf', 'wfp3', 'f1', 'smallest:high_cores'), (jobs, sel) => {
        const events: ReservationEvent[] = [];
        const name = sel.includes(':') ? `${sel}+conservative` : `${sel}:first+conservative`;
        const r = runPolicy(platform(), jobs, name, { commitHead: true, onReservation: (e) => events.push(e) });
        expect(r.records.length).toBe(jobs.length);
        for (const [id, time] of firstReservations(events)) expect(r.starts[id]!).toBeLessThanOrEqual(time + 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('conservative with commitments on count-based jobs: no job starts later than its first reservation', () => {
    const countArb = fc
      .array(
        jobArb.map((s) => ({ ...s, shape: 'any' as const, mem: 0 })),
        { minLength: 1, maxLength: 40 },
      )
      .map(toJobs);
    fc.assert(
      fc.property(countArb, (jobs) => {
        const events: ReservationEvent[] = [];
        const r = runPolicy(platform(), jobs, 'sjf:first+conservative', { commitHead: true, onReservation: (e) => events.push(e) });
        for (const [id, time] of firstReservations(events)) expect(r.starts[id]!).toBeLessThanOrEqual(time + 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('conservative re-ordering (Slurm), fcfs, exact estimates: every job starts at its first reservation', () => {
    // With run time = requested time nothing ends early, FCFS puts arrivals last, so each pass makes
    // the same reservations again: a start at another time would mean a job was delayed (or jumped).
    // Workloads are all count-based or all constrained, so every pass uses the same kind of profile
    // (the count profile is more permissive than the node one, which pins reservations to nodes).
    const exact = fc
      .oneof(
        fc.array(
          jobArb.map((s) => ({ ...s, slack: 0, shape: 'any' as const, mem: 0 })),
          { minLength: 1, maxLength: 40 },
        ),
        fc.array(
          jobArb.map((s) => ({ ...s, slack: 0, shape: s.shape === 'any' ? ('seq' as const) : s.shape })),
          { minLength: 1, maxLength: 40 },
        ),
      )
      .map(toJobs);
    fc.assert(
      fc.property(exact, (jobs) => {
        const events: ReservationEvent[] = [];
        const r = runPolicy(platform(), jobs, 'fcfs:first+conservative', { onReservation: (e) => events.push(e) });
        for (const [id, time] of firstReservations(events)) expect(r.starts[id]).toBe(time);
      }),
      { numRuns: 200 },
    );
  });

  it('the incremental FCFS EASY decides exactly as the from-scratch one', () => {
    fc.assert(
      fc.property(workloadArb, fc.integer({ min: 1, max: 6 }), (jobs, maxJobTest) => {
        const a = runPolicy(platform(), jobs, new PolicyScheduler({ backfill: 'easy', maxJobTest }));
        const b = runPolicy(platform(), jobs, new PolicyScheduler({ backfill: 'easy', maxJobTest, incrementalEasy: false }));
        expect(a.starts).toEqual(b.starts);
        expect(a.nodes).toEqual(b.nodes);
      }),
      { numRuns: 200 },
    );
  });

  it('every policy finishes every job', () => {
    fc.assert(
      fc.property(
        workloadArb,
        fc.constantFrom(...JOB_SELECTION_NAMES),
        fc.constantFrom(...RESOURCE_SELECTION_NAMES),
        fc.constantFrom('none', 'easy', 'conservative'),
        fc.boolean(),
        fc.constantFrom('first_fit' as const, 'best_fit' as const),
        (jobs, sel, res, bf, commitHead, fit) => {
          const r = runPolicy(platform(), jobs, makeScheduler(`${sel}:${res}+${bf}`, { commitHead, fit, seed: 4 }));
          expect(r.records.length).toBe(jobs.length);
          for (const rec of r.records) {
            expect(rec.state).toBe('finished');
            expect(rec.start).toBeGreaterThanOrEqual(rec.submit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('conservative: the node profile sweep gives exactly the schedule of the plain search', () => {
    const sweep = NodeProfile.prototype.earliest;
    const plain = (p: Platform, jobs: Job[], name: string, commitHead: boolean) => {
      NodeProfile.prototype.earliest = referenceEarliest;
      try {
        return runPolicy(p, jobs, name, { commitHead });
      } finally {
        NodeProfile.prototype.earliest = sweep;
      }
    };
    fc.assert(
      fc.property(
        workloadArb,
        fc.constantFrom('fcfs:first', 'sjf:first', 'wfp3:first', 'smallest:high_cores', 'fcfs:low_cores'),
        fc.boolean(),
        fc.boolean(),
        (jobs, sel, commitHead, mixed) => {
          const p = mixed ? mixedPlatform() : platform();
          const name = `${sel}+conservative`;
          const a = runPolicy(p, jobs, name, { commitHead });
          const b = plain(p, jobs, name, commitHead);
          expect(a.starts).toEqual(b.starts);
          expect(a.nodes).toEqual(b.nodes);
        },
      ),
      { numRuns: 300 },
    );
  });
});
