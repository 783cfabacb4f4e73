/**
 * Slurm 22.05's timers and sched/backfill's will-run test (seed 004's defaults aside): hand-computed scenarios
 * (written for the Slurm engine, which gave the same numbers until its retirement, issue 42) on the one engine
 * through the Slurm preset (`runOn`, test/slurm/presetHarness.ts); `hashUnit` last.
 */
import { describe, expect, it } from 'vitest';
import { type SlurmConfig, type SlurmJobInput, hashUnit } from '../../src/slurm/config.js';
import { SlurmPlatform } from '../../src/slurm/platform.js';
import { fifoByAge as fifo, oneNode as one, runOn, slurmJob as job } from './presetHarness.js';

describe('on the Slurm preset', () => {
  const run = (p: SlurmPlatform, js: SlurmJobInput[], cfg: Partial<SlurmConfig> = {}) => runOn(p, js, cfg).recs;
  describe("Slurm 22.05's timing (configuration-driven; seed 004 keeps the defaults)", () => {
    const basic: Partial<SlurmConfig> = { ...fifo, bfResolution: 1 };

    it('schedOnSubmit false + bfGrid: a job submitted at 0.3 to an idle node starts at the next backfill tick (1), not at 0.3', () => {
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...basic, bfInterval: 1 }).get(1)).toMatchObject({ start: 0.3 });
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...basic, bfInterval: 1, schedOnSubmit: false, bfGrid: true }).get(1)).toMatchObject({ start: 1, end: 11 });
      // without the grid the pass comes bf_interval after the arrival
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...basic, bfInterval: 1, schedOnSubmit: false }).get(1)).toMatchObject({ start: 1.3 });
    });

    it('a job end still runs the main scheduler at once: the waiting job starts at the end (10), not at the next tick', () => {
      const r = run(one(4), [job(1, 0, 4, 10), job(2, 0.5, 4, 5)], { ...basic, bfInterval: 30, schedOnSubmit: false, bfGrid: true });
      expect(r.get(1)).toMatchObject({ start: 30 }); // idle until the first backfill tick at 30
      expect(r.get(2)).toMatchObject({ start: 40, end: 45 });
    });

    it('sched/builtin without scheduling at submission: the sched_interval pass (60) starts the job', () => {
      const r = run(one(4), [job(1, 5, 1, 10)], { ...basic, backfill: false, schedOnSubmit: false, schedInterval: 60 });
      expect(r.get(1)).toMatchObject({ start: 60, end: 70 });
    });

    it('sched_min_interval: a second pass within the interval waits for its end (ends at 10 and 10.5, interval 2 -> start 12)', () => {
      const jobs = [job(1, 0, 2, 10), job(2, 0, 2, 10.5), job(3, 0, 4, 1)];
      expect(run(one(4), jobs, { ...basic, backfill: false }).get(3)).toMatchObject({ start: 10.5 });
      expect(run(one(4), jobs, { ...basic, backfill: false, schedMinInterval: 2 }).get(3)).toMatchObject({ start: 12 });
    });

    it("timerOrigin: slurmctld's threads keep their phase from its start (bf_interval 30 from 7: passes at 7, 37)", () => {
      // a job arriving at 0.3 to an idle node (no scheduling at submission) waits for the backfill pass
      const cfg = { ...basic, bfInterval: 30, schedOnSubmit: false, bfGrid: true, backfill: true };
      expect(run(one(4), [job(1, 0.3, 2, 10)], cfg).get(1)).toMatchObject({ start: 30 });
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...cfg, timerOrigin: 7 }).get(1)).toMatchObject({ start: 7 });
      expect(run(one(4), [job(1, 8, 2, 10)], { ...cfg, timerOrigin: 7 }).get(1)).toMatchObject({ start: 37 });
      // a 1 s backfill grid is not anchored (its phase drifts with the load)
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...cfg, bfInterval: 1, timerOrigin: 0.5 }).get(1)).toMatchObject({ start: 1 });
    });

    it('measured timers: backfill passes at the logged times, background ticks between logged samples', () => {
      const cfg = { ...basic, bfInterval: 30, schedOnSubmit: false, bfGrid: true };
      // passes where the log shows them; after the last one, the grid again
      expect(run(one(4), [job(1, 0.3, 2, 10)], { ...cfg, bfTickTimes: [0.1, 4.2, 34.3] }).get(1)).toMatchObject({ start: 4.2 });
      expect(run(one(4), [job(1, 40, 2, 10)], { ...cfg, bfTickTimes: [0.1, 4.2, 34.3] }).get(1)).toMatchObject({ start: 60 });
      // batch_sched_delay's main pass on the background thread's tick: at k + 0.5 with the nominal phase; with
      // logged samples at 0.25 and 30.55 (30 ticks of 1.01 s), at 0.25 + 5 x 1.01 = 5.3
      const sched = { ...basic, backfill: false, schedOnSubmit: false, schedInterval: 20, batchSchedDelay: 1, timerOrigin: 0 };
      expect(run(one(4), [job(1, 5, 1, 10)], { ...sched, bgTickPhase: 0.5 }).get(1)).toMatchObject({ start: 5.5 });
      expect(run(one(4), [job(1, 5, 1, 10)], { ...sched, bgTickTimes: [0.25, 30.55] }).get(1)!.start).toBeCloseTo(5.3, 9);
    });

    it("a job left pending takes its partition's nodes out of the main pass for every partition (job_scheduler.c)", () => {
      // p1 = nodes a and b, p2 = b. R1 holds a to 100, R2 half of b to 50; H (p1, a whole node) waits; L (p2,
      // 2 CPUs) fits on b at 2, but b is H's partition's: L waits for the pass that starts H (50 on b), then H's end
      const p = new SlurmPlatform({
        groups: [
          { name: 'a', count: 1, cores: 4 },
          { name: 'b', count: 1, cores: 4 },
        ],
        partitions: [
          { name: 'p1', groups: ['a', 'b'] },
          { name: 'p2', groups: ['b'] },
        ],
      });
      const jobs = [job(1, 0, 4, 100), job(2, 0, 2, 50, 50, { partition: 1 }), job(3, 1, 4, 100), job(4, 2, 2, 10, 10, { partition: 1 })];
      const r = run(p, jobs, { ...basic, backfill: false });
      expect(r.get(3)).toMatchObject({ start: 50 });
      expect(r.get(4)).toMatchObject({ start: 150 });
      // only the nodes of H's partition: R on b (p2), H (p2) waits; L (p1) starts on a at once
      const other = [job(1, 0, 4, 100, 100, { partition: 1 }), job(3, 1, 4, 100, 100, { partition: 1 }), job(4, 2, 2, 10)];
      expect(run(p, other, { ...basic, backfill: false }).get(4)).toMatchObject({ start: 2 });
    });

    it('records which pass started a job (Scheduler=Main / Backfill)', () => {
      const r = run(one(4), [job(1, 0, 4, 10), job(2, 0.5, 4, 5)], { ...basic, bfInterval: 1, schedOnSubmit: false, bfGrid: true });
      expect([r.get(1)!.backfilled, r.get(2)!.backfilled]).toEqual([1, 0]);
    });
  });

  describe("sched/backfill's will-run test (bfWillRun) and the background main pass (batchSchedDelay)", () => {
    // 8 nodes of 1 core, resolution 60 s, backfill every second. At 0: X (3 nodes, run 100, limit 120) -> 0-2,
    // Y (4 nodes, run 50, limit 60) -> 3-6; node 7 idle. At 1: P and Q (4 nodes each, run 10, limit 60); at 2:
    // Z (1 node, run 20, limit 120).
    const p8 = new SlurmPlatform({ groups: [{ name: 'n', count: 8, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
    const js = [job(1, 0, 3, 100, 120), job(2, 0, 4, 50, 60), job(3, 1, 4, 10, 60), job(4, 1, 4, 10, 60), job(5, 2, 1, 20, 120)];
    const base: Partial<SlurmConfig> = { ...fifo, bfResolution: 60, bfInterval: 1, bfGrid: true, bfSlurmRounding: true, nodeSelect: true };

    it('the will-run test removes running jobs ending within 30 s of the first end (rounded up to 30 s) together', () => {
      // Y ends (expected) at 60: barrier 90, X's 120 <= 90 + 30, so both go at once: P would start at 120 on the
      // first four of all 8 free nodes, 0-3 ([120, 180)); Q then on 4-7 ([120, 180): Y's nodes and the idle one). Z,
      // which would run until 122, touches both and waits. Y ends at 50: the main pass starts P on 3-6 (idle 3-7);
      // the backfill pass then sees P (110) and X (120) end together: Q reserves 0-3 from 120, and Z (until 170)
      // starts on node 7, which no reservation holds. Q starts at 60, P's end, on 3-6.
      const r = run(p8, js, { ...base, bfWillRun: true });
      expect(r.get(3)).toMatchObject({ start: 50, end: 60 });
      expect(r.get(4)).toMatchObject({ start: 60, end: 70 });
      expect(r.get(5)).toMatchObject({ start: 50, end: 70 });
    });

    it('a running job on nodes the tested job cannot use still closes (or not) the will-run batch: seed 53018', () => {
      // 6 nodes. At 0: O (2 nodes, limit 140) -> 0-1, X (1 node, 0.5 s) -> 2, U1 (1 node, limit 100) -> 3, U2 (2
      // nodes, limit 400) -> 4-5; node 2 is idle from 0.5. At 1: P (2 nodes, limit 60), T (2 nodes, limit 120), W
      // (1 node, 30 s, limit 60). Expected ends: U1 100, O 140, U2 400. P: U1 goes first (batch barrier 120, window
      // 30); O (140 <= 150) joins, U2 (400) does not: P reserves nodes 0-1 from 140, [120, 180) on the grid. T: the
      // map holds 0-1 from 120 <= 1 + 120, so only 2-5 are usable; cons_common's will-run walks U1, then peeks at O
      // (140 <= 150: the batch goes on), skips O (not on 2-5) and removes U2 too: start 400, after 180 where nodes
      // 0-1 come back, so T is tried again from 180 on all nodes (U1 and O in the first batch): 180 on 0-1. W (until
      // 61) starts on node 2, which no reservation holds. Had the batch stopped at U2 (the next job T can use), T
      // would reserve 2-3 from 100 ([60, 180)) and W, reaching 60, would wait.
      const p6 = new SlurmPlatform({ groups: [{ name: 'n', count: 6, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const j6 = [
        job(1, 0, 2, 130, 140),
        job(2, 0, 1, 0.5, 60),
        job(3, 0, 1, 90, 100),
        job(4, 0, 2, 300, 400),
        job(5, 1, 2, 10, 60),
        job(6, 1, 2, 10, 120),
        job(7, 1, 1, 30, 60),
      ];
      const r = run(p6, j6, { ...base, bfWillRun: true });
      expect(r.get(7)).toMatchObject({ start: 1, end: 31 });
      // then main passes at the ends: P on 2-3 at U1's end, T at P's (the engine before this rule: W at 110)
      expect(r.get(5)).toMatchObject({ start: 90, end: 100 });
      expect(r.get(6)).toMatchObject({ start: 100, end: 110 });
    });

    it("the will-run batches group running jobs by their ends in whole seconds (slurmctld's end_time: start second + limit)", () => {
      // 4 nodes, resolution 1 s. X (2 nodes, run 100, limit 120) starts at 0.5 on 0-1: end_time 120 (0 + 120), not
      // 120.5. Y (1 node, run 50, limit 60) at 3.5 on 2: end_time 63. H (2 nodes) pends from 4 (only node 3 idle).
      // H's will-run: Y first, barrier 63 + 27 = 90; X's 120 <= 90 + 30 joins the batch, so H is placed with all 4
      // nodes free: on 0-1, from 120.5 (X's own end). Z (1 node, run 20, limit 60) at 10 then backfills on node 3,
      // which no reservation holds. With ends of 120.5 and 63.5, X would stay out of the batch, H would reserve 2-3
      // from 63 and Z (until 70) would wait for it: that is how the engine differed from Slurm on seed 550190737.
      const p4 = new SlurmPlatform({ groups: [{ name: 'n', count: 4, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const j4 = [job(1, 0.5, 2, 100, 120), job(2, 3.5, 1, 50, 60), job(3, 4, 2, 10, 60), job(4, 10, 1, 20, 60)];
      const r = run(p4, j4, { ...base, bfResolution: 1, schedOnSubmit: true, bfWillRun: true });
      expect(r.get(4)).toMatchObject({ start: 10, end: 30 });
      expect(r.get(3)).toMatchObject({ start: 53.5, end: 63.5 });
    });

    it("the profile of expected ends (nodeSelect alone) reserves P at Y's end on 3-6 and Q at X's on 0-3: Z backfills at 2", () => {
      const r = run(p8, js, base);
      expect(r.get(5)).toMatchObject({ start: 2, end: 22 });
    });

    it('batchSchedDelay: a queued main pass runs at the next background tick (k + 0.5) at least the delay after the last', () => {
      // one node of 4 cores, no backfill. A (4 cores, 10.2 s) at 0: tick 0.5, ends 10.7. B (4 cores, 1 s) at 1: its
      // pass at 3.5 finds the node busy; A's end queues one for 11.5 (>= 3.5 + 3): B runs 11.5-12.5. C (1 s) at 12:
      // the next pass may not come before 14.5 (11.5 + 3), even though B ends at 12.5.
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3 };
      const r = run(one(4), [job(1, 0, 4, 10.2), job(2, 1, 4, 1), job(3, 12, 4, 1)], cfg);
      expect(r.get(1)).toMatchObject({ start: 0.5 });
      expect(r.get(2)).toMatchObject({ start: 11.5, end: 12.5 });
      expect(r.get(3)).toMatchObject({ start: 14.5, end: 15.5 });
      // without it (and scheduling at submission) each event runs the pass at once
      const now = run(one(4), [job(1, 0, 4, 10.2), job(2, 1, 4, 1), job(3, 12, 4, 1)], { ...fifo, backfill: false });
      expect(now.get(3)).toMatchObject({ start: 12 });
    });

    it('bgTickPhase: the background ticks fall at k + phase', () => {
      // as above with ticks at k + 0.2: A 0.2-10.4; B's pass at 3.2 finds the node busy, A's end queues one for 11.2
      // (>= 6.2): B 11.2-12.2; C at 12 waits for 14.2 (11.2 + 3)
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3, bgTickPhase: 0.2 };
      const r = run(one(4), [job(1, 0, 4, 10.2), job(2, 1, 4, 1), job(3, 12, 4, 1)], cfg);
      expect(r.get(1)).toMatchObject({ start: 0.2 });
      expect(r.get(2)).toMatchObject({ start: 11.2 });
      expect(r.get(3)).toMatchObject({ start: 14.2 });
    });

    it("sched_interval with batchSchedDelay: the periodic pass is the background thread's, on its tick, whatever batch_sched_delay says", () => {
      // one node of 4 cores, no backfill, batch_sched_delay 100 s, sched_interval 60 s: A (59.2 s) at 0 runs 0.5-59.7;
      // B, submitted at 1, is not started by A's end (the next queued pass may not come before 100.5) but by the
      // periodic pass on the tick at 60.5 (not at 60: controller.c runs it from the background loop); C at 62 by the
      // next one at 120.5 (the queued one may not come before 60.5 + 100)
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 100, schedInterval: 60 };
      const r = run(one(4), [job(1, 0, 4, 59.2), job(2, 1, 4, 1), job(3, 62, 4, 1)], cfg);
      expect(r.get(1)).toMatchObject({ start: 0.5 });
      expect(r.get(2)).toMatchObject({ start: 60.5, end: 61.5 });
      expect(r.get(3)).toMatchObject({ start: 120.5 });
      // with ticks at k + 0.2 the periodic passes fall at 60.2 and 120.2
      const r2 = run(one(4), [job(1, 0, 4, 59.2), job(2, 1, 4, 1), job(3, 62, 4, 1)], { ...cfg, bgTickPhase: 0.2 });
      expect(r2.get(2)).toMatchObject({ start: 60.2 });
      expect(r2.get(3)).toMatchObject({ start: 120.2 });
    });

    it("endSchedShare: an end drawn for the epilog path runs the main pass at once, leaving the background thread's timer", () => {
      // share 1: every end. A 0.5-10.7 (submissions still wait for the tick); A's end starts B at once, 10.7-11.7. C at
      // 12 queues a background pass: the last background pass was at 3.5 (B's, which found the node busy), so the
      // tick at 12.5 runs it (had the end's pass counted, not before 14.5).
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3, endSchedShare: 1 };
      const r = run(one(4), [job(1, 0, 4, 10.2), job(2, 1, 4, 1), job(3, 12, 4, 1)], cfg);
      expect(r.get(1)).toMatchObject({ start: 0.5, end: 10.7 });
      expect(r.get(2)!.start).toBeCloseTo(10.7, 9);
      expect(r.get(3)).toMatchObject({ start: 12.5 });
      // share 0 (the default) is the background path above
      expect(run(one(4), [job(1, 0, 4, 10.2), job(2, 1, 4, 1)], { ...cfg, endSchedShare: 0 }).get(2)).toMatchObject({ start: 11.5 });
    });

    it("batch_sched_delay counts from the last background pass: slurmctld's start, a periodic pass on an empty queue", () => {
      // one node, no backfill, batch_sched_delay 3. slurmctld started at -1.9 (timerOrigin): its background thread
      // set last_sched_time then, so a job at 0 is served by the first tick at or after floor(-1.9) + 3 = 1: 1.5.
      // Without the start (no log) and without sched_interval, the first tick: 0.5.
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3 };
      expect(run(one(4), [job(1, 0, 1, 5)], { ...cfg, timerOrigin: -1.9 }).get(1)).toMatchObject({ start: 1.5 });
      expect(run(one(4), [job(1, 0, 1, 5)], cfg).get(1)).toMatchObject({ start: 0.5 });
      // sched_interval 20 (nominal grid k x 20 + 0.5): the periodic pass at 20.5 runs on an empty queue, so a job
      // at 21 waits for floor(20.5) + 3 = 23: the tick at 23.5 (before this rule: 21.5); a job at 24 does not wait
      expect(run(one(4), [job(1, 21, 1, 5)], { ...cfg, schedInterval: 20 }).get(1)).toMatchObject({ start: 23.5 });
      expect(run(one(4), [job(1, 24, 1, 5)], { ...cfg, schedInterval: 20 }).get(1)).toMatchObject({ start: 24.5 });
      // with slurmctld's start at 7.3 the periodic passes are at floor(7.3) + k x 20 = 27, 47 (on the tick after:
      // 27.5): a job at 28 waits for 30.5, the start itself is long past
      expect(run(one(4), [job(1, 28, 1, 5)], { ...cfg, schedInterval: 20, timerOrigin: 7.3 }).get(1)).toMatchObject({ start: 30.5 });
    });

    it('batch_sched_delay in whole seconds (time_t): a tick 2.03 s after the last pass may run the queued one', () => {
      // logged ticks 0.9 and 11.0 (10 ticks of 1.01 s): ticks at 9.99, 11.0, 12.01, 13.02. A (0.2 s) at 9.5 starts at
      // the tick at 9.99; B at 10.5 needs a tick with floor(t) - floor(9.99) >= 3, t >= 12: 12.01 (in fractional
      // seconds it would wait for 9.99 + 3: 13.02)
      const cfg = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3, bgTickTimes: [0.9, 11.0] };
      const r = run(one(4), [job(1, 9.5, 4, 0.2), job(2, 10.5, 4, 1)], cfg);
      expect(r.get(1)!.start).toBeCloseTo(9.99, 9);
      expect(r.get(2)!.start).toBeCloseTo(12.01, 9);
    });

    it('nodes COMPLETING after an end: no start on them until released; the release queues the pass, an epilog message runs it', () => {
      // 2 whole nodes, no backfill, batch_sched_delay 3 (ticks k + 0.5). A (2 nodes) 0.5-10.49; B (2 nodes) at 1
      // waits; the last background pass was at 1.5 (B's). Nodes free at the end: the tick at 10.5 starts B.
      const p2 = new SlurmPlatform({ groups: [{ name: 'n', count: 2, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const cfg: Partial<SlurmConfig> = { ...fifo, backfill: false, schedOnSubmit: false, batchSchedDelay: 3, nodeSelect: true, bfWillRun: true };
      const jobs = (extra: Partial<SlurmJobInput>) => [job(1, 0, 2, 9.99, 60, extra), job(2, 1, 2, 1, 60)];
      expect(run(p2, jobs({}), cfg).get(2)!.start).toBeCloseTo(10.5, 9);
      // COMPLETING for 0.02 s: released at 10.51, after that tick; the pass it queues runs at 11.5. A's end stays 10.49
      const c = run(p2, jobs({ completing: 0.02 }), cfg);
      expect(c.get(1)!.end).toBeCloseTo(10.49, 9);
      expect(c.get(2)!.start).toBeCloseTo(11.5, 9);
      // released by an epilog message at 10.52: the main pass runs then
      expect(run(p2, jobs({ completing: 0.03, epilogPass: true }), cfg).get(2)!.start).toBeCloseTo(10.52, 9);
      // an epilog end without a completing time: at the end
      expect(run(p2, jobs({ epilogPass: true }), cfg).get(2)!.start).toBeCloseTo(10.49, 9);
    });

    it('a backfill start on nodes still COMPLETING waits: the pass reserves them from now + 1 s', () => {
      // 2 whole nodes, backfill every second on the grid (passes at k), resolution 1, batch_sched_delay 3 (ticks
      // k + 0.5). A (2 nodes) at 0.2 starts at the tick at 0.5 and ends at 10.98; B (1 node, at 2) waits (its queued
      // pass at 3.5 finds no node). Without COMPLETING the backfill pass at 11 starts B. With 0.04 s (released 11.02)
      // the pass at 11 finds A's nodes completing: B reserves them from 12; the release queues a main pass, which
      // the tick at 11.5 runs (the last background pass was at 3.5): B starts at 11.5.
      const p2 = new SlurmPlatform({ groups: [{ name: 'n', count: 2, cores: 1 }], partitions: [{ name: 'p', groups: ['n'] }] });
      const cfg: Partial<SlurmConfig> = {
        ...fifo,
        backfill: true,
        bfInterval: 1,
        bfResolution: 1,
        bfGrid: true,
        bfSlurmRounding: true,
        schedOnSubmit: false,
        batchSchedDelay: 3,
        nodeSelect: true,
        bfWillRun: true,
      };
      const jobs = (extra: Partial<SlurmJobInput>) => [job(1, 0.2, 2, 10.48, 60, extra), job(2, 2, 1, 1, 60)];
      const free = run(p2, jobs({}), cfg);
      expect(free.get(1)).toMatchObject({ start: 0.5, end: 10.98 });
      expect(free.get(2)).toMatchObject({ start: 11 });
      const cg = run(p2, jobs({ completing: 0.04 }), cfg);
      expect(cg.get(2)).toMatchObject({ start: 11.5 });
    });
  });
});

describe("endSchedShare's draw", () => {
  it('hashUnit: in [0, 1), a fixed draw per id and seed, a share of ids near the threshold', () => {
    expect(hashUnit(17, 3)).toBe(hashUnit(17, 3));
    expect(hashUnit(17, 3)).not.toBe(hashUnit(17, 4));
    let below = 0;
    for (let id = 1; id <= 20000; id++) {
      const u = hashUnit(id, 0);
      expect(u >= 0 && u < 1).toBe(true);
      if (u < 0.139) below++;
    }
    expect(Math.abs(below / 20000 - 0.139)).toBeLessThan(0.01);
  });
});
