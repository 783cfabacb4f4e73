/**
 * Round-based GPU scheduling (issue 45): the round plan's gang placement (one server best fit, several
 * servers by fewest servers, a job keeping its own GPUs), the greedy orders on hand-computed runs (FIFO,
 * SRTF and LAS with migrations between rounds), and Gavel's mechanism (every round within capacity,
 * the time each job gets on each GPU type tracking its allocation, determinism).
 */
import { describe, expect, it } from 'vitest';
import { DlProgress } from '../../../src/execution/dlProgress.js';
import { ClusterSimulator, type JobRecord } from '../../../src/execution/simulator.js';
import type { Platform } from '../../../src/platform/platform.js';
import { platformFromNodeGroups } from '../../../src/platform/views.js';
import { RoundPlan } from '../../../src/scheduling/gpu/roundPlan.js';
import { GavelRounds, GreedyRounds, makeGpuScheduler } from '../../../src/scheduling/gpu/rounds.js';
import { loadThroughputTable, SYNTHETIC_THROUGHPUTS } from '../../../src/workload/dlThroughput.js';
import { dlJob, generateGavel } from '../../../src/workload/gavel.js';
import type { Job } from '../../../src/workload/job.js';

const table = loadThroughputTable(SYNTHETIC_THROUGHPUTS);

const job = (id: string, gpus: number, steps: number, jobType = 'ConvNet (batch size 32)', subtime = 0): Job =>
  dlJob({ id, subtime, gpus, jobType, steps, runtime: 1, source: id });

/** Nodes 0-1: 4 V100 each (GPUs 0-7); node 2: 4 P100 (8-11); nodes 3-4: 2 K80 each (12-15); 8 cores each. */
function platform(): Platform {
  return platformFromNodeGroups({
    groups: [
      { name: 'v', count: 2, cores: 8, gpus: { count: 4, type: 'v100' } },
      { name: 'p', count: 1, cores: 8, gpus: { count: 4, type: 'p100' } },
      { name: 'k', count: 2, cores: 8, gpus: { count: 2, type: 'k80' } },
    ],
  });
}

describe('the round plan', () => {
  it('places gangs: one server best fit, several servers fewest first, and keeps a job on its own GPUs', () => {
    const jobs = [job('a', 2, 1e6), job('b', 4, 1e6), job('c', 2, 1e6), job('d', 4, 1e6), job('e', 1, 1e6)];
    const sim = new ClusterSimulator(platform(), jobs, { progress: [new DlProgress(table)] });
    sim.advance();
    const [a, b, c, d, e] = sim.waiting;
    const V = sim.platform.gpuTypeIndex('v100');
    const K = sim.platform.gpuTypeIndex('k80');
    const plan = new RoundPlan(sim);
    expect(Array.from(plan.find(a!, V, 'one')!)).toEqual([0, 1]);
    plan.choose(a!, V, 'one');
    // node 0 has 2 left, node 1 has 4: best fit for 4 is node 1
    expect(plan.choose(b!, V, 'one')).toBe(true);
    expect(Array.from(plan.choices[1]!.gpus)).toEqual([4, 5, 6, 7]);
    expect(Array.from(plan.find(c!, V, 'one')!)).toEqual([2, 3]);
    expect(plan.find(c!, V, 'several')).toBeNull(); // 2 left on one node only: several servers cannot hold it
    plan.choose(c!, V, 'any');
    expect(plan.find(e!, V, 'any')).toBeNull();
    // 4 K80s: no server holds 4, two servers of 2 do
    expect(plan.find(d!, K, 'one')).toBeNull();
    expect(Array.from(plan.find(d!, K, 'several')!)).toEqual([12, 13, 14, 15]);
    plan.choose(d!, K, 'any');
    expect(plan.has(d!)).toBe(true);
    expect(plan.apply()).toBe(4);
    expect(sim.runningCount).toBe(4);
    expect(sim.allocation.busyGpus).toBe(12);

    // the next round: b again on V100 keeps its GPUs; a moves to the P100s; c and d are preempted
    let requeued = 0;
    sim.addListener({ onRequeue: () => void requeued++ });
    const next = new RoundPlan(sim);
    expect(next.freeByType[V]).toBe(8);
    next.choose(b!, V, 'one');
    expect(Array.from(next.choices[0]!.gpus)).toEqual([4, 5, 6, 7]);
    next.choose(a!, sim.platform.gpuTypeIndex('p100'), 'one');
    expect(next.apply()).toBe(1);
    expect(requeued).toBe(3);
    const running = [...sim.running()].map((r) => `${r.job.id}:${Array.from(r.gpus).join(' ')}`);
    expect(running.sort()).toEqual(['a:8 9', 'b:4 5 6 7']);
    expect(sim.waiting.map((j) => j.id).sort()).toEqual(['c', 'd', 'e']);
  });

  it('prefers GPUs no running job holds, so that a job chosen later keeps its own', () => {
    const sim = new ClusterSimulator(platform(), [job('a', 1, 1e6), job('b', 1, 1e6)], { progress: [new DlProgress(table)] });
    sim.advance();
    const [a, b] = sim.waiting;
    const plan = new RoundPlan(sim);
    plan.choose(a!, 0, 'one');
    plan.apply();
    const next = new RoundPlan(sim);
    // nodes 0 and 1 both have 4 V100s free in the plan; node 0 holds a's GPU 0: b goes to node 1
    next.choose(b!, 0, 'one');
    next.choose(a!, 0, 'one');
    next.apply();
    expect([...sim.running()].map((r) => `${r.job.id}:${r.gpus[0]}`).sort()).toEqual(['a:0', 'b:4']);
    // within a node: one node of 4 V100s, a on GPU 0; b planned first takes GPU 1, a keeps GPU 0
    const one = platformFromNodeGroups({ groups: [{ name: 'v', count: 1, cores: 8, gpus: { count: 4, type: 'v100' } }] });
    const sim2 = new ClusterSimulator(one, [job('a', 1, 1e6), job('b', 1, 1e6)], { progress: [new DlProgress(table)] });
    sim2.advance();
    const [a2, b2] = sim2.waiting;
    const r1 = new RoundPlan(sim2);
    r1.choose(a2!, 0, 'one');
    r1.apply();
    const r2 = new RoundPlan(sim2);
    r2.choose(b2!, 0, 'one');
    r2.choose(a2!, 0, 'one');
    expect(r2.apply()).toBe(1);
    expect([...sim2.running()].map((r) => `${r.job.id}:${r.gpus[0]}`).sort()).toEqual(['a:0', 'b:1']);
  });
});

/** One V100 (node 0) and one K80 (node 1); rounds of 60 s. */
function runGreedy(order: 'fifo' | 'srtf' | 'las', jobs: Job[]): Map<string, JobRecord> {
  const p = platformFromNodeGroups({
    groups: [
      { name: 'v', count: 1, cores: 2, gpus: { count: 1, type: 'v100' } },
      { name: 'k', count: 1, cores: 2, gpus: { count: 1, type: 'k80' } },
    ],
  });
  const dl = new DlProgress(table);
  const sim = new ClusterSimulator(p, jobs, { progress: [dl], passClock: { every: 60 } });
  sim.setScheduler(new GreedyRounds(order, dl));
  const out = new Map<string, JobRecord>();
  sim.addListener({ onEnd: (_s, r) => void out.set(r.job.id, r) });
  sim.runUntil(Number.POSITIVE_INFINITY);
  return out;
}

describe('the greedy orders, by hand (ConvNet 32: 20 steps/s on the V100, 4 on the K80)', () => {
  // a: 2000 steps (100 s on the V100), b: 800 steps (40 s on the V100, 200 s on the K80), both at 0
  const jobs = () => [job('a', 1, 2000), job('b', 1, 800)];
  it('FIFO: a on the V100, b on the K80; a ends at 100, b moves to the V100 at the round of 120 and ends at 136', () => {
    const r = runGreedy('fifo', jobs());
    expect(r.get('a')!.finish).toBeCloseTo(100, 9);
    // b: 120 s x 4 = 480 steps on the K80, 320 left at 20/s
    expect(r.get('b')!.finish).toBeCloseTo(136, 9);
  });
  it('SRTF: b (40 s left at best) on the V100, a on the K80; b ends at 40, a moves at 60 and ends at 148', () => {
    const r = runGreedy('srtf', jobs());
    expect(r.get('b')!.finish).toBeCloseTo(40, 9);
    // a: 60 s x 4 = 240 steps, 1760 left at 20/s
    expect(r.get('a')!.finish).toBeCloseTo(148, 9);
  });
  it('LAS: equal service, arrival breaks the tie: as FIFO here', () => {
    const r = runGreedy('las', jobs());
    expect(r.get('a')!.finish).toBeCloseTo(100, 9);
    expect(r.get('b')!.finish).toBeCloseTo(136, 9);
  });
});

describe("Gavel's mechanism", () => {
  /** Long jobs all at time 0 (nobody ends within `hours`): each job's seconds on each type. */
  function timeShares(policy: 'max_min_fairness_perf' | 'max_min_fairness', hours: number) {
    // six one-GPU jobs on one V100, one P100 and one K80: every GPU is contended, each type's allocations sum to 1
    const jobs = [
      job('a', 1, 1e9),
      job('b', 1, 1e9, 'RecSys (batch size 1024)'),
      job('c', 1, 1e9, 'Seq2Seq (batch size 64)'),
      job('d', 1, 1e9, 'ConvNet (batch size 128)'),
      job('e', 1, 1e9),
      job('f', 1, 1e9, 'Seq2Seq (batch size 64)'),
    ];
    const p = platformFromNodeGroups({
      groups: ['v100', 'p100', 'k80'].map((type) => ({ name: type, count: 1, cores: 2, gpus: { count: 1, type } })),
    });
    const dl = new DlProgress(table);
    const sim = new ClusterSimulator(p, jobs, { progress: [dl], passClock: { every: 360 } });
    const g = new GavelRounds(policy, dl, { round: 360, seed: 0 });
    sim.setScheduler(g);
    const time = new Map<string, Float64Array>();
    const since = new Map<string, number>();
    const cap = Float64Array.from(p.gpuTypeSpecs, (t) => t.count);
    const used = new Float64Array(p.gpuTypes.length);
    sim.addListener({
      onStart: (s, rj) => {
        since.set(rj.job.id, s.now);
        used[p.nodeGpuType[p.gpuNode[rj.gpus[0]!]!]!]! += rj.gpus.length;
        for (let t = 0; t < used.length; t++) expect(used[t]).toBeLessThanOrEqual(cap[t]!);
      },
      onRequeue: (s, rj) => {
        const type = p.nodeGpuType[p.gpuNode[rj.gpus[0]!]!]!;
        const row = time.get(rj.job.id) ?? new Float64Array(used.length);
        row[type]! += s.now - since.get(rj.job.id)!;
        time.set(rj.job.id, row);
        used[type]! -= rj.gpus.length;
      },
    });
    sim.runUntil(hours * 3600);
    // settle the running ones
    for (const rj of sim.running()) {
      const type = p.nodeGpuType[p.gpuNode[rj.gpus[0]!]!]!;
      const row = time.get(rj.job.id) ?? new Float64Array(used.length);
      row[type]! += sim.now - since.get(rj.job.id)!;
      time.set(rj.job.id, row);
    }
    return { sim, g, time, jobs: [...sim.running(), ...sim.waiting.map((j) => ({ job: j }))].map((r) => r.job) };
  }

  it.each(['max_min_fairness_perf', 'max_min_fairness'] as const)(
    '%s: each job gets its allocation of time on each type (within 3 %% over 100 h)',
    (policy) => {
      const { g, time, jobs, sim } = timeShares(policy, 100);
      expect(jobs).toHaveLength(6);
      for (const j of jobs) {
        const x = g.allocationOf(j)!;
        expect(x.reduce((a, b) => a + b, 0)).toBeGreaterThan(0.3);
        const t = time.get(j.id) ?? new Float64Array(x.length);
        for (let k = 0; k < x.length; k++) expect(Math.abs(t[k]! / sim.now - x[k]!)).toBeLessThan(0.03);
      }
    },
  );

  it('is deterministic, and the aware policy runs the generator faster than the agnostic one', () => {
    const p = platform();
    const run = (policy: string) => {
      const dl = new DlProgress(table);
      const sim = new ClusterSimulator(p, generateGavel({ jobs: 80, arrivalsPerHour: 3 }, 5, table).jobs, { progress: [dl], passClock: { every: 360 } });
      sim.setScheduler(makeGpuScheduler(policy, dl, { round: 360, seed: 5 }));
      let sum = 0;
      sim.addListener({
        onEnd: (_s, r) => {
          sum += r.finish - r.submit;
        },
      });
      sim.runUntil(Number.POSITIVE_INFINITY);
      return sum / 80;
    };
    const aware = run('max_min_fairness_perf');
    expect(run('max_min_fairness_perf')).toBe(aware);
    expect(aware).toBeLessThan(run('max_min_fairness'));
  });
});
