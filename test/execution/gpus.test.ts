/**
 * GPUs on the one engine (issue 45): GPU placement checks, DL progress from the throughput table
 * (durations recomputed by hand on each GPU type, consolidated and spread), preemption back to the
 * queue keeping the steps done, GPU power in the energy, and the round pass clock's decision points.
 * The table is the synthetic fixture (data/gpu/throughputs-synthetic.json: invented rates).
 */
import { describe, expect, it } from 'vitest';
import { DlProgress } from '../../src/execution/dlProgress.js';
import { ClusterSimulator, type DecisionMaker, type JobRecord, type RunningJob } from '../../src/execution/simulator.js';
import { parsePlatform } from '../../src/platform/loader.js';
import type { Platform } from '../../src/platform/platform.js';
import { loadThroughputTable } from '../../src/workload/dlThroughput.js';
import { dlJob } from '../../src/workload/gavel.js';
import { type Job, makeJob } from '../../src/workload/job.js';
import { ROOT } from '../helpers.js';

const table = loadThroughputTable(`${ROOT}/data/gpu/throughputs-synthetic.json`);

/**
 * Nodes 0-1: 4 V100 each (GPUs 0-7); node 2: 4 P100 (8-11); nodes 3-4: 2 K80 each (12-15). 8 cores per
 * node (cores 8n .. 8n+7), 1 W static per processor and no dynamic power; GPUs idle 10/20/30 W, busy
 * 100/200/300 W (K80/P100/V100).
 */
function gpuPlatform(): Platform {
  const node = (count: number, gpus: object) => ({
    count,
    memory_gb: 64,
    processors: [{ count: 1, cores: 8, clock_rate: 1, dpflops_per_cycle: 1, static_power: 1, dynamic_power: 0, min_power: 1 }],
    gpus,
  });
  return parsePlatform(
    {
      name: 'gpu-test',
      models: { memory: 'none', comm: 'shared' },
      clusters: [
        {
          nodes: [
            node(2, { count: 4, type: 'v100', idle_power: 30, busy_power: 300 }),
            node(1, { count: 4, type: 'p100', idle_power: 20, busy_power: 200 }),
            node(2, { count: 2, type: 'k80', idle_power: 10, busy_power: 100 }),
          ],
        },
      ],
    },
    'gpu-test',
  );
}

const conv32 = (id: string, gpus: number, steps: number, subtime = 0): Job =>
  dlJob({ id, subtime, gpus, jobType: 'ConvNet (batch size 32)', steps, runtime: 1, source: id });

/** Cores 8n .. 8n+k-1 of node n, for each `[node, k]`. */
function cores(...parts: [number, number][]): number[] {
  return parts.flatMap(([n, k]) => Array.from({ length: k }, (_, i) => 8 * n + i));
}

/** Runs `jobs`, starting each at its submission on the given cores and GPUs; the records by job id. */
function runPlaced(jobs: Job[], place: Record<string, [number[], number[]]>, options: { spreadRates?: boolean } = {}): Map<string, JobRecord> {
  const dl = new DlProgress(table, options);
  const sim = new ClusterSimulator(gpuPlatform(), jobs, { progress: [dl] });
  const out = new Map<string, JobRecord>();
  sim.addListener({ onEnd: (_s, r) => void out.set(r.job.id, r) });
  while (sim.advance()) for (const j of [...sim.waiting]) sim.startJob(j, place[j.id]![0], { gpus: place[j.id]![1] });
  return out;
}

describe('DL progress follows the throughput table', () => {
  // ConvNet (batch size 32), 720 steps: one-server rates V100 20/36/64.8 (1/2/4 GPUs), P100 10/18, K80 4/7.2;
  // spread rates V100 24 (2 GPUs) and 28.8 (4), K80 4.8 (2)
  it.each([
    ['V100, 1 GPU', [[0, 1]], [0], 720 / 20],
    ['V100, 2 GPUs on one server', [[0, 2]], [0, 1], 720 / 36],
    [
      'V100, 2 GPUs spread over two servers',
      [
        [0, 1],
        [1, 1],
      ],
      [0, 4],
      720 / 24,
    ],
    ['V100, 4 GPUs on one server', [[1, 4]], [4, 5, 6, 7], 720 / 64.8],
    [
      'V100, 4 GPUs spread (3 + 1)',
      [
        [0, 3],
        [1, 1],
      ],
      [0, 1, 2, 4],
      720 / 28.8,
    ],
    ['P100, 1 GPU', [[2, 1]], [8], 720 / 10],
    ['P100, 2 GPUs on one server', [[2, 2]], [8, 9], 720 / 18],
    ['K80, 1 GPU', [[3, 1]], [12], 720 / 4],
    ['K80, 2 GPUs on one server', [[3, 2]], [12, 13], 720 / 7.2],
    [
      'K80, 2 GPUs spread over two servers',
      [
        [3, 1],
        [4, 1],
      ],
      [12, 14],
      720 / 4.8,
    ],
  ] as [string, [number, number][], number[], number][])('%s', (_name, c, gpus, duration) => {
    const job = conv32('a', gpus.length, 720);
    const r = runPlaced([job], { a: [cores(...c), gpus] }).get('a')!;
    expect(r.finish - r.start).toBeCloseTo(duration, 9);
    expect(Array.from(r.gpus ?? [])).toEqual(gpus);
  });

  it('Seq2Seq has no spread K80 rate: the one-server rate applies (9 steps/s on 2 K80s)', () => {
    const job = dlJob({ id: 's', subtime: 0, gpus: 2, jobType: 'Seq2Seq (batch size 64)', steps: 900, runtime: 1, source: 's' });
    const r = runPlaced([job], { s: [cores([3, 1], [4, 1]), [12, 14]] }).get('s')!;
    expect(r.finish - r.start).toBeCloseTo(100, 9);
  });

  it('spreadRates: false runs spread GPUs at the one-server rate (Gavel simulator)', () => {
    const r = runPlaced([conv32('a', 2, 720)], { a: [cores([0, 1], [1, 1]), [0, 4]] }, { spreadRates: false }).get('a')!;
    expect(r.finish - r.start).toBeCloseTo(20, 9);
  });

  it('a job that arrives later starts then and runs its own steps', () => {
    const recs = runPlaced([conv32('a', 1, 200), conv32('b', 1, 100, 7)], { a: [cores([0, 1]), [0]], b: [cores([2, 1]), [8]] });
    expect(recs.get('a')!.finish).toBeCloseTo(10, 9);
    expect(recs.get('b')!.start).toBe(7);
    expect(recs.get('b')!.finish).toBeCloseTo(7 + 10, 9);
  });
});

describe('GPU placement checks', () => {
  function sim(jobs: Job[]) {
    const s = new ClusterSimulator(gpuPlatform(), jobs, { progress: [new DlProgress(table)] });
    s.advance();
    return s;
  }
  it.each([
    ['no GPU given', [0, 1], [], /expected 2 GPUs, got 0/],
    ['one GPU too many', [0, 1], [0, 1, 2], /expected 2 GPUs, got 3/],
    ['a GPU that does not exist', [0, 1], [0, 99], /GPU 99 does not exist/],
    ['a GPU twice', [0, 1], [1, 1], /twice/],
    ['a GPU on a node without the job', [0, 1], [0, 8], /GPU 8 is on node 2, where the job has no core/],
    ['two GPU types for a DL job', [0, 16], [0, 8], /one type; found v100 and p100/],
  ] as [string, number[], number[], RegExp][])('refuses %s, changing nothing', (_n, c, g, message) => {
    const s = sim([conv32('a', 2, 100)]);
    const job = s.waiting[0]!;
    expect(() => s.startJob(job, c, { gpus: g })).toThrow(message);
    expect(s.waiting).toHaveLength(1);
    expect(s.allocation.busyGpus).toBe(0);
    expect(s.busyCores).toBe(0);
  });

  it('refuses a busy GPU, and a GPU type the job does not ask for', () => {
    const typed = makeJob({ id: 't', subtime: 0, ntasks: 1, runtime: 5, gpus: { count: 1, perNode: false, type: 'p100', weight: 1 } });
    const s = sim([conv32('a', 1, 100), typed]);
    const [a, t] = s.waiting;
    s.startJob(a!, [0], { gpus: [0] });
    expect(() => s.startJob(t!, [1], { gpus: [0] })).toThrow(/GPU 0 is busy/);
    expect(() => s.startJob(t!, [1], { gpus: [1] })).toThrow(/GPU 1 is a v100; the job asks for p100/);
    s.startJob(t!, [16], { gpus: [8] });
    expect(s.allocation.freeGpusByType[s.platform.gpuTypeIndex('p100')]).toBe(3);
  });

  it('refuses a placement the table has no rate for (3 GPUs)', () => {
    const s = sim([conv32('a', 3, 100)]);
    expect(() => s.startJob(s.waiting[0]!, [0, 1, 2], { gpus: [0, 1, 2] })).toThrow(/no rate for ConvNet \(batch size 32\) on 3 v100 GPUs/);
  });

  it('per-node GPUs: each node of the job gets its count', () => {
    const job = makeJob({ id: 'p', subtime: 0, ntasks: 2, nodes: 2, type: 'mpi', runtime: 5, gpus: { count: 2, perNode: true, weight: 1 } });
    const s = sim([job]);
    expect(() => s.startJob(s.waiting[0]!, [0, 8], { gpus: [0, 1, 2, 4] })).toThrow(/node 0 gets 3 GPUs; the job asks for 2/);
    s.startJob(s.waiting[0]!, [0, 8], { gpus: [0, 1, 4, 5] });
    expect(s.allocation.nodeFreeGpus[0]).toBe(2);
  });

  it('a GPU request the platform can never meet is unfit', () => {
    const s = new ClusterSimulator(gpuPlatform(), [conv32('a', 16, 1)], { progress: [new DlProgress(table)], unfit: 'reject' });
    s.runUntil(Number.POSITIVE_INFINITY);
    expect(s.jobsRejected).toBe(1);
    expect(s.unfitReason(conv32('b', 16, 1))).toMatch(/needs 16 GPUs of one type; the platform has 8/);
  });
});

describe('preemption keeps the steps done', () => {
  it('a job preempted after 10 s on a K80 goes back to the queue and finishes its steps on a V100', () => {
    const dl = new DlProgress(table);
    const sim = new ClusterSimulator(gpuPlatform(), [conv32('a', 1, 720)], { progress: [dl] });
    const events: string[] = [];
    let rec: JobRecord | null = null;
    sim.addListener({
      onStart: (s, rj) => void events.push(`start ${s.now} gpu ${rj.gpus[0]}`),
      onRequeue: (s) => void events.push(`requeue ${s.now}`),
      onEnd: (_s, r) => {
        rec = r;
      },
    });
    sim.advance();
    const rj = sim.startJob(sim.waiting[0]!, [24], { gpus: [12] }); // K80: 4 steps/s
    sim.runUntil(10);
    sim.preempt(rj);
    expect(sim.waiting).toHaveLength(1);
    expect(sim.allocation.busyGpus).toBe(0);
    expect(dl.progressOf(sim.waiting[0]!)!.stepsDone).toBeCloseTo(40, 9);
    sim.startJob(sim.waiting[0]!, [0], { gpus: [0] }); // V100: 20 steps/s, 680 steps left
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(events).toEqual(['start 0 gpu 12', 'requeue 10', 'start 10 gpu 0']);
    expect(rec!.start).toBe(10); // the record is its last run's (main's RunningJob), its first start kept beside
    expect((rec as unknown as RunningJob).firstStart).toBe(0);
    expect(rec!.finish).toBeCloseTo(10 + 680 / 20, 9);
    expect(dl.progressOf(rec!.job)).toBeUndefined();
  });
});

describe('GPU power', () => {
  it('idle GPUs draw their idle power, held ones their busy power', () => {
    const dl = new DlProgress(table);
    const sim = new ClusterSimulator(gpuPlatform(), [conv32('a', 2, 720)], { progress: [dl] });
    // idle: 5 processors x 1 W + 8 V100 x 30 + 4 P100 x 20 + 4 K80 x 10
    const idle = 5 + 240 + 80 + 40;
    expect(sim.power).toBe(idle);
    sim.advance();
    sim.startJob(sim.waiting[0]!, [0, 1], { gpus: [0, 1] });
    expect(sim.power).toBe(idle + 2 * (300 - 30));
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(sim.power).toBe(idle);
    expect(sim.energy).toBeCloseTo((idle + 540) * 20, 6);
  });
});

describe('the round pass clock', () => {
  /** Records the decision points and starts the first waiting job on the first free V100 when none runs. */
  function recorder(times: number[]): DecisionMaker {
    return {
      schedule(sim) {
        times.push(sim.now);
        if (sim.runningCount > 0 || sim.waiting.length === 0) return;
        const gpu = sim.allocation.gpuOwner.indexOf(-1);
        sim.startJob(sim.waiting[0]!, [sim.platform.gpuNode[gpu]! * 8], { gpus: [gpu] });
      },
    };
  }
  it('passes at each round boundary, early when nothing runs any more, and at the next arrival after an idle round', () => {
    // a: 100 s on a V100 (2000 steps at 20/s), from 0; b arrives at 70, 30 s; c arrives at 500, 10 s
    const jobs = [conv32('a', 1, 2000), conv32('b', 1, 600, 70), conv32('c', 1, 200, 500)];
    const times: number[] = [];
    const sim = new ClusterSimulator(gpuPlatform(), jobs, { progress: [new DlProgress(table)], passClock: { every: 60 } });
    sim.setScheduler(recorder(times));
    sim.runUntil(Number.POSITIVE_INFINITY);
    // 0: a starts; 60: a runs (b arrives at 70: no pass); 100: a ended while b waits (an early
    // boundary): b starts; b ends at 130 with nothing waiting: no pass, the next round begins when c
    // arrives at 500
    expect(times).toEqual([0, 60, 100, 500]);
    expect(sim.now).toBeCloseTo(510, 9);
  });
});
