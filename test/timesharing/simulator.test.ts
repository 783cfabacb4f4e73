import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICIES, WAIT_MODES, parseTimeSharingConfig, type TimeSharingConfigInput, timeSharingConfig } from '../../src/timesharing/config.js';
import { correlation, nodeMean, runMetrics, slowdown } from '../../src/timesharing/metrics.js';
import { TimeSharingSimulator } from '../../src/timesharing/simulator.js';
import type { JobSpec } from '../../src/timesharing/workload.js';

const local = (id: number, work: number, vmem = 10): JobSpec => ({ id, kind: 'local', size: 1, work, vmem });
const par = (id: number, size: number, work: number, vmem = 10): JobSpec => ({ id, kind: 'parallel', size, work, vmem });

function run(cfg: TimeSharingConfigInput, jobs: JobSpec[]): TimeSharingSimulator {
  const c = timeSharingConfig({ n_jobs: jobs.length, ...cfg, model: { local_wait: 0, ...cfg.model } });
  return new TimeSharingSimulator(c, jobs).run();
}

describe('time-sharing engine: hand-computed scenarios', () => {
  it('RR, one node, two CPU-bound local tasks of 150 u.t. with a 100 u.t. quantum', () => {
    // t0 runs 0-100, t1 100-200, t0 200-250 (done), t1 250-300 (done)
    const sim = run({ n: 1, policy: 'rr', MPL_TOTAL: 2 }, [local(0, 150), local(1, 150)]);
    expect(sim.records.map((r) => [r.id, r.tr, r.tc])).toEqual([
      [0, 250, 150],
      [1, 300, 150],
    ]);
    // trq: t0 waits 0 then 100 -> 50; t1 waits 100 then 50 -> 75; overhead = (50 + 75) / 2
    const m = runMetrics(sim);
    expect(m.local.overhead).toBeCloseTo(62.5, 9);
    expect(m.local.slowdown).toBeCloseTo((250 / 150 + 300 / 150) / 2, 9);
    expect(sim.now).toBe(300);
    expect(sim.nodes[0]!.busy).toBe(300);
  });

  it('MPL_TOTAL holds back a job until a slot frees', () => {
    const sim = run({ n: 1, policy: 'rr', MPL_TOTAL: 1 }, [local(0, 150), local(1, 50)]);
    // the second job starts at 150 and runs alone: tr = 50
    expect(sim.records.map((r) => r.tr)).toEqual([150, 50]);
  });

  it('a two-task job with non-blocking sends on dedicated nodes runs in its dedicated time (slowdown 1)', () => {
    // exchanges at 100 and 200 u.t. of CPU: 100 | wait 5 | 100 | wait 5 | 50 -> 260 = 250 + 2 x 5
    const sim = run({ n: 2, policy: 'rr', MPL_TOTAL: 1, freq_com: 1, send: 'non_blocking' }, [par(0, 2, 250)]);
    const r = sim.records[0]!;
    expect([r.tr, r.tc, r.trFast]).toEqual([260, 260, 260]);
    expect(runMetrics(sim).parallel.correlation).toBe(100);
  });

  it('blocking sends cost a round trip per exchange (10 u.t.)', () => {
    const sim = run({ n: 2, policy: 'dyn', MPL_TOTAL: 1, freq_com: 1, send: 'blocking' }, [par(0, 2, 250)]);
    expect([sim.records[0]!.tr, sim.records[0]!.tc]).toEqual([270, 270]);
  });

  it('IMPLI spins until the message arrives (5 u.t. per exchange here) instead of blocking', () => {
    // a 1000 u.t. quantum so that the exchanges (every 100 u.t.) fall inside it
    const sim = run({ n: 2, policy: 'impli', MPL_TOTAL: 1, quantum: 1000, freq_com: 10, send: 'non_blocking' }, [par(0, 2, 250)]);
    expect(sim.records[0]!.tr).toBe(260);
    for (const nd of sim.nodes) {
      expect(nd.spin).toBeCloseTo(10, 9);
      expect(nd.busy).toBeCloseTo(260, 9);
    }
  });

  it('IMPLI blocks after one round trip of spinning when the partner is not scheduled', () => {
    // a one-way latency of 20 u.t.: the messages come after the 10 u.t. spin
    const sim = run({ n: 2, policy: 'impli', MPL_TOTAL: 2, quantum: 1000, freq_com: 10, send: 'non_blocking', model: { latency: 20, spin: 10 } }, [
      par(0, 2, 150),
    ]);
    // P0 and P1 reach the exchange at 100, spin 10 (until 110), block, messages at 120, finish at 170
    expect(sim.records[0]!.tr).toBe(170);
    for (const nd of sim.nodes) expect(nd.spin).toBeCloseTo(10, 9);
  });

  it('DYN schedules a woken receiver at once, ahead of a local task; RR puts it at the tail', () => {
    // node 0: P0 (job 0, size 2) and local L (1000 u.t.); node 1: P1.
    // t=0: P0 runs (admitted first), exchange at 100, blocks; L runs from 100.
    // message from P1 arrives at 105: DYN preempts L (overtake 1), RR waits for L's quantum (until 200).
    const jobs = [par(0, 2, 150), local(1, 1000)];
    const dyn = run({ n: 2, policy: 'dyn', MPL_TOTAL: 2, freq_com: 1, send: 'non_blocking' }, jobs);
    const rr = run({ n: 2, policy: 'rr', MPL_TOTAL: 2, freq_com: 1, send: 'non_blocking' }, jobs);
    const pj = (s: TimeSharingSimulator) => s.records.find((r) => r.id === 0)!;
    // DYN: P0 runs 105-155 -> tr 155; P1 alone on node 1 also done at 155
    expect(pj(dyn).tr).toBe(155);
    // RR: L runs 100-200, P0 runs 200-250 -> tr 250 (fast task P1: 155)
    expect(pj(rr).tr).toBe(250);
    expect(pj(rr).trFast).toBe(155);
    expect(correlation([pj(rr)])).toBeCloseTo(100 - ((250 - 155) / 250) * 100, 9);
  });

  it('RR polls (Loc-S): a task waiting for a partner that is not scheduled spins away its quanta; with wait "block" the CPU idles instead', () => {
    // node 0: local L (1000 u.t., admitted first) and P0; node 1: P1. Quantum 200, an exchange every 100 u.t. of CPU.
    // node 0: L 0-200, P0 200-300 (exchange: P1's message came at 105), P0 300-350 done.
    // node 1: P1 0-100, sends, waits for P0's message (sent at 300, arrives 305): it spins 100-200
    // (quantum over: back to RQ, alone, dispatched again), spins 200-305, runs 305-355 done.
    const jobs = [local(0, 1000), par(1, 2, 150)];
    const spin = run({ n: 2, policy: 'rr', MPL_TOTAL: 2, quantum: 200, freq_com: 2, send: 'non_blocking' }, jobs);
    expect(spin.wait).toBe('spin');
    const pj = (s: TimeSharingSimulator) => s.records.find((r) => r.id === 1)!;
    expect([pj(spin).tr, pj(spin).trFast]).toEqual([355, 350]);
    expect(spin.nodes[1]!.spin).toBeCloseTo(205, 9);
    expect(spin.nodes[1]!.busy).toBeCloseTo(355, 9);
    const block = run({ n: 2, policy: 'rr', wait: 'block', MPL_TOTAL: 2, quantum: 200, freq_com: 2, send: 'non_blocking' }, jobs);
    expect(pj(block).tr).toBe(355);
    expect(block.nodes[1]!.spin).toBe(0);
    expect(block.nodes[1]!.busy).toBeCloseTo(150, 9);
  });

  it('a polling RR task keeps the CPU a local task would have had (wait "spin" against "block")', () => {
    // node 0: local L0 (300) and P0; node 1: P1 and local L2 (300). Quantum 100, an exchange after 50 u.t. of CPU.
    // node 0, both modes: L0 0-100, P0 100-150 (P1's message came at 55: no wait, its own arrives at 155),
    //   P0 150-200 done, L0 200-400 done.
    // node 1, spin: P1 0-50, spins 50-100 (quantum over), L2 100-200, P1 200-250 done, L2 250-450 done.
    // node 1, block: P1 0-50 blocks, L2 50-250 (two quanta; P1 woken at 155 to the tail), P1 250-300 done, L2 300-400.
    const jobs = [local(0, 300), par(1, 2, 100), local(2, 300)];
    const cfg = { n: 2, policy: 'rr', MPL_TOTAL: 2, quantum: 100, freq_com: 2, send: 'non_blocking' } as const;
    const tr = (s: TimeSharingSimulator) => s.records.map((r) => [r.id, r.tr]).sort((a, b) => a[0]! - b[0]!);
    const spin = run(cfg, jobs);
    expect(tr(spin)).toEqual([
      [0, 400],
      [1, 250],
      [2, 450],
    ]);
    expect(spin.nodes[1]!.spin).toBeCloseTo(50, 9);
    const block = run({ ...cfg, wait: 'block' }, jobs);
    expect(tr(block)).toEqual([
      [0, 400],
      [1, 300],
      [2, 400],
    ]);
    expect(block.nodes[1]!.spin).toBe(0);
  });

  it('L scales the quantum of parallel tasks on a node with a local user (eq. 2.7)', () => {
    // one node, parallel task (size 1) of 200 and local task of 200, L = 0.5: P gets 50 u.t. turns
    const jobs = [par(0, 1, 200), local(1, 200)];
    const sim = run({ n: 1, policy: 'rr', MPL_TOTAL: 2, L: 0.5 }, jobs);
    // P is dispatched on admission, before L arrives: a full quantum 0-100; then L 100-200,
    // P 200-250 (a local user now: 50 u.t.), L 250-350 (done), P 350-400 (done)
    expect(sim.records.map((r) => [r.id, r.tr])).toEqual([
      [1, 350],
      [0, 400],
    ]);
  });
});

describe('long runs', () => {
  it('ends when a quantum left is below the clock resolution (RR polling, 5,000 jobs: livelocked at t = 1.6e7 before)', () => {
    const sim = new TimeSharingSimulator(timeSharingConfig({ policy: 'rr', MPL_TOTAL: 3, plt: 0.3, n_jobs: 5000, seed: 1 })).run();
    expect(sim.finished).toBe(true);
    expect(sim.records).toHaveLength(5000);
  }, 60_000);
});

describe('page faults', () => {
  it('no task faults when the node fits in memory; overflow makes tasks fault', () => {
    const fit = run({ n: 1, policy: 'rr', MPL_TOTAL: 2 }, [local(0, 500, 100), local(1, 500, 100)]);
    expect(runMetrics(fit).page_faults).toBe(0);
    const over = run({ n: 1, policy: 'rr', MPL_TOTAL: 2 }, [local(0, 500, 200), local(1, 500, 200)]);
    expect(runMetrics(over).page_faults).toBeGreaterThan(0);
    expect(runMetrics(over).mem_load).toBeGreaterThan(1);
  });
});

describe('metric formulas', () => {
  it('eq. 2.3/2.6 mean over nodes of per-node means; eq. 2.4; eq. 2.5', () => {
    const recs = [
      { node: 0, local: true, trq: 10, faults: 1, cpu: 0, spin: 0, work: 0 },
      { node: 0, local: true, trq: 30, faults: 3, cpu: 0, spin: 0, work: 0 },
      { node: 1, local: true, trq: 100, faults: 0, cpu: 0, spin: 0, work: 0 },
    ];
    expect(nodeMean(recs, 3, (r) => r.trq)).toBe((20 + 100) / 2);
    expect(nodeMean(recs, 3, (r) => r.faults)).toBe((2 + 0) / 2);
    const jobs = [
      { id: 0, kind: 'parallel' as const, size: 2, tr: 200, tc: 100, trFast: 150 },
      { id: 1, kind: 'parallel' as const, size: 2, tr: 300, tc: 100, trFast: 300 },
    ];
    expect(slowdown(jobs)).toBe(2.5);
    expect(correlation(jobs)).toBeCloseTo(100 - ((50 / 200 + 0) / 2) * 100, 12);
  });
});

describe('configuration', () => {
  it('fills the thesis defaults', () => {
    const c = timeSharingConfig();
    expect([c.n, c.n_jobs, c.quantum, c.L, c.model.spin, c.model.latency * 2, c.model.mno, c.model.mem_min]).toEqual([8, 10000, 100, 1, 10, 10, 2, 0.95]);
  });
  it('names the JSON path and the unknown key', () => {
    expect(() => parseTimeSharingConfig({ MPL_TOTAL: 0 }, 'x.json')).toThrow(/x\.json: \$\.MPL_TOTAL/);
    expect(() => parseTimeSharingConfig({ policy: 'gang' }, 'x.json')).toThrow(/\$\.policy/);
    expect(() => parseTimeSharingConfig({ model: { quantm: 1 } }, 'x.json')).toThrow(/quantm/);
    expect(() => parseTimeSharingConfig({ model: { job_size: [4, 3] } }, 'x.json')).toThrow(/job_size/);
  });
});

describe('invariants (property)', () => {
  it('CPU time is conserved, every job finishes, queues stay consistent, slowdown >= 1', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...POLICIES),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom('blocking', 'non_blocking'),
        fc.constantFrom(undefined, ...WAIT_MODES),
        fc.integer({ min: 0, max: 1000 }),
        (policy, n, mpl, plt, pms, send, wait, seed) => {
          const cfg = timeSharingConfig({
            policy,
            n,
            MPL_TOTAL: mpl,
            plt,
            pms,
            send: send as 'blocking',
            ...(wait === undefined ? {} : { wait }),
            seed,
            n_jobs: 30,
            L: policy === 'csc' ? 0.5 : 1,
            model: { job_size: [1, 4], parallel_work: 300, local_work: 200 },
          });
          const sim = new TimeSharingSimulator(cfg);
          // step through time and check the queues at each stop
          for (let t = 50; !sim.finished && t < 1e7; t += 50) {
            sim.runUntil(t);
            for (const nd of sim.nodes) {
              const ready = nd.tasks.filter((x) => x.state === 'ready');
              expect(new Set(nd.rq)).toEqual(new Set(ready));
              expect(nd.rq.length).toBe(ready.length);
              expect(nd.tasks.length).toBeLessThanOrEqual(mpl);
              if (nd.running) expect(nd.running.state).toBe('running');
              for (const x of nd.rq) if (x.local) expect(x.de).toBeLessThanOrEqual(cfg.model.mno);
              expect(nd.rssUsed).toBeLessThanOrEqual(cfg.model.memory + 1e-6);
            }
          }
          expect(sim.finished).toBe(true);
          for (const r of sim.taskRecords) expect(r.cpu).toBeCloseTo(r.work, 6);
          for (const nd of sim.nodes) {
            const mine = sim.taskRecords.filter((r) => r.node === nd.index);
            expect(nd.busy).toBeCloseTo(
              mine.reduce((a, r) => a + r.cpu + r.spin, 0),
              5,
            );
          }
          for (const j of sim.records) expect(j.tr / j.tc).toBeGreaterThanOrEqual(1 - 1e-9);
        },
      ),
      { numRuns: 60, seed: 15 },
    );
  });
});
