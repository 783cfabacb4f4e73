/**
 * Suspension in the one engine (`ClusterSimulator.suspend` / `resume`, a job's `operatorEvents`):
 * hand-computed scenarios, the Slurm engine's own (docs/slurm.md "Job lifecycle") among them, on every
 * progress model that suspends (fixed durations per job and per task, the rate model, malleable steps),
 * energy and fair-share usage of a suspended job, and the engine checker over a run with suspensions.
 */
import { describe, expect, it } from 'vitest';
import { checkEngine } from '../../src/core/engineChecker.js';
import { JobPhase } from '../../src/core/engine.js';
import { ClusterSimulator, type JobRecord, type RunningJob } from '../../src/execution/simulator.js';
import type { DecisionMaker } from '../../src/execution/simulatorOptions.js';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { MultifactorSelection } from '../../src/scheduling/multifactor.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import { DlProgress } from '../../src/execution/dlProgress.js';
import { parsePlatform } from '../../src/platform/loader.js';
import { loadThroughputTable } from '../../src/workload/dlThroughput.js';
import { dlJob } from '../../src/workload/gavel.js';
import { lifecycleTranscript, opsJob, ROOT, tfg2x2x4 } from '../helpers.js';

/** Starts waiting jobs in order on the lowest free cores (one task per core) while they fit. */
const firstFit: DecisionMaker = {
  schedule(sim) {
    for (const job of sim.queue.toArray()) {
      const cores: number[] = [];
      for (let c = 0; c < sim.platform.coreCount && cores.length < job.ntasks; c++) if (sim.coreOwner[c] === -1) cores.push(c);
      if (cores.length < job.ntasks) return;
      sim.startJob(job, Int32Array.from(cores));
    }
  },
};

interface Run {
  sim: ClusterSimulator;
  records: Map<string, JobRecord>;
  log: string[];
}

function run(platform = homogeneousPlatform(4, 4), jobs: Job[], scheduler: DecisionMaker = firstFit, options: { walltimeKill?: boolean } = {}): Run {
  const sim = new ClusterSimulator(platform, jobs, { walltimeKill: options.walltimeKill ?? false });
  sim.setScheduler(scheduler);
  const records = new Map<string, JobRecord>();
  const log: string[] = [];
  sim.addListener({
    onStart: (s, rj) => void log.push(`${s.now} start ${rj.job.id}`),
    onSuspend: (s, rj, phase) => void log.push(`${s.now} ${phase === JobPhase.Suspended ? 'suspend' : 'preempt'} ${rj.job.id}`),
    onResume: (s, rj) => void log.push(`${s.now} resume ${rj.job.id}`),
    onEnd: (s, rec) => {
      log.push(`${s.now} ${rec.state} ${rec.job.id}`);
      records.set(rec.job.id, rec);
    },
  });
  sim.runUntil(Number.POSITIVE_INFINITY);
  return { sim, records, log };
}

describe('operator suspensions (holding the cores)', () => {
  it('a job of 100 s suspended 30 s into its run for 50 s ends at 150 with [[30, 80]] (the Slurm engine scenario)', () => {
    const { records, log } = run(undefined, [
      makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, operatorEvents: [{ after: 30, duration: 50 }] }),
    ]);
    const a = records.get('a')!;
    expect(a.finish).toBe(150);
    expect(a.suspensions).toEqual([30, 80]);
    expect(log).toEqual(['0 start a', '30 suspend a', '80 resume a', '150 finished a']);
  });

  it('the time limit counts run time only: a 60 s limit and a 40 s suspension at 10 kill the job at 100', () => {
    const job = makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 500, operatorEvents: [{ after: 10, duration: 40 }] });
    const { records } = run(undefined, [{ ...job, reqTime: 60 }], firstFit, { walltimeKill: true });
    expect(records.get('a')!.state).toBe('killed');
    expect(records.get('a')!.finish).toBe(100);
  });

  it("the held cores stay the job's: a job that needs them waits for the end, not for the suspension", () => {
    const { records } = run(undefined, [
      makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, operatorEvents: [{ after: 30, duration: 50 }] }),
      makeJob({ id: 'b', subtime: 10, ntasks: 1, runtime: 5 }),
    ]);
    expect(records.get('b')!.start).toBe(150);
  });

  it('two operator events in a row count run time from the start: after 20 and after 50 of run', () => {
    const { records, log } = run(undefined, [
      makeJob({
        id: 'a',
        subtime: 0,
        ntasks: 2,
        type: 'mpi',
        runtime: 100,
        operatorEvents: [
          { after: 20, duration: 10 },
          { after: 50, duration: 5 },
        ],
      }),
    ]);
    // runs 0-20, suspended 20-30, runs 30-60 (50 s of run), suspended 60-65, runs 65-115
    expect(records.get('a')!.suspensions).toEqual([20, 30, 60, 65]);
    expect(records.get('a')!.finish).toBe(115);
    expect(log.filter((l) => l.includes('resume'))).toEqual(['30 resume a', '65 resume a']);
  });

  it('a suspension due at the instant the work ends does not happen (the end ranks first)', () => {
    const { records } = run(undefined, [makeJob({ id: 'a', subtime: 0, ntasks: 1, runtime: 40, operatorEvents: [{ after: 40, duration: 10 }] })]);
    expect(records.get('a')!.finish).toBe(40);
    expect(records.get('a')!.suspensions ?? null).toBeNull();
  });

  it('tasks of their own durations (a seq job) all wait: each ends later by the suspension', () => {
    const job = makeJob({
      id: 's',
      subtime: 0,
      ntasks: 3,
      type: 'seq',
      runtime: 10,
      tasks: [
        { runtime: 10, ops: 0, mem: 0, memVol: 0 },
        { runtime: 40, ops: 0, mem: 0, memVol: 0 },
        { runtime: 70, ops: 0, mem: 0, memVol: 0 },
      ],
      operatorEvents: [{ after: 20, duration: 100 }],
    });
    const { records } = run(undefined, [job]);
    const r = records.get('s')!;
    // task 0 ended at 10 (before the suspension); tasks 1 and 2 end at 140 and 170
    expect(Array.from(r.releases)).toEqual([10, 140, 170]);
    expect(r.finish).toBe(170);
  });

  it("energy: a suspended job's cores draw idle power (63 W busy, 4 W idle on tfg-2x2x4: 6,300 J + 50 s x 4 W)", () => {
    const platform = tfg2x2x4();
    const base = makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 });
    const plain = run(platform, [base]);
    const suspended = run(platform, [{ ...base, operatorEvents: [{ after: 30, duration: 50 }] }]);
    // one processor busy with 4 cores: 4 x 10 + 20 = 60 W, the three others idle at 0.05 x 20 = 1 W
    expect(plain.sim.energy).toBeCloseTo(6300, 9);
    expect(suspended.sim.energy).toBeCloseTo(6300 + 50 * 4, 9);
  });

  it('the rate model: an ops job ends later by its suspension, and its neighbour runs uncontended meanwhile', () => {
    // memory contention on: two tasks on one processor slow each other; a suspended one does not count
    const platform = tfg2x2x4({ memory: 'irmasim-v1' });
    const heavy = (id: string, extra: Partial<Job> = {}) => opsJob(id, 1, { memVol: 4e4, reqTime: 1e6, ...extra });
    const alone = run(platform, [heavy('x')]).records.get('x')!.finish;
    const together = run(platform, [heavy('x'), heavy('y')]).records.get('x')!.finish;
    expect(together).toBeGreaterThan(alone);
    // y suspended from its start for far longer than x needs: x runs as if alone
    const res = run(platform, [heavy('x'), heavy('y', { operatorEvents: [{ after: 0, duration: 1000 }] })]);
    expect(res.records.get('x')!.finish).toBeCloseTo(alone, 9);
    // y then runs alone too, from 1000 s on
    expect(res.records.get('y')!.finish).toBeCloseTo(1000 + alone, 9);
  });
});

describe('GPU jobs (their GPUs go with their cores)', () => {
  /** One node of 8 cores (one processor of 1 W, no dynamic power) and 2 V100s (idle 30 W, busy 300 W). */
  const gpuNode = () =>
    parsePlatform(
      {
        name: 'gpu-node',
        models: { memory: 'none', comm: 'shared' },
        clusters: [
          {
            nodes: [
              {
                count: 1,
                memory_gb: 64,
                processors: [{ count: 1, cores: 8, clock_rate: 1, dpflops_per_cycle: 1, static_power: 1, dynamic_power: 0, min_power: 1 }],
                gpus: { count: 2, type: 'v100', idle_power: 30, busy_power: 300 },
              },
            ],
          },
        ],
      },
      'gpu-node',
    );
  const IDLE = 1 + 2 * 30;
  const BUSY_STEP = 300 - 30;
  const gpuJob = (id: string, subtime: number, ntasks: number, gpus: number, runtime: number, extra: Partial<Job> = {}) =>
    makeJob({ id, subtime, ntasks, type: 'mpi', runtime, gpus: { count: gpus, perNode: false, weight: 1 }, ...extra });
  /** Starts waiting jobs in order on the lowest free cores and GPUs while both fit. */
  const gpuFirstFit: DecisionMaker = {
    schedule(sim) {
      for (const job of sim.queue.toArray()) {
        const cores: number[] = [];
        for (let c = 0; c < sim.platform.coreCount && cores.length < job.ntasks; c++) if (sim.coreOwner[c] === -1) cores.push(c);
        const gpus: number[] = [];
        for (let u = 0; u < sim.platform.gpuCount && gpus.length < (job.gpus?.count ?? 0); u++) if (sim.allocation.gpuOwner[u] === -1) gpus.push(u);
        if (cores.length < job.ntasks || gpus.length < (job.gpus?.count ?? 0)) return;
        sim.startJob(job, Int32Array.from(cores), { gpus: Int32Array.from(gpus) });
      }
    },
  };

  it('an operator suspension keeps the GPUs (a GPU job waits for them) and they draw idle power meanwhile', () => {
    // a: 2 GPUs x 100 s, suspended 30 s into its run for 50 s: ends at 150; b (1 GPU, 20 s, at 10) waits for a GPU
    const { sim, records, log } = run(
      gpuNode(),
      [gpuJob('a', 0, 2, 2, 100, { operatorEvents: [{ after: 30, duration: 50 }] }), gpuJob('b', 10, 1, 1, 20)],
      gpuFirstFit,
    );
    expect(records.get('a')!.finish).toBe(150);
    expect(records.get('a')!.suspensions).toEqual([30, 80]);
    expect(records.get('b')!.start).toBe(150);
    expect(log).toEqual(['0 start a', '30 suspend a', '80 resume a', '150 finished a', '150 start b', '170 finished b']);
    // 0-30 and 80-150 two busy GPUs, 30-80 none busy (held, idle), 150-170 one
    expect(sim.energy).toBeCloseTo((IDLE + 2 * BUSY_STEP) * 100 + IDLE * 50 + (IDLE + BUSY_STEP) * 20, 6);
    expect(sim.power).toBe(IDLE);
  });

  it('suspended without its cores (PreemptMode=SUSPEND) a job gives its GPUs up too, and takes them back when they are free', () => {
    // low: 2 cores, 2 GPUs, 100 s at 0; high: the same at 20 for 50 s takes low's cores and GPUs; low resumes at 70
    const preempting: DecisionMaker = {
      schedule(sim) {
        gpuFirstFit.schedule(sim);
        const high = sim.queue.toArray().find((j) => j.id === 'high');
        const low = [...sim.running()].find((rj) => rj.job.id === 'low' && rj.suspendedAt !== rj.suspendedAt);
        if (!high || !low) return;
        sim.suspend(low, false);
        expect(sim.allocation.busyGpus).toBe(0);
        sim.startJob(high, Int32Array.from(low.cores), { gpus: Int32Array.from(low.gpus) });
      },
    };
    const { sim, records, log } = run(gpuNode(), [gpuJob('low', 0, 2, 2, 100), gpuJob('high', 20, 2, 2, 50)], preempting);
    expect(log).toEqual(['0 start low', '20 preempt low', '20 start high', '70 finished high', '70 resume low', '150 finished low']);
    expect(records.get('low')!.suspensions).toEqual([20, 70]);
    expect(Array.from(records.get('low')!.gpus!)).toEqual([0, 1]);
    // two GPUs busy all along: low, then high, then low again
    expect(sim.energy).toBeCloseTo((IDLE + 2 * BUSY_STEP) * 150, 6);
  });

  it('resume is refused while its GPUs are taken, though its cores are free; a killed preempted job frees no GPU twice', () => {
    const sim = new ClusterSimulator(gpuNode(), [gpuJob('low', 0, 2, 2, 100), gpuJob('other', 20, 2, 2, 50)]);
    expect(sim.advance()).toBe(true); // t = 0: low waits
    const low: RunningJob = sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0, 1), { gpus: Int32Array.of(0, 1) });
    expect(sim.advance()).toBe(true); // t = 20: other waits
    sim.suspend(low, false);
    expect(sim.allocation.busyGpus).toBe(0);
    sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(2, 3), { gpus: Int32Array.of(0, 1) });
    expect(() => sim.resume(low)).toThrow(/job low: its cores or GPUs are not all free/);
    sim.kill(low);
    expect(sim.allocation.busyGpus).toBe(2);
    while (sim.advance());
    expect(sim.allocation.busyGpus).toBe(0);
    expect(Array.from(sim.allocation.gpuOwner)).toEqual([-1, -1]);
  });

  it('a deep-learning job (its progress model does not suspend) with operator events is refused at its start, naming the job', () => {
    const dl = new DlProgress(loadThroughputTable(`${ROOT}/data/gpu/throughputs-synthetic.json`));
    const job = {
      ...dlJob({ id: 'dl', subtime: 0, gpus: 1, jobType: 'ConvNet (batch size 32)', steps: 100, runtime: 1, source: 'dl' }),
      operatorEvents: [{ after: 10, duration: 5 }],
    };
    const sim = new ClusterSimulator(gpuNode(), [job], { progress: [dl] });
    expect(sim.advance()).toBe(true);
    expect(() => sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0), { gpus: Int32Array.of(0) })).toThrow(
      /job dl has operator events, but the DL throughput progress model runs it: suspending such jobs is not modelled/,
    );
    // nothing changed: it still waits, every core and GPU free
    expect(sim.queue.length).toBe(1);
    expect(sim.allocation.busyGpus).toBe(0);
  });
});

describe('suspension without the cores (PreemptMode=SUSPEND)', () => {
  /** A high job that does not fit takes the cores of the running low job, which resumes when they are free. */
  function preemptingScheduler(): DecisionMaker {
    return {
      schedule(sim) {
        firstFit.schedule(sim);
        const high = sim.queue.toArray().find((j) => j.id.startsWith('high'));
        if (!high) return;
        const low = [...sim.running()].find((rj) => rj.job.id.startsWith('low') && rj.suspendedAt !== rj.suspendedAt);
        if (!low) return;
        sim.suspend(low, false);
        sim.startJob(high, Int32Array.from(low.cores));
      },
    };
  }

  it('low 4 cores x 100 s at 0, high 4 cores x 50 s at 20: high runs 20-70, low ends at 150 with [[20, 70]] (the Slurm engine scenario)', () => {
    const { records, log } = run(
      undefined,
      [makeJob({ id: 'low', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 }), makeJob({ id: 'high', subtime: 20, ntasks: 4, type: 'mpi', runtime: 50 })],
      preemptingScheduler(),
    );
    expect(records.get('high')!.start).toBe(20);
    expect(records.get('high')!.finish).toBe(70);
    expect(records.get('low')!.finish).toBe(150);
    expect(records.get('low')!.suspensions).toEqual([20, 70]);
    expect(log).toEqual(['0 start low', '20 preempt low', '20 start high', '70 finished high', '70 resume low', '150 finished low']);
  });

  it('a preempted job resumes before waiting jobs are considered, on its own cores', () => {
    const { records } = run(
      undefined,
      [
        makeJob({ id: 'low', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 }),
        makeJob({ id: 'high', subtime: 20, ntasks: 4, type: 'mpi', runtime: 50 }),
        makeJob({ id: 'other', subtime: 30, ntasks: 2, runtime: 10 }),
      ],
      preemptingScheduler(),
    );
    // other waits from 30; at 70 low takes its cores back first, so other starts at low's end
    expect(records.get('other')!.start).toBe(150);
    expect(Array.from(records.get('low')!.cores)).toEqual([0, 1, 2, 3]);
  });

  it("waiting for a pass with a placement of the pass's (resumeWhere): it resumes there at the first pass that finds one, on other cores and nodes", () => {
    // two nodes of 4 cores: low on node 0 (cores 0-3) from 0, 100 s; at 20 high takes node 0 (50 s) and other node 1 (10 s)
    const sim = new ClusterSimulator(homogeneousPlatform(8, 4), [
      makeJob({ id: 'low', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 }),
      makeJob({ id: 'high', subtime: 20, ntasks: 4, type: 'mpi', runtime: 50 }),
      makeJob({ id: 'other', subtime: 20, ntasks: 4, type: 'mpi', runtime: 10 }),
    ]);
    const log: string[] = [];
    sim.addListener({
      onResume: (s, rj) => void log.push(`${s.now} resume ${rj.job.id} on node ${[...rj.nodes]}`),
      onEnd: (s, r) => void log.push(`${s.now} end ${r.job.id} on cores ${[...r.cores]}`),
    });
    // the first 4 free cores, or none
    const anyFree = () => {
      const free = [...sim.coreOwner.keys()].filter((c) => sim.coreOwner[c] === -1);
      return free.length >= 4 ? Int32Array.from(free.slice(0, 4)) : null;
    };
    expect(sim.advance()).toBe(true);
    const low = sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0, 1, 2, 3));
    expect(sim.advance()).toBe(true);
    expect(sim.now).toBe(20);
    sim.suspend(low, false, true, anyFree);
    const [high, other] = sim.queue.toArray();
    sim.startJob(high!, Int32Array.of(0, 1, 2, 3));
    sim.startJob(other!, Int32Array.of(4, 5, 6, 7));
    // no room at 20: it waits; at 30 other ends and the pass finds node 1 free: low resumes there, 80 s of run left
    sim.resumeAtPass();
    expect(low.suspendedAt).toBe(20);
    sim.runUntil(30);
    sim.resumeAtPass();
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(log).toEqual(['30 end other on cores 4,5,6,7', '30 resume low on node 1', '70 end high on cores 0,1,2,3', '110 end low on cores 4,5,6,7']);
    expect(low.suspensions).toEqual([20, 30]);
    expect([...low.perNode]).toEqual([4]);
    expect(sim.allocation.freeCores).toBe(8);
  });

  it('only a job of one end event without GPUs moves: one with tasks of its own is refused, naming it', () => {
    const sim = new ClusterSimulator(homogeneousPlatform(4, 4), [
      makeJob({
        id: 'seq',
        subtime: 0,
        ntasks: 2,
        type: 'seq',
        runtime: 10,
        tasks: [
          { runtime: 5, ops: 0, mem: 0, memVol: 0 },
          { runtime: 10, ops: 0, mem: 0, memVol: 0 },
        ],
      }),
    ]);
    expect(sim.advance()).toBe(true);
    const rj = sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0, 1));
    expect(() => sim.suspend(rj, false, true, () => null)).toThrow(/job seq: only a job .* resumes on another placement/);
    // (nothing changed: it runs on)
    expect(rj.suspendedAt).toBeNaN();
  });

  it('resume is refused while its cores are taken, and a killed preempted job frees nothing twice', () => {
    const platform = homogeneousPlatform(4, 4);
    const sim = new ClusterSimulator(platform, [
      makeJob({ id: 'low', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100 }),
      makeJob({ id: 'high', subtime: 20, ntasks: 4, type: 'mpi', runtime: 50 }),
    ]);
    expect(sim.advance()).toBe(true); // t = 0: low waits
    const low: RunningJob = sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0, 1, 2, 3));
    expect(sim.advance()).toBe(true); // t = 20: high waits
    expect(sim.now).toBe(20);
    sim.suspend(low, false);
    expect(sim.allocation.freeCores).toBe(4);
    sim.startJob(sim.queue.toArray()[0]!, Int32Array.of(0, 1, 2, 3));
    expect(() => sim.resume(low)).toThrow(/not all free/);
    sim.kill(low);
    expect(sim.allocation.freeCores).toBe(0);
    expect(sim.suspendedCount).toBe(0);
    while (sim.advance());
    expect(sim.allocation.freeCores).toBe(4);
  });
});

describe('malleable steps', () => {
  it('a malleable job alone ends later by exactly its suspension, with the same resizes', () => {
    const job = (ops?: Job['operatorEvents']) =>
      makeJob({
        id: 'm',
        subtime: 0,
        ntasks: 2,
        nodes: 2,
        type: 'mpi',
        runtime: 0,
        malleable: { spec: { min: 1, max: 4, pref: 2, factor: 2, inhibit: 10 }, steps: 100, speedup: { name: 'amdahl', t1: 4, serial: 0.1 } },
        ...(ops ? { operatorEvents: ops } : {}),
      });
    const go = (j: Job) => {
      const sim = new ClusterSimulator(homogeneousPlatform(4, 1), [j], { malleable: 'steps', passClock: 'event', resizeCost: { expand: 2, shrink: 1 } });
      // expand to the largest size whenever a point comes
      sim.setResizePolicy((s, rj) => ({ size: Math.min(4, rj.malleable!.size + s.expansionCount(rj)) }));
      sim.setScheduler(firstFit);
      const ended: JobRecord[] = [];
      let resizes = 0;
      sim.addListener({
        onEnd: (_s, r) => {
          ended.push(r);
        },
        onResize: () => {
          resizes++;
        },
      });
      sim.runUntil(Number.POSITIVE_INFINITY);
      return { rec: ended[0]!, resizes };
    };
    const plain = go(job());
    const paused = go(job([{ after: 25, duration: 40 }]));
    expect(paused.resizes).toBe(plain.resizes);
    expect(paused.rec.finish).toBeCloseTo(plain.rec.finish + 40, 9);
    expect(paused.rec.suspensions).toEqual([25, 65]);
  });
});

describe('fair-share usage of a suspended job', () => {
  it('accrues nothing while suspended: 4 cores x (30 + 70) s of run = 400 core-s, not 600', () => {
    const mf = new MultifactorSelection({ priority: { calcPeriod: 50, decayHalfLife: 0, weightAge: 0, weightJobSize: 0, weightPartition: 0 } });
    const sim = new ClusterSimulator(homogeneousPlatform(4, 4), [
      makeJob({ id: 'a', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, user: 'a', operatorEvents: [{ after: 30, duration: 50 }] }),
      // a later job of another user keeps the ledger's clock going to 200
      makeJob({ id: 'b', subtime: 200, ntasks: 1, runtime: 1, user: 'b' }),
    ]);
    mf.attach(sim);
    sim.setScheduler(firstFit);
    sim.runUntil(Number.POSITIVE_INFINITY);
    const L = mf.users;
    expect(L.usage[L.id('a')]).toBe(400);
  });
});

describe('the engine checker over a run with suspensions', () => {
  it('suspend and resume only while running / suspended, in time order', () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 40; i++)
      jobs.push(
        makeJob({
          id: `j${i}`,
          subtime: i * 7,
          ntasks: i % 2 ? 1 + (i % 4) : 1,
          type: i % 2 ? 'mpi' : 'seq',
          runtime: 20 + ((i * 13) % 50),
          ...(i % 3 === 0 ? { operatorEvents: [{ after: (i * 5) % 30, duration: 5 + (i % 20) }] } : {}),
        }),
      );
    checkEngine(
      () => {
        const sim = new ClusterSimulator(homogeneousPlatform(8, 4), jobs);
        sim.setScheduler(firstFit);
        return { engine: sim, transcript: lifecycleTranscript(sim) };
      },
      { name: 'one engine with operator suspensions' },
    );
  });
});
