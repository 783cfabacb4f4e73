/**
 * Partition-priority preemption on the one engine (src/scheduling/preemption.ts): the Slurm engine's
 * hand-computed scenarios of docs/slurm.md ("Job lifecycle") with the same times, the victims' order
 * and count, and the engine configuration's `preempt_type`.
 */
import { describe, expect, it } from 'vitest';
import { checkEngine, type TranscriptEntry } from '../../src/core/engineChecker.js';
import { derive } from '../../src/core/rng.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import { parsePlatform } from '../../src/platform/loader.js';
import { parseEngineConfig } from '../../src/scheduling/engineConfig.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { PartitionPreemption } from '../../src/scheduling/preemption.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import { parseEnvConfig } from '../../envs/config.js';
import { lifecycleTranscript } from '../helpers.js';

/** `nodes` nodes of 4 cores with `partitions` over all of them (each `{ name, tier, mode }`; the first is the default). */
function partitioned(partitions: { name: string; tier: number; mode?: string }[], nodes = 1) {
  return parsePlatform(
    {
      name: 'tiers',
      models: { memory: 'none' },
      clusters: [{ id: 'c', nodes: [{ id: 'n', count: nodes, memory_gb: 16, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }] }] }],
      partitions: partitions.map((q, i) => ({
        name: q.name,
        clusters: ['c'],
        priority_tier: q.tier,
        ...(q.mode !== undefined ? { preempt_mode: q.mode } : {}),
        ...(i === 0 ? { default: true } : {}),
      })),
    },
    'tiers.json',
  );
}

/** `nodes` nodes of 4 cores: partition `low` (tier 1, `mode`) and `high` (tier 2) over all of them. */
function platform(mode: string, nodes = 1) {
  return partitioned(
    [
      { name: 'low', tier: 1, mode },
      { name: 'high', tier: 2 },
    ],
    nodes,
  );
}

function run(mode: string, jobs: Job[], nodes = 1) {
  return runOn(platform(mode, nodes), jobs);
}

/** A run of `fcfs:first` with the preemption pass on `p`: the jobs' records and a line per lifecycle event. */
function runOn(p: ReturnType<typeof parsePlatform>, jobs: Job[]) {
  const records = new Map<string, JobRecord>();
  const events: string[] = [];
  runSimulation(p, jobs, new PartitionPreemption(makeScheduler('fcfs:first')), {
    listeners: [
      {
        onStart: (s, rj) => void events.push(`${s.now} start ${rj.job.id}`),
        onSuspend: (s, rj) => void events.push(`${s.now} suspend ${rj.job.id}`),
        onResume: (s, rj) => void events.push(`${s.now} resume ${rj.job.id}`),
        onRequeue: (s, rj) => void events.push(`${s.now} requeue ${rj.job.id}`),
        onEnd: (s, rec) => {
          events.push(`${s.now} ${rec.state} ${rec.job.id}`);
          records.set(rec.job.id, rec);
        },
      },
    ],
  });
  return { records, events };
}

const low = (id = 'low', subtime = 0, ntasks = 4, runtime = 100) => makeJob({ id, subtime, ntasks, type: 'mpi', runtime, partition: 'low' });
const high = (id = 'high', subtime = 20, ntasks = 4, runtime = 50) => makeJob({ id, subtime, ntasks, type: 'mpi', runtime, partition: 'high' });

describe('partition-priority preemption: the Slurm engine scenarios (a 4-core node; low 4 x 100 s at 0, high 4 x 50 s at 20)', () => {
  it('suspend: high runs 20-70, low ends at 150 with [[20, 70]]', () => {
    const { records, events } = run('suspend', [low(), high()]);
    expect([records.get('high')!.start, records.get('high')!.finish]).toEqual([20, 70]);
    expect(records.get('low')!.finish).toBe(150);
    expect(records.get('low')!.suspensions).toEqual([20, 70]);
    expect(events).toEqual(['0 start low', '20 suspend low', '20 start high', '70 finished high', '70 resume low', '150 finished low']);
  });

  it('requeue: low restarts at 70 and ends at 170', () => {
    const { records, events } = run('requeue', [low(), high()]);
    expect(records.get('high')!.start).toBe(20);
    expect(records.get('low')!.start).toBe(70);
    expect(records.get('low')!.finish).toBe(170);
    expect(events).toContain('20 requeue low');
  });

  it('cancel: low ends at 20, killed', () => {
    const { records } = run('cancel', [low(), high()]);
    expect(records.get('low')!.state).toBe('killed');
    expect(records.get('low')!.finish).toBe(20);
    expect(records.get('high')!.start).toBe(20);
  });

  it('off: high starts at 100', () => {
    const { records } = run('off', [low(), high()]);
    expect(records.get('high')!.start).toBe(100);
    expect(records.get('low')!.suspensions ?? null).toBeNull();
  });
});

describe('the victims', () => {
  it('only as many as needed, the most recently started first', () => {
    // two nodes; low jobs a (node 0, from 0), b (node 1, from 5); high needs 4 cores at 20: b goes, a stays
    const { records, events } = run('suspend', [low('a', 0), low('b', 5), high('high', 20)], 2);
    expect(events).toContain('20 suspend b');
    expect(events.some((e) => e.endsWith('suspend a'))).toBe(false);
    expect(records.get('a')!.finish).toBe(100);
    expect(records.get('b')!.suspensions).toEqual([20, 70]);
    expect(records.get('b')!.finish).toBe(155);
  });

  it('the last to start or resume goes first: a job resumed after an operator suspension counts from its resumption', () => {
    // b starts at 0 and is suspended by an operator from 2 to 12; a starts at 5; high at 20 takes b (last run from 12)
    const b = makeJob({ id: 'b', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, partition: 'low', operatorEvents: [{ after: 2, duration: 10 }] });
    const { events } = run('requeue', [b, low('a', 5), high('high', 20)], 2);
    expect(events).toContain('20 requeue b');
    expect(events.some((e) => e.endsWith('requeue a'))).toBe(false);
  });

  it('none when even all would not do: the high job waits and nothing is preempted', () => {
    // 2 nodes of 4: x (low, preemptible) holds node 0, y (keep: same tier, preempt_mode off) 2 cores of
    // node 1; h (high) needs 8: 2 free + x's 4 = 6 < 8, so x stays and h waits for both ends
    const p = partitioned(
      [
        { name: 'low', tier: 1, mode: 'suspend' },
        { name: 'keep', tier: 1, mode: 'off' },
        { name: 'high', tier: 2 },
      ],
      2,
    );
    const { records, events } = runOn(p, [
      makeJob({ id: 'x', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, partition: 'low' }),
      makeJob({ id: 'y', subtime: 0, ntasks: 2, type: 'mpi', runtime: 60, partition: 'keep' }),
      makeJob({ id: 'h', subtime: 10, ntasks: 8, type: 'mpi', runtime: 5, partition: 'high' }),
    ]);
    const suspended = events.filter((e) => e.includes(' suspend ')).map((e) => e.split(' ')[2]);
    // at 60 y ends: 6 free + x's 4 >= 8, so x is suspended then
    expect(suspended).toEqual(['x']);
    expect(records.get('h')!.start).toBe(60);
  });

  it('a lower tier is taken before a higher one, whatever their starts', () => {
    const p = partitioned(
      [
        { name: 'scav', tier: 0, mode: 'requeue' },
        { name: 'low', tier: 1, mode: 'requeue' },
        { name: 'high', tier: 2 },
      ],
      2,
    );
    const { events } = runOn(p, [
      makeJob({ id: 'scav', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, partition: 'scav' }),
      makeJob({ id: 'low', subtime: 5, ntasks: 4, type: 'mpi', runtime: 100, partition: 'low' }),
      makeJob({ id: 'high', subtime: 20, ntasks: 4, type: 'mpi', runtime: 10, partition: 'high' }),
    ]);
    const requeued = events.filter((e) => e.includes(' requeue ')).map((e) => e.split(' ')[2]);
    expect(requeued).toEqual(['scav']);
  });
});

describe('a GPU job as the victim', () => {
  it('suspend: it gives its cores and GPUs up, the preemptor runs, and it takes both back at its end', () => {
    // one node of 4 cores and 2 GPUs; low (2 GPUs, 4 cores x 100 s at 0) placed with its GPUs by the inner pass
    const p = parsePlatform(
      {
        name: 'gpu-tiers',
        models: { memory: 'none' },
        clusters: [
          {
            id: 'c',
            nodes: [{ id: 'n', count: 1, memory_gb: 16, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }], gpus: { count: 2, type: 'v100' } }],
          },
        ],
        partitions: [
          { name: 'low', clusters: ['c'], priority_tier: 1, preempt_mode: 'suspend', default: true },
          { name: 'high', clusters: ['c'], priority_tier: 2 },
        ],
      },
      'gpu-tiers.json',
    );
    const withGpus = makeJob({ id: 'low', subtime: 0, ntasks: 4, type: 'mpi', runtime: 100, partition: 'low', gpus: { count: 2, perNode: false, weight: 1 } });
    const inner = {
      name: 'gpu-first',
      schedule(sim: ClusterSimulator) {
        const job = sim.queue.toArray().find((j) => j.id === 'low');
        if (job !== undefined && sim.allocation.freeCores === 4) sim.startJob(job, Int32Array.of(0, 1, 2, 3), { gpus: Int32Array.of(0, 1) });
      },
    };
    const gpusHeld: number[] = [];
    const events: string[] = [];
    const records = new Map<string, JobRecord>();
    runSimulation(p, [withGpus, high()], new PartitionPreemption(inner), {
      listeners: [
        {
          onStart: (s, rj) => void events.push(`${s.now} start ${rj.job.id}`),
          onSuspend: (s, rj) => {
            events.push(`${s.now} suspend ${rj.job.id}`);
            gpusHeld.push(s.allocation.busyGpus);
          },
          onResume: (s, rj) => {
            events.push(`${s.now} resume ${rj.job.id}`);
            gpusHeld.push(s.allocation.busyGpus);
          },
          onEnd: (s, rec) => {
            events.push(`${s.now} ${rec.state} ${rec.job.id}`);
            records.set(rec.job.id, rec);
          },
        },
      ],
    });
    expect(events).toEqual(['0 start low', '20 suspend low', '20 start high', '70 finished high', '70 resume low', '150 finished low']);
    // given up at its suspension, taken back at its resumption
    expect(gpusHeld).toEqual([0, 2]);
    expect(Array.from(records.get('low')!.gpus!)).toEqual([0, 1]);
  });
});

describe('the engine checker over random runs with preemption (each mode, with EASY)', () => {
  for (const mode of ['suspend', 'requeue', 'cancel'])
    it(`${mode}: every job's life is in order, and the platform is empty at the end`, () => {
      const rng = derive(7, `preemption/${mode}`);
      const jobs: Job[] = [];
      let t = 0;
      for (let i = 0; i < 150; i++) {
        t += Math.floor(rng.exponential(1 / 15));
        const part = rng.uniform(0, 1) < 0.3 ? 'high' : 'low';
        const runtime = 10 + Math.floor(rng.uniform(0, 200));
        jobs.push({
          ...makeJob({ id: `j${i}`, subtime: t, ntasks: 1 + Math.floor(rng.uniform(0, 8)), type: 'mpi', runtime, partition: part }),
          reqTime: runtime * 2,
        });
      }
      let sim: ClusterSimulator | null = null;
      let last: TranscriptEntry[] = [];
      checkEngine(
        () => {
          const s = new ClusterSimulator(platform(mode, 3), jobs);
          sim = s;
          const pass = new PartitionPreemption(makeScheduler('fcfs:first+easy'));
          s.setScheduler(pass);
          const transcript = lifecycleTranscript(s);
          last = transcript;
          return { engine: s, transcript };
        },
        { name: `one engine, partition_prio ${mode}` },
      );
      const s = sim! as ClusterSimulator;
      expect(s.allocation.freeCores).toBe(12);
      expect(s.suspendedCount).toBe(0);
      expect(s.jobsFinished + s.jobsKilled).toBe(150);
      // the runs do preempt (the check is not vacuous)
      const preempted = mode === 'cancel' ? s.jobsKilled : last.filter((e) => e.type === (mode === 'suspend' ? 'resume' : 'requeue')).length;
      expect(preempted).toBeGreaterThan(5);
    });
});

describe('configuration', () => {
  it("the engine configuration's preempt_type adds the pass to simulate's runs", () => {
    const jobs = [low(), high()];
    const without = runSimulation(platform('suspend'), jobs, makeScheduler('fcfs:first'), { engine: parseEngineConfig({}) });
    const withPass = runSimulation(platform('suspend'), jobs, makeScheduler('fcfs:first'), { engine: parseEngineConfig({ preempt_type: 'partition_prio' }) });
    // high waits for low's end without the pass (100), starts at once with it
    expect(without.summary.makespan).toBe(150);
    expect(withPass.summary.makespan).toBe(150);
    expect(without.summary.mean_wait).toBe(40);
    expect(withPass.summary.mean_wait).toBe(0);
  });

  it('the cluster environments refuse it, saying why', () => {
    expect(() => parseEnvConfig('clustergym/JobNode-v0', { engine: { preempt_type: 'partition_prio' } })).toThrow(/preempt_type.*no preemption pass/);
  });
});
