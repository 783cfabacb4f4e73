/**
 * The engine checker (src/core/engineChecker.ts) on every engine: the main engine (documented model
 * and IRMaSim's semantics, with walltime kills and rejections), the DMR preset (queue
 * points), the Slurm preset (seed 004's defaults, preemption), the fairness preset and
 * the time-sharing dispatcher; and the checker itself refuses a broken engine.
 */
import { describe, expect, it } from 'vitest';
import type { DiscreteEventEngine } from '../../src/core/engine.js';
import { type CheckedRun, checkEngine, EngineCheckError, type TranscriptEntry } from '../../src/core/engineChecker.js';
import { derive } from '../../src/core/rng.js';
import { DlProgress } from '../../src/execution/dlProgress.js';
import { ClusterSimulator, type SimulationListener } from '../../src/execution/simulator.js';
import { fairnessCluster, TABLE_5_1, table51Workload } from '../../src/fairness/experiment.js';
import { fairPreset } from '../../src/fairness/preset.js';
import { dmrPreset } from '../../src/malleable/preset.js';
import { dmrPolicy } from '../../src/malleable/policy.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { loadPlatform } from '../../src/platform/loader.js';
import { schedulerByName } from '../../src/scheduling/multiResource.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { makeGpuScheduler } from '../../src/scheduling/gpu/rounds.js';
import { platformFromNodeGroups } from '../../src/platform/views.js';
import { loadThroughputTable, SYNTHETIC_THROUGHPUTS } from '../../src/workload/dlThroughput.js';
import { generateGavel } from '../../src/workload/gavel.js';
import type { SlurmJobInput } from '../../src/slurm/config.js';
import type { SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { SlurmPresetRun } from '../../src/slurm/presetRun.js';
import { raijinWorkload } from '../../src/slurm/workload.js';
import { timeSharingConfig } from '../../src/timesharing/config.js';
import { TimeSharingSimulator } from '../../src/timesharing/simulator.js';
import { loadWorkload } from '../../src/workload/index.js';
import { makeJob } from '../../src/workload/job.js';
import { ROOT } from '../helpers.js';

function mainRun(policy: string, semantics: 'clustergym' | 'irmasim', extra: { walltimeKill?: boolean; reject?: boolean } = {}): () => CheckedRun {
  return () => {
    const platform = loadPlatform(`${ROOT}/data/platforms/hetero-20.json`);
    let jobs = loadWorkload(`${ROOT}/data/workloads/mixed-300.json`).jobs.slice(0, 150);
    if (extra.reject) jobs = [...jobs.slice(0, 10), makeJob({ id: 'too-wide', subtime: jobs[10]!.subtime, ntasks: 100_000, runtime: 5 }), ...jobs.slice(10)];
    if (extra.walltimeKill) jobs = jobs.map((j, i) => (i % 7 === 0 ? { ...j, reqTime: Math.max(1, j.reqTime / 50) } : j));
    const sim = new ClusterSimulator(platform, jobs, { semantics, walltimeKill: extra.walltimeKill, unfit: extra.reject ? 'reject' : 'error' });
    sim.setScheduler(makeScheduler(policy));
    const transcript: TranscriptEntry[] = [];
    sim.addListener({
      onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
      onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: Array.from(rj.cores).join(' ') }),
      onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now, detail: rec.state }),
      onReject: (s, rec) => void transcript.push({ type: 'reject', job: rec.job.id, time: s.now }),
    });
    return { engine: sim, transcript };
  };
}

/** The GPU preset: DL jobs (Gavel's generator on the synthetic table), rounds of 360 s, a round scheduler that preempts. */
function gpuRun(policy: string): () => CheckedRun {
  return () => {
    const table = loadThroughputTable(SYNTHETIC_THROUGHPUTS);
    const platform = platformFromNodeGroups({
      groups: [
        { name: 'v', count: 2, cores: 8, gpus: { count: 4, type: 'v100' } },
        { name: 'p', count: 2, cores: 8, gpus: { count: 4, type: 'p100' } },
        { name: 'k', count: 4, cores: 8, gpus: { count: 2, type: 'k80' } },
      ],
    });
    const dl = new DlProgress(table);
    const jobs = generateGavel({ jobs: 60, arrivalsPerHour: 6 }, 3, table).jobs.map((j) => ({
      ...j,
      gpus: { ...j.gpus!, dl: { ...j.gpus!.dl!, steps: j.gpus!.dl!.steps / 20 } },
    }));
    const sim = new ClusterSimulator(platform, jobs, { progress: [dl], passClock: { every: 360 } });
    sim.setScheduler(makeGpuScheduler(policy, dl, { round: 360, seed: 3 }));
    const transcript: TranscriptEntry[] = [];
    sim.addListener({
      onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
      onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: Array.from(rj.gpus).join(' ') }),
      onRequeue: (s, rj) => void transcript.push({ type: 'requeue', job: rj.job.id, time: s.now }),
      onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now, detail: rec.state }),
    });
    return { engine: sim, transcript };
  };
}

function malleableRun(queuePoints: boolean): () => CheckedRun {
  return () => {
    const sim = dmrPreset(paperWorkload({ jobs: 40, seed: 3 }), { queuePoints, policy: dmrPolicy });
    const transcript: TranscriptEntry[] = [];
    sim.engine.addListener({
      onSubmit: (e, job) => void transcript.push({ type: 'submit', job: job.id, time: e.now }),
      onStart: (e, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: e.now, detail: String(rj.nodes.length) }),
      onResize: (e, rj, from, to) => void transcript.push({ type: 'resize', job: rj.job.id, time: e.now, detail: `${from}->${to}` }),
      onEnd: (e, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: e.now, detail: rec.state }),
    });
    return { engine: sim.engine, transcript };
  };
}

/** The Slurm preset (one engine, stepped: `SlurmPresetRun`): seed 004's defaults with operator suspensions, or preemption by requeue with refusals. */
function slurmRun(kind: 'raijin' | 'preempt'): () => CheckedRun {
  return () => {
    const transcript: TranscriptEntry[] = [];
    const listener: SimulationListener = {
      onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
      onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: String(rj.nodes[0]) }),
      onSuspend: (s, rj, phase) => void transcript.push({ type: 'suspend', job: rj.job.id, time: s.now, detail: String(phase) }),
      onResume: (s, rj) => void transcript.push({ type: 'resume', job: rj.job.id, time: s.now }),
      onRequeue: (s, rj) => void transcript.push({ type: 'requeue', job: rj.job.id, time: s.now }),
      onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now, detail: rec.state }),
      onReject: (s, rec) => void transcript.push({ type: 'reject', job: rec.job.id, time: s.now }),
    };
    if (kind === 'raijin') {
      const platform = { groups: [{ name: 'r', count: 16, cores: 16 }], partitions: [{ name: 'p', groups: ['r'], max_time: 172800 }] };
      const jobs = raijinWorkload({ jobs: 400, seed: 9, users: 10, totalCores: 256, maxRestCores: 128, suspendFraction: 0.1 });
      return { engine: new SlurmPresetRun(platform, jobs, { users: 10 }, [listener]).sim, transcript };
    }
    const platform: SlurmPlatformSpec = {
      groups: [{ name: 'a', count: 4, cores: 8 }],
      partitions: [
        { name: 'low', groups: ['a'], priority_tier: 1, preempt_mode: 'requeue' },
        { name: 'high', groups: ['a'], priority_tier: 2, max_time: 5000 },
      ],
    };
    const rng = derive(4, 'engine-checker/slurm');
    const jobs: SlurmJobInput[] = [];
    let t = 0;
    for (let i = 0; i < 150; i++) {
      t += Math.floor(rng.exponential(1 / 60));
      const run = Math.floor(rng.uniform(10, 900));
      // every 25th job asks for more than the high partition's MaxTime: refused
      jobs.push({
        id: i,
        submit: t,
        cores: 1 + Math.floor(rng.uniform(0, 16)),
        runTime: run,
        timeLimit: i % 25 === 0 ? 9000 : run * 2,
        user: i % 3,
        partition: i % 4 === 0 ? 1 : 0,
      });
    }
    return { engine: new SlurmPresetRun(platform, jobs, { users: 3 }, [listener]).sim, transcript };
  };
}

function fairRun(scheduler: string): () => CheckedRun {
  return () => {
    const passes = fairPreset(fairnessCluster(1), table51Workload(2, 0.02), schedulerByName(scheduler, 0.5), { users: TABLE_5_1.map((u) => u.user) });
    const transcript: TranscriptEntry[] = [];
    passes.sim.addListener({
      onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
      onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: String(rj.nodes[0]) }),
      onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now }),
      onReject: (s, rec) => void transcript.push({ type: 'reject', job: rec.job.id, time: s.now }),
    });
    return { engine: passes.sim, transcript };
  };
}

function timesharingRun(policy: 'rr' | 'csc'): () => CheckedRun {
  return () => {
    const transcript: TranscriptEntry[] = [];
    const cfg = timeSharingConfig({ n: 4, n_jobs: 60, policy, seed: 5 });
    const sim = new TimeSharingSimulator(cfg, undefined, [
      {
        onSubmit: (e, job) => void transcript.push({ type: 'submit', job: String(job.id), time: e.now }),
        onStart: (e, job) => void transcript.push({ type: 'start', job: String(job.id), time: e.now }),
        onEnd: (e, rec) => void transcript.push({ type: 'end', job: String(rec.id), time: e.now, detail: `${rec.tr}` }),
      },
    ]);
    return { engine: sim, transcript };
  };
}

describe('the engine contract on every engine', () => {
  const cases: [string, () => CheckedRun, { steppedClock?: boolean }][] = [
    ['main engine, fcfs+easy', mainRun('fcfs:first+easy', 'clustergym'), {}],
    [
      'main engine, sjf+conservative, walltime kills and a rejected job',
      mainRun('sjf:high_gflops+conservative', 'clustergym', { walltimeKill: true, reject: true }),
      {},
    ],
    ['main engine, irmasim semantics', mainRun('fcfs:first', 'irmasim'), { steppedClock: true }],
    ['main engine, GPU rounds, las (preemption between rounds)', gpuRun('las'), {}],
    ['main engine, GPU rounds, Gavel max-min fairness (agnostic)', gpuRun('max_min_fairness'), {}],
    ['DMR preset, dmr', malleableRun(false), {}],
    ['DMR preset, dmr with queue points', malleableRun(true), {}],
    ['one engine, Slurm preset, Raijin-like with operator suspensions', slurmRun('raijin'), {}],
    ['one engine, Slurm preset, preemption by requeue and refusals', slurmRun('preempt'), {}],
    ['one engine, fairness preset, drf', fairRun('drf'), {}],
    ['one engine, fairness preset, tetris', fairRun('tetris'), {}],
    ['time-sharing engine, rr', timesharingRun('rr'), {}],
    ['time-sharing engine, csc', timesharingRun('csc'), {}],
  ];
  for (const [name, make, opts] of cases) {
    it(name, () => {
      const r = checkEngine(make, { name, seed: 1, ...opts });
      expect(r.jobs).toBeGreaterThan(10);
      expect(r.ended + r.rejected).toBe(r.jobs);
      // sliced at least at every instant with events (several jobs may share one)
      expect(r.slices).toBeGreaterThan(r.jobs / 2);
    }, 120_000);
  }
  it('rejections, resizes and requeues are exercised', () => {
    expect(checkEngine(mainRun('fcfs:first', 'clustergym', { reject: true }), { name: 'reject' }).rejected).toBe(1);
    expect(checkEngine(malleableRun(false), { name: 'resize' }).resizes).toBeGreaterThan(0);
    const suspensions = { suspend: 0, requeue: 0 };
    const counted = () => {
      const run = slurmRun('preempt')();
      const push = run.transcript.push.bind(run.transcript);
      run.transcript.push = (...e: TranscriptEntry[]) => {
        for (const x of e) if (x.type === 'suspend' || x.type === 'requeue') suspensions[x.type]++;
        return push(...e);
      };
      return run;
    };
    checkEngine(counted, { name: 'requeue' });
    expect(suspensions.requeue).toBeGreaterThan(0);
  });
});

describe('the checker refuses a broken engine', () => {
  /** A toy engine of jobs at times 1..n, each running 1 s; `bug` breaks one rule of the contract. */
  function toy(bug: 'none' | 'clock' | 'end-twice' | 'random' | 'overshoot'): () => CheckedRun {
    return () => {
      const transcript: TranscriptEntry[] = [];
      const events = Array.from({ length: 20 }, (_, i) => [i + 1, i + 2]);
      let k = 0;
      const engine: DiscreteEventEngine & { now: number } = {
        now: 0,
        nextEventTime: () => (k < events.length * 2 ? events[k >> 1]![k & 1]! : Number.POSITIVE_INFINITY),
        get done() {
          return k >= events.length * 2;
        },
        runUntil(t: number) {
          while (k < events.length * 2 && engine.nextEventTime() <= (bug === 'overshoot' ? t + 5 : t)) {
            const time = engine.nextEventTime();
            engine.now = bug === 'clock' && k === 7 ? time - 10 : time;
            const job = String(k >> 1);
            if (k & 1) {
              transcript.push({ type: 'end', job, time: engine.now });
              if (bug === 'end-twice' && k === 5) transcript.push({ type: 'end', job, time: engine.now });
            } else {
              transcript.push({ type: 'submit', job, time: engine.now });
              transcript.push({ type: 'start', job, time: engine.now, detail: bug === 'random' ? String(Math.random()) : undefined });
            }
            k++;
          }
          if (t < Number.POSITIVE_INFINITY && t > engine.now && !engine.done) engine.now = t;
          return engine.now;
        },
      };
      return { engine, transcript };
    };
  }
  it('accepts the correct toy', () => {
    expect(checkEngine(toy('none'), { name: 'toy' }).jobs).toBe(20);
  });
  it.each([
    ['clock', /time went back|clock went back/],
    ['end-twice', /ends that does not run/],
    ['random', /second run \(determinism\)/],
    ['overshoot', /after|past it|before the next event/],
  ] as const)('refuses the toy with bug %s', (bug, message) => {
    expect(() => checkEngine(toy(bug), { name: 'toy' })).toThrow(EngineCheckError);
    expect(() => checkEngine(toy(bug), { name: 'toy' })).toThrow(message);
  });
});
