/**
 * Slurm's hand-computed scenarios (seed 004; written for the Slurm engine, which gave the same numbers until its
 * retirement, issue 42) on the one engine through the Slurm preset (`runOn`, test/slurm/presetHarness.ts):
 * lifecycle, preemption, the main scheduler and backfill, the multifactor order, fair-share accounting,
 * backfill reservations and whole nodes, one describe per rule; Slurm's timers and the will-run test are
 * test/slurm/timers.test.ts. The planners' pure functions last.
 */
import { describe, expect, it } from 'vitest';
import { earliestFit } from '../../src/scheduling/countedBackfill.js';
import { DEFAULT_PRIORITY, NO_PRIORITY_WEIGHTS, type PriorityConfig } from '../../src/scheduling/multifactor.js';
import type { SlurmConfig, SlurmJobInput } from '../../src/slurm/config.js';
import { pickNodes } from '../../src/scheduling/nodeSelection.js';
import { JobPhase } from '../../src/core/engine.js';
import { STATE_NAMES } from '../../src/slurm/states.js';
import { type PreemptMode, SlurmPlatform } from '../../src/slurm/platform.js';
import { fifoByAge as fifo, oneNode as one, runOn, slurmJob as job } from './presetHarness.js';

/**
 * The priority of one factor (or a few): the other weights 0, no age beyond a second, no decay, ticks every 100 s,
 * no favour of small jobs.
 */
function onlyWeights(weights: Partial<PriorityConfig>): PriorityConfig {
  return {
    ...DEFAULT_PRIORITY,
    ...NO_PRIORITY_WEIGHTS,
    maxAge: 1,
    favorSmall: false,
    decayHalfLife: 0,
    calcPeriod: 100,
    dampening: 1,
    ...weights,
  };
}

describe('on the Slurm preset', () => {
  const run = (p: SlurmPlatform, js: SlurmJobInput[], cfg: Partial<SlurmConfig> = {}) => runOn(p, js, cfg).recs;
  describe('job lifecycle', () => {
    it('a job waits for cores and ends at start + run time', () => {
      const r = run(one(4), [job(1, 0, 4, 100, 200), job(2, 10, 2, 50)], fifo);
      expect(r.get(1)).toMatchObject({ start: 0, end: 100, state: 'completed' });
      expect(r.get(2)).toMatchObject({ start: 100, end: 150, state: 'completed' });
    });

    it('walltime kill: a job that runs past its limit is killed at start + limit', () => {
      const r = run(one(4), [job(1, 5, 1, 300, 200)]);
      expect(() => run(one(4), [job(1, 0, 1, 10, 10, { user: 7 })])).toThrow(/user 7 is not one of the 1 users/);
      expect(r.get(1)).toMatchObject({ start: 5, end: 205, state: 'timeout' });
    });

    it('operator suspension: end = start + run + suspended time, with the period recorded', () => {
      const r = run(one(4), [job(1, 0, 2, 100, 200, { opAfter: 30, opFor: 50 })]);
      expect(r.get(1)).toMatchObject({ start: 0, end: 150, state: 'completed', periods: [[30, 80]] });
    });

    it('suspended time does not count towards the time limit', () => {
      // limit 60: killed after 60 s of run = 10 + 40 (suspended) + 50
      const r = run(one(4), [job(1, 0, 1, 100, 60, { opAfter: 10, opFor: 40 })]);
      expect(r.get(1)).toMatchObject({ start: 0, end: 100, state: 'timeout', periods: [[10, 50]] });
    });

    it('an operator-suspended job keeps its cores', () => {
      const r = run(one(2), [job(1, 0, 2, 100, 100, { opAfter: 10, opFor: 40 }), job(2, 1, 1, 10)], fifo);
      expect(r.get(1)!.end).toBe(140);
      expect(r.get(2)).toMatchObject({ start: 140, end: 150 });
    });

    it('a job beyond its partition limits is refused', () => {
      const p = new SlurmPlatform({
        groups: [{ name: 'n', count: 2, cores: 4 }],
        partitions: [{ name: 'p', groups: ['n'], max_time: 100, max_nodes: 1, allow_users: [0] }],
      });
      const r = run(p, [job(1, 0, 1, 10, 200), job(2, 0, 5, 10), job(3, 0, 1, 10, 10, { user: 3 }), job(4, 0, 4, 10)], { users: 4 });
      expect([1, 2, 3, 4].map((i) => r.get(i)!.state)).toEqual(['refused', 'refused', 'refused', 'completed']);
    });
  });

  describe('preemption by partition priority tier', () => {
    const platform = (mode: PreemptMode) =>
      new SlurmPlatform({
        groups: [{ name: 'n', count: 1, cores: 4 }],
        partitions: [
          { name: 'low', groups: ['n'], priority_tier: 1, preempt_mode: mode },
          { name: 'high', groups: ['n'], priority_tier: 2 },
        ],
      });
    const jobs = [job(1, 0, 4, 100, 100, { partition: 0 }), job(2, 20, 4, 50, 50, { partition: 1 })];

    it('suspend: the low job stops at 20, resumes when the high one ends (70), ends at 150', () => {
      const r = run(platform('suspend'), jobs);
      expect(r.get(2)).toMatchObject({ start: 20, end: 70 });
      expect(r.get(1)).toMatchObject({ start: 0, end: 150, state: 'completed', periods: [[20, 70]] });
    });

    it('requeue: the low job restarts from scratch at 70 and ends at 170', () => {
      const r = run(platform('requeue'), jobs);
      expect(r.get(2)).toMatchObject({ start: 20, end: 70 });
      expect(r.get(1)).toMatchObject({ start: 70, end: 170, state: 'completed', periods: [], requeues: 1 });
    });

    it('cancel: the low job ends at 20, cancelled', () => {
      const r = run(platform('cancel'), jobs);
      expect(r.get(1)).toMatchObject({ end: 20, state: 'cancelled' });
      expect(r.get(2)).toMatchObject({ start: 20, end: 70 });
    });

    it('off: the high job waits', () => {
      const r = run(platform('off'), jobs);
      expect(r.get(1)).toMatchObject({ start: 0, end: 100 });
      expect(r.get(2)).toMatchObject({ start: 100, end: 150 });
    });

    it('requeue during the main pass: two high jobs requeue two low ones, which restart together', () => {
      const r = run(platform('requeue'), [
        job(1, 0, 2, 100, 100, { partition: 0 }),
        job(2, 0, 2, 100, 100, { partition: 0 }),
        job(3, 10, 2, 50, 50, { partition: 1 }),
        job(4, 10, 2, 50, 50, { partition: 1 }),
      ]);
      expect(r.get(3)).toMatchObject({ start: 10, end: 60 });
      expect(r.get(4)).toMatchObject({ start: 10, end: 60 });
      expect(r.get(1)).toMatchObject({ start: 60, end: 160, requeues: 1 });
      expect(r.get(2)).toMatchObject({ start: 60, end: 160, requeues: 1 });
    });

    it('victims: the most recently started first, only as many as needed', () => {
      const r = run(platform('cancel'), [
        job(1, 0, 2, 100, 100, { partition: 0 }),
        job(2, 5, 2, 100, 100, { partition: 0 }),
        job(3, 20, 2, 50, 50, { partition: 1 }),
      ]);
      expect(r.get(2)).toMatchObject({ end: 20, state: 'cancelled' });
      expect(r.get(1)).toMatchObject({ end: 100, state: 'completed' });
      expect(r.get(3)).toMatchObject({ start: 20, end: 70 });
    });
  });

  describe('main scheduler and backfill', () => {
    // A (1 core, 100 s) runs; B (4 cores) waits for A; C (2 cores, 50 s) and D (1 core, 200 s) pend behind
    // B. The main scheduler starts neither (B blocks the partition). Backfill's first pass is at 30.
    const jobs = [job(1, 0, 1, 100), job(2, 1, 4, 100), job(3, 2, 2, 50), job(4, 3, 1, 200)];
    const bf = { ...fifo, bfResolution: 1, bfInterval: 30 };

    it('without backfill everything goes in priority order', () => {
      const r = run(one(4), jobs, { ...bf, backfill: false });
      expect([2, 3, 4].map((i) => r.get(i)!.start)).toEqual([100, 200, 200]);
    });

    it('backfill starts C at 30 (ends before the reservation of B at 100); D would delay B, it waits', () => {
      const r = run(one(4), jobs, { ...bf, bfWindow: 1440 * 60 });
      expect(r.get(3)).toMatchObject({ start: 30, end: 80 });
      expect(r.get(2)).toMatchObject({ start: 100, end: 200 });
      expect(r.get(4)).toMatchObject({ start: 200, end: 400 });
    });

    it('a 60 s window cannot see the start of B (70 s ahead): B gets no reservation and D starts at 30, delaying B', () => {
      const r = run(one(4), jobs, { ...bf, bfWindow: 60 });
      expect(r.get(3)).toMatchObject({ start: 30, end: 80 });
      expect(r.get(4)).toMatchObject({ start: 30, end: 230 });
      expect(r.get(2)).toMatchObject({ start: 230, end: 330 });
    });

    it('bf_interval: the pass runs every interval, so with 50 s C starts at 50', () => {
      const r = run(one(4), jobs, { ...bf, bfInterval: 50 });
      expect(r.get(3)).toMatchObject({ start: 50, end: 100 });
      expect(r.get(2)!.start).toBe(100);
    });
  });

  describe('multifactor order in the engine', () => {
    it('fair share: the user who has used nothing goes first, even submitted later', () => {
      const cfg: Partial<SlurmConfig> = {
        users: 2,
        priority: onlyWeights({ weightFairshare: 1000 }),
      };
      // user 0 runs 0..1000 on the only core; at 500 user 0 submits X, at 600 user 1 submits Y
      const r = run(one(1), [job(1, 0, 1, 1000), job(2, 500, 1, 10), job(3, 600, 1, 10, 10, { user: 1 })], cfg);
      expect(r.get(3)).toMatchObject({ start: 1000, end: 1010 });
      expect(r.get(2)).toMatchObject({ start: 1010, end: 1020 });
    });

    it('with age only, the older job goes first', () => {
      const r = run(one(1), [job(1, 0, 1, 1000), job(2, 500, 1, 10), job(3, 600, 1, 10, 10, { user: 1 })], fifo);
      expect(r.get(2)!.start).toBe(1000);
    });

    it('job size: larger jobs first by default, smaller first with favor_small', () => {
      const base = onlyWeights({ weightJobSize: 1000 });
      const js = [job(1, 0, 4, 100), job(2, 10, 1, 10), job(3, 20, 4, 10)];
      const big = run(one(4), js, { priority: { ...base, favorSmall: false } });
      expect(big.get(3)!.start).toBe(100);
      expect(big.get(2)!.start).toBe(110);
      const small = run(one(4), js, { priority: { ...base, favorSmall: true } });
      expect(small.get(2)!.start).toBe(100);
      expect(small.get(3)!.start).toBe(110);
    });

    it('QOS: the job of the higher-priority QOS goes first (factor = QOS priority / max)', () => {
      const cfg: Partial<SlurmConfig> = {
        users: 1,
        qosPriorities: [0, 50, 100],
        priority: onlyWeights({ weightQos: 1000 }),
      };
      const r = run(one(1), [job(1, 0, 1, 100), job(2, 10, 1, 10, 10, { qos: 1 }), job(3, 20, 1, 10, 10, { qos: 2 }), job(4, 30, 1, 10, 10, { qos: 0 })], cfg);
      expect([3, 2, 4].map((i) => r.get(i)!.start)).toEqual([100, 110, 120]);
    });

    it('partition factor: PriorityJobFactor / the largest one', () => {
      const p = new SlurmPlatform({
        groups: [{ name: 'n', count: 1, cores: 1 }],
        partitions: [
          { name: 'a', groups: ['n'], priority_job_factor: 1 },
          { name: 'b', groups: ['n'], priority_job_factor: 4 },
        ],
      });
      const e = runOn(
        p,
        [job(1, 0, 1, 10), job(2, 0, 1, 10, 10, { partition: 1 })],
        {
          priority: onlyWeights({ weightPartition: 1000 }),
        },
        0,
      );
      // (at 0, the one running, the other waiting)
      expect(e.priority(1)).toBe(250);
      expect(e.priority(2)).toBe(1000);
    });

    it('partition tier goes before priority', () => {
      const p = new SlurmPlatform({
        groups: [{ name: 'n', count: 1, cores: 1 }],
        partitions: [
          { name: 'a', groups: ['n'], priority_tier: 1 },
          { name: 'b', groups: ['n'], priority_tier: 2 },
        ],
      });
      const r = run(p, [job(1, 0, 1, 100), job(2, 10, 1, 10), job(3, 20, 1, 10, 10, { partition: 1 })], fifo);
      expect(r.get(3)!.start).toBe(100);
      expect(r.get(2)!.start).toBe(110);
    });
  });

  describe('fair-share usage accounting', () => {
    const noDecay: Partial<SlurmConfig> = { users: 1, backfill: false, priority: { decayHalfLife: 0, calcPeriod: 300 } as SlurmConfig['priority'] };
    it('a job that starts mid-period is charged from its start, not from the last accrual (2 x 300 + 2 x 200 = 1000)', () => {
      expect(runOn(one(4), [job(1, 0, 2, 1000), job(2, 100, 2, 1000)], noDecay, 300).usage(0)).toBe(1000);
    });

    it('decay: usage <- usage * 2^(-period / half-life) + the period own usage (300, then 300 / 2 + 300 = 450)', () => {
      const cfg = { ...noDecay, priority: { decayHalfLife: 300, calcPeriod: 300 } as SlurmConfig['priority'] };
      expect(runOn(one(4), [job(1, 0, 1, 1000)], cfg, 300).usage(0)).toBe(300);
      expect(runOn(one(4), [job(1, 0, 1, 1000)], cfg, 600).usage(0)).toBe(450);
    });
  });

  describe('periodic passes at an instant with other events', () => {
    it('a backfill pass due at 30 sees the job ending at 30, whatever the push order: L backfills at 30, not 60', () => {
      // R (2 cores to 1000) and A (2 cores to 30) run; H (4 cores) waits for R; L (2 cores, 100 s) fits before H.
      // The pass at 30 was pushed (at R's arrival) before A's end event.
      const r = run(one(4), [job(1, 0, 2, 1000), job(2, 0, 2, 30), job(3, 0, 4, 100), job(4, 0, 2, 100)], fifo);
      expect(r.get(2)).toMatchObject({ start: 0, end: 30 });
      expect(r.get(4)).toMatchObject({ start: 30, end: 130 });
      expect(r.get(3)).toMatchObject({ start: 1000, end: 1100 });
    });
  });

  describe('backfill reservations as sched/backfill makes them (bfSlurmRounding, bfReserveIdle)', () => {
    // 8 nodes of 1 core. R (3 nodes) runs 0-100 (limit 120); H (4 nodes, limit 60) waits behind W (8 nodes,
    // submitted first, limit 60); C (2 nodes, limit 120) arrives at 5. Backfill at 10 (resolution 1):
    // W reserves 8 nodes from 120 (R's expected end); C needs [10, 130): it overlaps W.
    const base: Partial<SlurmConfig> = { ...fifo, bfResolution: 1, bfInterval: 10, schedOnSubmit: true };
    const jobs = [job(1, 0, 3, 100, 120), job(2, 1, 8, 10, 60), job(3, 5, 2, 30, 120)];
    it('counting reservations: C does not start (W needs all 8 nodes at 120)', () => {
      expect(
        run(new SlurmPlatform({ groups: [{ name: 'n', count: 8, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] }), jobs, base).get(3),
      ).toMatchObject({ start: 110 });
    });

    it("idle nodes held by a reservation: with W reserving from 120 and C ending at 40, 'first' still lets C run before it (ends before the reservation)", () => {
      const short = [job(1, 0, 3, 100, 120), job(2, 1, 8, 10, 60), job(3, 5, 2, 30, 30)];
      const p8 = new SlurmPlatform({ groups: [{ name: 'n', count: 8, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      expect(run(p8, short, { ...base, bfReserveIdle: 'first' }).get(3)).toMatchObject({ start: 10, end: 40 });
    });

    it("'first' and 'proportional' hold idle nodes from jobs that would overlap the reservation", () => {
      // R (4 nodes) runs 0-100 (limit 100); H (6 nodes) waits; at 10, H reserves from 100: 4 idle + 4 of R
      // are free then. C (2 nodes, limit 200) fits by counts (8 - 6 = 2 at 100) but not on idle nodes H holds.
      const p8 = new SlurmPlatform({ groups: [{ name: 'n', count: 8, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const js = [job(1, 0, 4, 100, 100), job(2, 1, 6, 10, 60), job(3, 5, 2, 30, 200)];
      expect(run(p8, js, base).get(3)).toMatchObject({ start: 10 }); // counts only
      expect(run(p8, js, { ...base, bfReserveIdle: 'first' }).get(3)).toMatchObject({ start: 100 }); // H holds all 4 idle nodes
      // proportional: H holds round(6 x 4 / 8) = 3 of the 4 idle nodes; C needs 2: it waits for H
      expect(run(p8, js, { ...base, bfReserveIdle: 'proportional' }).get(3)).toMatchObject({ start: 100 });
      // ... a 1-node C fits on the idle node H does not hold
      const one = [job(1, 0, 4, 100, 100), job(2, 1, 6, 10, 60), job(3, 5, 1, 30, 200)];
      expect(run(p8, one, { ...base, bfReserveIdle: 'proportional' }).get(3)).toMatchObject({ start: 10 });
    });

    it('bfSlurmRounding: a reservation starting at 130 is floored to 120, so a job of [70, 130) may no longer backfill', () => {
      // one node of 6 cores; R (4 cores, limit 130) runs 0-130; H (6 cores, limit 60) waits for it; C (2 cores,
      // run 50, limit 60) pends at 65. Pass at 70 (resolution 60): H reserves from R's expected end, 130.
      // Exact times: C's [70, 130) ends as H's [130, 190) begins -> C backfills at 70.
      // Slurm's rounding: H's reservation is [floor(130), floor(190)) = [120, 180), C overlaps it -> C waits for
      // R's end (130: H runs 130-140), then starts at 140.
      const p6 = new SlurmPlatform({ groups: [{ name: 'n', count: 1, cores: 6 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const js = [job(1, 0, 4, 130, 130), job(2, 1, 6, 10, 60), job(3, 65, 2, 50, 60)];
      const cfg = { ...fifo, bfResolution: 60, bfInterval: 70, schedOnSubmit: true };
      expect(run(p6, js, cfg).get(3)).toMatchObject({ start: 70, end: 120 });
      const r = run(p6, js, { ...cfg, bfSlurmRounding: true });
      expect(r.get(2)).toMatchObject({ start: 130, end: 140 });
      expect(r.get(3)).toMatchObject({ start: 140, end: 190 });
    });
  });

  describe('whole nodes on specific nodes (nodeSelect), as select/linear and sched/backfill choose them', () => {
    // 8 nodes of 1 core, backfill every 10 s at 1 s resolution. At 0: A (2 nodes, 100 s) -> nodes 0-1, B (3 nodes,
    // 50 s) -> 2-4, C (1 node, 200 s) -> 5; idle: 6-7. H (3 nodes, limit 60) pends at 1, D (2 nodes, 100 s) at 5.
    // Pass at 10: H cannot start (2 idle); at 40 (B's end) nodes 2-4 and 6-7 are free: runs [2-4] and [6-7], the
    // best fit is [2-4], so H reserves 2-4 from 40 and D starts at once on the idle 6-7 (it ends at 110, after
    // H's reservation starts, but on other nodes). H starts at 50, when B really ends.
    const p8 = new SlurmPlatform({ groups: [{ name: 'n', count: 8, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
    const js = [job(1, 0, 2, 100, 100), job(2, 0, 3, 50, 50), job(3, 0, 1, 200, 200), job(4, 1, 3, 10, 60), job(5, 5, 2, 100, 100)];
    const base: Partial<SlurmConfig> = { ...fifo, bfResolution: 1, bfInterval: 10, schedOnSubmit: true };
    it('a reservation takes the nodes of the job about to end, leaving idle nodes to a backfill job', () => {
      const r = run(p8, js, { ...base, nodeSelect: true });
      expect(r.get(5)).toMatchObject({ start: 10, end: 110 });
      expect(r.get(4)).toMatchObject({ start: 50, end: 60 });
    });
    it("the counting model with 'proportional' holds round(3 x 2 / 5) = 1 idle node for H: D waits for B's end", () => {
      const r = run(p8, js, { ...base, bfReserveIdle: 'proportional' });
      expect(r.get(5)).toMatchObject({ start: 50, end: 150 });
      expect(r.get(4)).toMatchObject({ start: 50, end: 60 });
    });

    it('reservations chain on specific nodes: B2 reserves the node B frees, H the nodes A and B2 free', () => {
      // 4 nodes. A (1 node, 100 s) -> 0, B (1 node, 50 s) -> 1, C (2 nodes, 200 s) -> 2-3. B2 (1 node, 40 s)
      // arrives at 2 and waits. H (2 nodes, limit 60) at 3. At 10 nothing is idle: B2 reserves node 1 from 50 (B's end)
      // to 90. H: at 50 node 1 is reserved; at 90 node 1 (B2 done) is free, at 100 node 0 too: H reserves nodes 0-1
      // from 100. B2 starts at 50 and H at 100 (main passes after B's and A's ends).
      const p4 = new SlurmPlatform({ groups: [{ name: 'n', count: 4, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const j4 = [job(1, 0, 1, 100, 100), job(2, 0, 1, 50, 50), job(3, 0, 2, 200, 200), job(4, 2, 1, 40, 40), job(5, 3, 2, 10, 60)];
      const r = run(p4, j4, { ...base, nodeSelect: true });
      expect(r.get(4)).toMatchObject({ start: 50, end: 90 });
      expect(r.get(5)).toMatchObject({ start: 100, end: 110 });
    });
  });
});

describe("the planners' pure functions", () => {
  it('earliestFit: first bucket with c free over L buckets, the window edge counts as free', () => {
    const f = Float64Array.from([1, 3, 3, 0, 3, 3, 3]);
    expect(earliestFit(f, 7, 2, 2)).toBe(1);
    expect(earliestFit(f, 7, 2, 3)).toBe(4);
    expect(earliestFit(f, 7, 4, 1)).toBe(-1);
    expect(earliestFit(f, 7, 3, 10)).toBe(4);
  });

  it('names every state', () => {
    expect(STATE_NAMES[JobPhase.TimedOut]).toBe('timeout');
    expect(STATE_NAMES[JobPhase.Suspended]).toBe('op_suspended');
  });

  const avail = (bits: string) => Uint8Array.from(bits, (b) => (b === '1' ? 1 : 0));
  it('pickNodes: the shortest run of consecutive free nodes that holds the job, its first nodes', () => {
    // runs: [0-2] (3 nodes), [4-5] (2), [7-10] (4)
    const a = avail('11101101111');
    expect([...pickNodes(a, 2)!]).toEqual([4, 5]);
    expect([...pickNodes(a, 3)!]).toEqual([0, 1, 2]);
    expect([...pickNodes(a, 4)!]).toEqual([7, 8, 9, 10]);
    expect([...pickNodes(a, 1)!]).toEqual([4]); // shortest run first, even if later
    expect([...pickNodes(avail('1101'), 1)!]).toEqual([3]);
    expect([...pickNodes(avail('1011'), 2)!]).toEqual([2, 3]);
    expect([...pickNodes(avail('11011'), 2)!]).toEqual([0, 1]); // ties: the first run
  });

  it('pickNodes: no run holds the job: the longest runs first, then the best fit for the rest; null when too few', () => {
    const a = avail('11101101111');
    // 5 nodes: the run of 4 ([7-10]), then 1 node from the shortest run holding it ([4-5])
    expect([...pickNodes(a, 5)!]).toEqual([4, 7, 8, 9, 10]);
    // 8: [7-10], then [0-2] (longest left), then 1 of [4-5]
    expect([...pickNodes(a, 8)!]).toEqual([0, 1, 2, 4, 7, 8, 9, 10]);
    expect(pickNodes(a, 10)).toBeNull();
    expect(pickNodes(avail('0000'), 1)).toBeNull();
  });
});
