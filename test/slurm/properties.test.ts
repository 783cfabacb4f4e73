/**
 * Invariants of the one engine through the Slurm preset (`runOn`) on random platforms
 * and workloads (fast-check): every job leaves once; no job starts before its submission; a record's end is
 * start + run + suspended time; the free cores come back to the platform's capacity; suspend periods are
 * ordered and within the run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SlurmConfig, SlurmJobInput } from '../../src/slurm/config.js';
import { PREEMPT_MODES, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { runOn } from './presetHarness.js';

const jobArb = fc.record({
  gap: fc.integer({ min: 0, max: 50 }),
  cores: fc.integer({ min: 1, max: 8 }),
  run: fc.integer({ min: 1, max: 300 }),
  limitFactor: fc.double({ min: 0.5, max: 3, noNaN: true }),
  user: fc.integer({ min: 0, max: 2 }),
  partition: fc.integer({ min: 0, max: 1 }),
  op: fc.option(fc.record({ after: fc.integer({ min: 0, max: 200 }), for: fc.integer({ min: 1, max: 100 }) }), { nil: undefined }),
});

describe('invariants on the Slurm preset', () => {
  it('hold on random workloads, preemption modes and scheduler settings', () => {
    const total = { preempted: 0, suspensions: 0, backfilled: 0, timeouts: 0 };
    fc.assert(
      fc.property(
        fc.array(jobArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(...PREEMPT_MODES),
        fc.boolean(),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom('counted', 'nodes', 'slurm22'),
        (specs, mode, backfill, bfWindow, bfInterval, select) => {
          const nodeSelect = select !== 'counted';
          // nodeSelect: the same capacity as whole nodes (8 + 8 nodes of one unit), each job on specific nodes
          const platform: SlurmPlatformSpec = {
            groups: nodeSelect
              ? [
                  { name: 'a', count: 8, cores: 1 },
                  { name: 'b', count: 8, cores: 1 },
                ]
              : [
                  { name: 'a', count: 2, cores: 4 },
                  { name: 'b', count: 1, cores: 8 },
                ],
            partitions: [
              { name: 'low', groups: ['a', 'b'], preempt_mode: mode, priority_tier: 1 },
              { name: 'high', groups: ['b'], priority_tier: 2 },
            ],
          };
          // slurm22: Slurm 22.05's timing and will-run reservations as a whole-node slurm.conf sets them, with a
          // share of the ends running the main pass at once (endSchedShare) and another tick phase
          const slurm22: Partial<SlurmConfig> =
            select === 'slurm22'
              ? {
                  bfWillRun: true,
                  bfSlurmRounding: true,
                  batchSchedDelay: 3,
                  schedOnSubmit: false,
                  bfGrid: true,
                  schedInterval: 60,
                  endSchedShare: 0.3,
                  bgTickPhase: 0.3,
                }
              : {};
          const config: Partial<SlurmConfig> = { users: 3, backfill, bfWindow, bfResolution: 1, bfInterval, nodeSelect, ...slurm22 };
          let t = 0;
          const jobs: SlurmJobInput[] = specs.map((s, id) => {
            t += s.gap;
            const j: SlurmJobInput = {
              id,
              submit: t,
              cores: s.cores,
              runTime: s.run,
              timeLimit: Math.max(1, Math.round(s.run * s.limitFactor)),
              user: s.user,
              partition: s.partition,
            };
            if (s.op) {
              j.opAfter = s.op.after;
              j.opFor = s.op.for;
            }
            return j;
          });
          const run = runOn(platform, jobs, config);
          expect(run.finishes).toBe(jobs.length);
          expect(run.recs.size).toBe(jobs.length);
          for (const j of jobs) {
            const r = run.recs.get(j.id)!;
            if (r.state === 'refused' || r.state === 'cancelled') continue;
            expect(r.start).toBeGreaterThanOrEqual(j.submit);
            let suspended = 0;
            let prev = r.start;
            for (const [a, b] of r.periods) {
              expect(a).toBeGreaterThanOrEqual(prev);
              expect(b).toBeGreaterThanOrEqual(a);
              prev = b;
              suspended += b - a;
            }
            expect(r.end - r.start).toBeCloseTo(Math.min(j.runTime, j.timeLimit) + suspended, 6);
            expect(r.end).toBeGreaterThanOrEqual(prev);
            total.suspensions += r.periods.length;
            total.backfilled += r.backfilled;
            if (r.state === 'timeout') total.timeouts++;
          }
          total.preempted += run.preempted;
          expect(run.idle).toBe(true);
        },
      ),
      { numRuns: 300, seed: 17 },
    );
    // the mechanisms were exercised
    for (const v of Object.values(total)) expect(v).toBeGreaterThan(0);
  });
});
