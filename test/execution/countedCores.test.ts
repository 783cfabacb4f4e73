/**
 * The counted capacity (`capacity: 'counted'`, src/execution/countedCores.ts) on the engine: placements
 * counted per node group by hand, what it refuses and why, the engine contract on the Slurm preset that
 * runs it, and the same schedules as the core capacity where a group's cores are interchangeable (the
 * Slurm preset on three groups and three partitions, fast-check).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CheckedRun, checkEngine, type TranscriptEntry } from '../../src/core/engineChecker.js';
import { InputError } from '../../src/core/errors.js';
import { derive } from '../../src/core/rng.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import { loadPlatform } from '../../src/platform/loader.js';
import { Platform } from '../../src/platform/platform.js';
import { nodeGroupSpecDescription, platformFromNodeGroups } from '../../src/platform/views.js';
import { multifactorOptionsOf, schedulerOf } from '../../src/scheduling/engineConfig.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import type { SlurmJobInput } from '../../src/slurm/config.js';
import { runSlurmPreset, slurmPresetConfig, slurmPresetJob } from '../../src/slurm/preset.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import { cli, ROOT } from '../helpers.js';
import { LAYOUT } from '../slurm/layouts.js';

/** Group `a`: 2 nodes x 4 cores; group `b`: 1 node x 8 cores; partition `pa` = {a}, `pb` = {b}, `all` = both (the default). */
const TWO_GROUPS = {
  groups: [
    { name: 'a', count: 2, cores: 4 },
    { name: 'b', count: 1, cores: 8 },
  ],
  partitions: [
    { name: 'all', groups: ['a', 'b'], default: true },
    { name: 'pa', groups: ['a'] },
    { name: 'pb', groups: ['b'], max_time: 100 },
  ],
};

function sim(jobs: Job[]): ClusterSimulator {
  return new ClusterSimulator(platformFromNodeGroups(TWO_GROUPS), jobs, { capacity: 'counted', unfit: 'reject', timeOrigin: 0 });
}

const mpi = (id: string, ntasks: number, runtime: number, extra: Partial<Job> = {}) => makeJob({ id, subtime: 0, ntasks, type: 'mpi', runtime, ...extra });

describe('the counted capacity', () => {
  it('counts free cores per group: a placement is a group per task, checked against the counts, taken and given back', () => {
    const s = sim([mpi('x', 6, 10), mpi('y', 5, 20, { partition: 'pb' }), mpi('z', 3, 5)]);
    const c = s.counted!;
    expect(s.capacity).toBe(c);
    expect([Array.from(c.groupFree), s.freeCores, s.busyCores, c.idleNodes]).toEqual([[8, 8], 16, 0, 3]);
    s.runUntil(0);
    const [x, y, z] = s.waiting;
    // x: 6 tasks on a; y: 5 on b (its partition); z: 2 on a and 1 on b
    s.startJob(x!, new Int32Array(6).fill(0));
    expect(s.placementError(y!, [0, 0, 0, 0, 0])).toBe("group a is not in the job's partition");
    expect(s.placementError(z!, [0, 0, 0])).toBe('group a has 2 cores free; the job puts 3 tasks there');
    expect(s.placementError(z!, [0, 2, 1])).toBe('group 2 does not exist');
    expect(s.placementError(z!, [0, 0])).toBe("expected 3 tasks' groups, got 2");
    s.startJob(y!, [1, 1, 1, 1, 1]);
    s.startJob(z!, [0, 1, 0]);
    // a: 8 - 6 - 2 = 0 free; b: 8 - 5 - 1 = 2 free; packed, no node of either group is empty
    expect([Array.from(c.groupFree), s.freeCores, s.busyCores, c.idleNodes]).toEqual([[0, 2], 2, 14, 0]);
    const ends: JobRecord[] = [];
    s.addListener({ onEnd: (_s, r) => void ends.push(r) });
    s.runUntil(Number.POSITIVE_INFINITY);
    // a job record's nodes are its groups, with its tasks on each
    expect(ends.map((r) => [r.job.id, r.finish, Array.from(r.nodes)])).toEqual([
      ['z', 5, [0, 1]],
      ['x', 10, [0]],
      ['y', 20, [1]],
    ]);
    expect([Array.from(c.groupFree), s.freeCores, s.busyCores, c.idleNodes, s.power]).toEqual([[8, 8], 16, 0, 3, 0]);
  });

  it("counts GPUs per group beside the cores: of the job's type (or any), free, in the cores' group", () => {
    const platform = platformFromNodeGroups({
      groups: [
        { name: 'v', count: 2, cores: 4, gpus: { count: 2, type: 'v100' } },
        { name: 'k', count: 1, cores: 4, gpus: { count: 1, type: 'k80' } },
        { name: 'c', count: 1, cores: 4 },
      ],
    });
    const gpuJob = (id: string, n: number, type?: string) =>
      makeJob({ id, subtime: 0, ntasks: 2, runtime: 10, gpus: { count: n, perNode: false, type, weight: 1 } });
    const x = gpuJob('x', 3, 'v100');
    const y = gpuJob('y', 2);
    const s = new ClusterSimulator(platform, [x, y], { capacity: 'counted', timeOrigin: 0 });
    const c = s.counted!;
    expect([Array.from(c.groupGpus), Array.from(c.groupGpuType), Array.from(c.groupFreeGpus)]).toEqual([
      [4, 1, 0],
      [0, 1, -1],
      [4, 1, 0],
    ]);
    expect(s.unfitReason(gpuJob('big', 2, 'k80'))).toBe('needs 2 GPUs of type k80 in one node group; the platform has at most 1');
    expect(s.unfitReason(makeJob({ id: 'pn', subtime: 0, ntasks: 2, nodes: 2, runtime: 1, gpus: { count: 1, perNode: true, weight: 1 } }))).toMatch(
      /on each node/,
    );
    s.runUntil(0);
    expect(() => s.startJob(x, [0, 0], { gpus: [1, 1, 1] })).toThrow(/GPU group 1 is not a group of the job's cores/);
    expect(() => s.startJob(x, [1, 1], { gpus: [1, 1, 1] })).toThrow(/group k has no GPUs of type v100/);
    expect(() => s.startJob(x, [0, 0], { gpus: [0, 0] })).toThrow(/expected 3 GPUs' groups, got 2/);
    s.startJob(x, [0, 0], { gpus: [0, 0, 0] });
    // y (any type): 1 v100 is left, not 2; the k80 group has 1
    expect(() => s.startJob(y, [0, 0], { gpus: [0, 0] })).toThrow(/group v has 1 GPUs free; the job takes 2 there/);
    expect([Array.from(c.groupFreeGpus), c.busyGpus]).toEqual([[1, 1, 0], 3]);
    s.runUntil(Number.POSITIVE_INFINITY);
    expect([Array.from(c.groupFreeGpus), c.busyGpus, s.jobsFinished]).toEqual([[4, 1, 0], 0, 1]);
  });

  it("idle nodes are the packed count: whole nodes' worth of free cores per group", () => {
    const s = sim([mpi('x', 3, 10), mpi('y', 1, 10)]);
    s.runUntil(0);
    const [x, y] = s.waiting;
    s.startJob(x!, [0, 0, 0]);
    // a has 5 free cores: one whole node of 4; b's node is empty
    expect(s.counted!.idleNodes).toBe(2);
    s.startJob(y!, [1]);
    expect(s.counted!.idleNodes).toBe(1);
  });

  it("refuses at submission what a count of cores cannot guarantee, saying why; the engine's per-core arrays do not exist", () => {
    const jobs = [
      mpi('big', 17, 1),
      mpi('mem', 2, 1, { mem: 100 }),
      mpi('shape', 4, 1, { nodes: 2 }),
      makeJob({ id: 'seq', subtime: 0, ntasks: 2, type: 'seq', runtime: 1 }),
      mpi('long', 2, 1, { partition: 'pb', reqTime: 500 }),
      mpi('nowhere', 2, 1, { partition: 'pz' }),
      mpi('ok', 16, 1),
    ];
    const s = sim(jobs);
    const why = new Map<string, string>();
    s.addListener({ onReject: (_s, r) => void why.set(r.job.id, r.job.id) });
    expect(s.unfitReason(jobs[0]!)).toBe('needs 17 cores; the platform offers 16');
    expect(s.unfitReason(jobs[1]!)).toMatch(/asks for memory; the counted capacity counts cores only/);
    expect(s.unfitReason(jobs[2]!)).toBe('asks for exactly 2 nodes; the counted capacity counts cores, not nodes');
    expect(s.unfitReason(jobs[3]!)).toBe('is a seq job of 2 tasks on one node; the counted capacity does not know nodes');
    expect(s.unfitReason(jobs[4]!)).toMatch(/MaxTime is 100 s/);
    expect(s.unfitReason(jobs[5]!)).toMatch(/partition "pz", which the platform does not have/);
    expect(s.unfitReason(jobs[6]!)).toBeNull();
    s.runUntil(0);
    expect([...why.keys()]).toEqual(['big', 'mem', 'shape', 'seq', 'long', 'nowhere']);
    expect(() => s.nodeFree).toThrow(/runs the counted capacity .* read `counted`/);
    // without memory enforced, memory is not asked of it
    const free = new ClusterSimulator(platformFromNodeGroups(TWO_GROUPS), [], { capacity: 'counted', enforceMemory: false });
    expect(free.unfitReason(jobs[1]!)).toBeNull();
  });

  it('refuses platforms it cannot count: processors that draw power, partitions that split a group', () => {
    const hetero = loadPlatform(`${ROOT}/data/platforms/hetero-20.json`);
    expect(() => new ClusterSimulator(hetero, [], { capacity: 'counted' })).toThrow(InputError);
    expect(() => new ClusterSimulator(hetero, [], { capacity: 'counted' })).toThrow(/no nodes to draw power: platform .* gives its processors power/);
    const d = nodeGroupSpecDescription({ groups: [{ name: 'a', count: 2, cores: 4 }] }, 'split');
    const split = Platform.fromDescription({ ...d, partitions: [{ name: 'p', nodes: ['a0'] }] });
    expect(Array.from(split.partitions[0]!.nodes)).toEqual([0]);
    expect(() => new ClusterSimulator(split, [], { capacity: 'counted' })).toThrow(/counts whole node groups: partition p holds 1 of group a's 2 nodes/);
    // and the engine's dimensions that need nodes
    expect(() => new ClusterSimulator(platformFromNodeGroups(TWO_GROUPS), [], { capacity: 'counted', malleable: 'steps' })).toThrow(/malleable steps/);
    expect(() => new ClusterSimulator(platformFromNodeGroups(TWO_GROUPS), [], { capacity: 'counted', semantics: 'irmasim' })).toThrow(/irmasim/);
  });

  it('runs fixed durations only (delay work, whole jobs); a one-task seq job is one core', () => {
    const ops = makeJob({ id: 'ops', subtime: 0, ntasks: 2, type: 'mpi', runtime: 0, work: 'ops', ops: 1e9 });
    expect(() => sim([ops]).runUntil(0)).toThrow(/job ops has ops work; the counted capacity runs fixed durations of whole jobs/);
    const one = makeJob({ id: 'one', subtime: 0, ntasks: 1, type: 'seq', runtime: 3 });
    const s = sim([one]);
    expect(s.unfitReason(one)).toBeNull();
    s.runUntil(0);
    s.startJob(one, [1]);
    expect(Array.from(s.counted!.groupFree)).toEqual([8, 7]);
    s.runUntil(Number.POSITIVE_INFINITY);
    expect([s.jobsFinished, s.now, Array.from(s.counted!.groupFree)]).toEqual([1, 3, [8, 8]]);
  });
});

/** Random Slurm jobs on `LAYOUT`: partitions, QOS, kills at the time limit, operator suspensions, a few too large for any one group. */
function slurmJobs(seed: number, n: number): SlurmJobInput[] {
  const rng = derive(seed, 'counted-capacity');
  const jobs: SlurmJobInput[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += Math.floor(rng.exponential(1 / 20));
    const run = 1 + Math.floor(rng.uniform(10, 600));
    const part = Math.floor(rng.uniform(0, 3));
    const job: SlurmJobInput = {
      id: i,
      submit: t,
      cores: rng.next() < 0.05 ? 13 : 1 + Math.floor(rng.uniform(0, 8)),
      timeLimit: Math.floor(run * rng.uniform(0.7, 2)) + 1,
      runTime: run,
      user: Math.floor(rng.uniform(0, 4)),
      partition: part,
      qos: rng.next() < 0.3 ? 1 : 0,
    };
    if (rng.next() < 0.15) {
      job.opAfter = Math.floor(rng.uniform(0, run));
      job.opFor = 1 + Math.floor(rng.uniform(0, 300));
    }
    jobs.push(job);
  }
  return jobs;
}

type Row = [number, number, string, number[]];

function presetRows(jobs: SlurmJobInput[], backfill: boolean, capacity: 'counted' | 'cores'): Map<number, Row> {
  const out = new Map<number, Row>();
  runSlurmPreset(
    LAYOUT,
    jobs,
    { users: 4, qosPriorities: [0, 500], backfill, bfInterval: 30, schedInterval: 60 },
    [
      { onEnd: (_s, r) => void out.set(Number(r.job.id), [r.start, r.finish, r.state, r.suspensions ? [...r.suspensions] : []]) },
      { onReject: (_s, r) => void out.set(Number(r.job.id), [Number.NaN, Number.NaN, 'rejected', []]) },
    ],
    capacity,
  );
  return out;
}

describe('the counted capacity gives the core capacity’s schedules where cores of a group are interchangeable', () => {
  it("the Slurm preset on three groups and three partitions, sched/builtin or backfill: every job's start, end, state and suspensions", () => {
    let started = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.boolean(), (seed, backfill) => {
        const jobs = slurmJobs(seed, 120);
        const counted = presetRows(jobs, backfill, 'counted');
        const cores = presetRows(jobs, backfill, 'cores');
        expect(counted.size).toBe(jobs.length);
        expect(counted).toEqual(cores);
        for (const r of counted.values())
          if (r[2] === 'rejected') refused++;
          else started++;
      }),
      { numRuns: 30, seed: 20261129 },
    );
    expect(refused).toBeGreaterThan(20);
    expect(started).toBeGreaterThan(3000);
  }, 120_000);
});

describe('simulate --engine with capacity "counted"', () => {
  it("gives the core capacity's summary under Slurm's passes; refuses what it cannot run, exit 2 naming why", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-counted-'));
    try {
      const platform = join(dir, 'groups.json');
      writeFileSync(platform, JSON.stringify({ groups: LAYOUT.groups, partitions: [{ name: 'all', groups: ['g2', 'g0', 'g1'] }] }));
      // 150 jobs of an SWF trace (any cores, as Slurm counts them)
      const rng = derive(3, 'counted-cli');
      let t = 0;
      const lines = Array.from({ length: 150 }, (_, i) => {
        t += Math.floor(rng.exponential(1 / 15));
        const run = 10 + Math.floor(rng.uniform(0, 500));
        const procs = 1 + Math.floor(rng.uniform(0, 8));
        const limit = Math.floor(run * rng.uniform(0.8, 2));
        return `${i + 1} ${t} -1 ${run} ${procs} -1 -1 ${procs} ${limit} -1 1 ${1 + (i % 4)} -1 -1 -1 -1 -1 -1`;
      });
      const workload = join(dir, 'jobs.swf');
      writeFileSync(workload, `; MaxProcs: 36\n${lines.join('\n')}\n`);
      const engine = (capacity: string) =>
        JSON.stringify({ capacity, pass_clock: { slurm: { main: 'slurm', within: 'group', sched_interval: 60, backfill: { interval: 30 } } } });
      const run = (capacity: string) =>
        cli(['simulate', '--platform', platform, '--workload', workload, '--policy', 'multifactor:first', '--engine', engine(capacity), '--json']);
      const counted = run('counted');
      const cores = run('cores');
      expect(counted.code, counted.stderr).toBe(0);
      expect(cores.code, cores.stderr).toBe(0);
      const sc = JSON.parse(counted.stdout);
      expect(sc).toEqual(JSON.parse(cores.stdout));
      // every job runs, and they queue (the groups taken in the partition's order, g2 first, on both capacities)
      expect(sc.jobs_finished).toBe(150);
      expect(sc.mean_wait).toBeGreaterThan(100);
      const easy = cli(['simulate', '--platform', platform, '--workload', workload, '--policy', 'fcfs:first+easy', '--engine', '{"capacity": "counted"}']);
      expect(easy.code).toBe(2);
      expect(easy.stderr).toMatch(/capacity: "counted" places jobs by counts of a node group's cores, which Slurm's passes read/);
      const power = cli([
        'simulate',
        '--platform',
        `${ROOT}/data/platforms/hetero-20.json`,
        '--workload',
        workload,
        '--engine',
        engine('counted'),
        '--policy',
        'multifactor:first',
      ]);
      expect(power.code).toBe(2);
      expect(power.stderr).toMatch(/the counted capacity has no nodes to draw power: platform hetero-20 gives its processors power/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the engine contract on the Slurm preset (counted capacity, Slurm’s clock, backfill, operator suspensions)', () => {
  it('passes the engine checker', () => {
    const make = (): CheckedRun => {
      const config = { users: 4, qosPriorities: [0, 500], bfInterval: 30 };
      const engine = slurmPresetConfig(LAYOUT, config);
      const names = LAYOUT.partitions.map((q) => q.name);
      const jobs = slurmJobs(7, 150).map((j) => slurmPresetJob(j, names));
      const sim = new ClusterSimulator(platformFromNodeGroups(LAYOUT), jobs, {
        capacity: 'counted',
        passClock: 'requested',
        walltimeKill: true,
        timeOrigin: 0,
        unfit: 'reject',
      });
      const scheduler = schedulerOf(engine, makeScheduler('multifactor:first', { multifactor: multifactorOptionsOf(engine) }));
      sim.setScheduler(scheduler);
      scheduler.attach?.(sim);
      const transcript: TranscriptEntry[] = [];
      sim.addListener({
        onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
        onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: Array.from(rj.nodes).join(' ') }),
        onSuspend: (s, rj) => void transcript.push({ type: 'suspend', job: rj.job.id, time: s.now }),
        onResume: (s, rj) => void transcript.push({ type: 'resume', job: rj.job.id, time: s.now }),
        onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now, detail: rec.state }),
        onReject: (s, rec) => void transcript.push({ type: 'reject', job: rec.job.id, time: s.now }),
      });
      return { engine: sim, transcript };
    };
    const r = checkEngine(make, { name: 'slurm preset', seed: 3 });
    expect(r.jobs).toBe(150);
    expect(r.ended + r.rejected).toBe(150);
    expect(r.rejected).toBeGreaterThan(0);
  }, 120_000);
});
