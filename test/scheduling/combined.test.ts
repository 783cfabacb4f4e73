/**
 * The combined scenario of the one engine (issue 42): malleable MPI jobs of two users with fair shares in
 * two partitions of hetero-20, with energy, under Slurm's multifactor priority and EASY backfilling.
 * Hand-computed multifactor priorities and fair share; partitions restrict placements and refuse jobs
 * beyond their limits; the scenario through `simulate --engine`, `compare --engine`, the engine checker
 * and JobNode-v0 (the env checker; masks only on a job's partition).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEnv } from '../../envs/checker.js';
import { makeContext, makeFromContext } from '../../envs/registry.js';
import { checkEngine, type TranscriptEntry } from '../../src/core/engineChecker.js';
import { ClusterSimulator, type JobRecord } from '../../src/execution/simulator.js';
import { loadPlatform, parsePlatform } from '../../src/platform/loader.js';
import { attachEngineConfig, multifactorOptionsOf, parseEngineConfig, simulatorOptionsOf } from '../../src/scheduling/engineConfig.js';
import { MultifactorSelection } from '../../src/scheduling/multifactor.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { loadWorkload } from '../../src/workload/index.js';
import { makeJob } from '../../src/workload/job.js';
import { cli, ROOT } from '../helpers.js';

const HETERO = `${ROOT}/data/platforms/hetero-20.json`;
const WORKLOAD = `${ROOT}/data/workloads/combined-200.json`;
const ENGINE = `${ROOT}/data/engines/combined.json`;
const engine = () => parseEngineConfig(JSON.parse(readFileSync(ENGINE, 'utf8')), ENGINE);

describe('multifactor priority with fair share on the one engine', () => {
  const platform = parsePlatform(
    { clusters: [{ id: 'c', nodes: [{ id: 'n', count: 2, memory_gb: 1, processors: [{ cores: 2, clock_rate: 1, dpflops_per_cycle: 1 }] }] }] },
    'two.json',
  );
  it('hand-computed: age, job size and the fair share of users who used their shares differently', () => {
    // weights: age 1000 (max age 1000 s), fair share 10000, size 0. Users a (share 1) and b (share 1).
    // a runs 4 cores from 0 to 100 s (400 core-s); b nothing. At t = 100 both submit a 1-core job:
    // a's fair share 2^(-1/0.5) = 0.25 -> 2500; b's 2^0 = 1 -> 10000; b's job goes first.
    const mf = new MultifactorSelection({
      priority: { weightAge: 1000, maxAge: 1000, weightFairshare: 10000, weightJobSize: 0, weightPartition: 0, calcPeriod: 50, decayHalfLife: 0 },
    });
    const jobs = [
      makeJob({ id: 'a-big', subtime: 0, ntasks: 4, runtime: 100, user: 'a' }),
      makeJob({ id: 'a-next', subtime: 100, ntasks: 1, runtime: 10, user: 'a' }),
      makeJob({ id: 'b-next', subtime: 100, ntasks: 1, runtime: 10, user: 'b' }),
    ];
    const sim = new ClusterSimulator(platform, jobs);
    mf.attach(sim);
    const order: string[][] = [];
    sim.setScheduler({
      schedule: (s) => {
        const o = mf.order(s.waiting, s.now);
        order.push(o.map((j) => j.id));
        // start the first waiting job on the first free cores
        const j = o[0]!;
        const cores: number[] = [];
        for (let c = 0; c < s.platform.coreCount && cores.length < j.ntasks; c++) if (s.coreOwner[c] === -1) cores.push(c);
        if (cores.length === j.ntasks) s.startJob(j, cores);
      },
    });
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(order[1]).toEqual(['b-next', 'a-next']);
    const L = mf.users;
    // the 400 core-s are in the ledger by t = 100 (two calc periods of 200)
    expect(L.usage[L.id('a')]).toBe(400);
    expect(mf.priorityOf(jobs[1]!, 100)).toBe(2500);
  });

  it('usage decays by half-lives at each calc period', () => {
    const mf = new MultifactorSelection({ priority: { calcPeriod: 100, decayHalfLife: 100, weightAge: 0, weightJobSize: 0, weightPartition: 0 } });
    const jobs = [
      makeJob({ id: 'x', subtime: 0, ntasks: 2, runtime: 100, user: 'u' }),
      makeJob({ id: 'late', subtime: 1000, ntasks: 1, runtime: 1, user: 'v' }),
    ];
    const sim = new ClusterSimulator(platform, jobs);
    mf.attach(sim);
    sim.setScheduler({
      schedule: (s) => {
        for (const j of s.waiting) s.startJob(j, j.ntasks === 2 ? [0, 1] : [2]);
      },
    });
    sim.runUntil(Number.POSITIVE_INFINITY);
    mf.order(sim.waiting, 1000);
    // 200 core-s folded at t = 100, then 9 more ticks to t = 1000, each halving it: 200 / 2^9
    expect(mf.users.usage[mf.users.id('u')]).toBeCloseTo(200 / 2 ** 9, 12);
  });

  it('a preempted job back in the queue accrues no usage until it starts again', () => {
    // u's 2-core job runs 0-30 s (60 core-s), is preempted at 30 s and waits until 130 s, then runs its 100 s
    // again (a delay job restarts: 200 core-s). No decay: u's usage is 260 core-s, not the 460 of a job that
    // kept accruing while it waited.
    const mf = new MultifactorSelection({ priority: { calcPeriod: 10, decayHalfLife: 0, weightAge: 0, weightJobSize: 0, weightPartition: 0 } });
    const x = makeJob({ id: 'x', subtime: 0, ntasks: 2, runtime: 100, user: 'u' });
    // v's job on the other node keeps the clock going to 130 s
    const y = makeJob({ id: 'y', subtime: 0, ntasks: 2, runtime: 130, user: 'v' });
    const sim = new ClusterSimulator(platform, [x, y]);
    mf.attach(sim);
    sim.runUntil(0);
    sim.startJob(y, [2, 3]);
    const rj = sim.startJob(x, [0, 1]);
    sim.runUntil(30);
    sim.preempt(rj);
    expect(sim.waiting).toEqual([x]);
    // (the engine stops at the decision point the preemption made, then runs to 130 s)
    while (sim.now < 130) sim.runUntil(130);
    expect(sim.now).toBe(130);
    sim.startJob(x, [0, 1]);
    sim.runUntil(Number.POSITIVE_INFINITY);
    expect(sim.now).toBe(230);
    mf.order(sim.waiting, 240);
    expect(mf.users.usage[mf.users.id('u')]).toBe(260);
  });

  it("a requeued job's priority is set anew at its requeue (its age from its submission), as Slurm sets it", () => {
    // age only (1,000 points at 1,000 s), no tick before the end: x (submitted at 0) is preempted at 300 s
    const mf = new MultifactorSelection({
      priority: { calcPeriod: 100_000, weightAge: 1000, maxAge: 1000, weightFairshare: 0, weightJobSize: 0, weightPartition: 0, weightQos: 0 },
    });
    const x = makeJob({ id: 'x', subtime: 0, ntasks: 2, runtime: 1000, user: 'u' });
    const sim = new ClusterSimulator(platform, [x]);
    mf.attach(sim);
    sim.runUntil(0);
    // its priority at its submission: age 0
    expect(mf.priorityOf(x, 0)).toBe(0);
    const rj = sim.startJob(x, [0, 1]);
    sim.runUntil(300);
    sim.preempt(rj);
    // 300 s old at its requeue: 300 points (not its submission's 0, and not recomputed later than the requeue)
    expect(mf.priorityOf(x, 600)).toBe(300);
  });
});

describe('partitions on the one engine', () => {
  const platform = loadPlatform(HETERO);
  it('a job runs only on the nodes of its partition, and a job beyond its partition limits is refused', () => {
    const records: JobRecord[] = [];
    const jobs = loadWorkload(WORKLOAD).jobs.slice(0, 60);
    const tooLong = makeJob({ id: 'too-long', subtime: jobs[5]!.subtime, ntasks: 4, runtime: 10, reqTime: 20_000, partition: 'edge', user: 'alice' });
    const unknown = makeJob({ id: 'nowhere', subtime: jobs[5]!.subtime, ntasks: 4, runtime: 10, partition: 'gpu' });
    const all = [...jobs.slice(0, 6), tooLong, unknown, ...jobs.slice(6)];
    runSimulation(platform, all, makeScheduler('fcfs+easy'), {
      unfit: 'reject',
      listeners: [{ onEnd: (_s, r) => void records.push(r), onReject: (_s, r) => void records.push(r) }],
    });
    const edge = platform.partitions[platform.partitionIndex('edge')]!;
    const core = platform.partitions[platform.partitionIndex('core')]!;
    for (const r of records) {
      if (r.state === 'rejected') continue;
      const mask = r.job.partition === 'edge' ? edge.nodeMask : core.nodeMask;
      for (const n of r.nodes) expect(mask[n], `${r.job.id} (${r.job.partition}) on node ${n}`).toBe(1);
    }
    expect(records.filter((r) => r.state === 'rejected').map((r) => r.job.id)).toEqual(['too-long', 'nowhere']);
    const probe = new ClusterSimulator(platform, []);
    expect(probe.unfitReason(tooLong)).toBe('asks for 20000 s in partition edge, whose MaxTime is 14400 s');
    expect(probe.unfitReason(unknown)).toMatch(/asks for partition "gpu", which the platform does not have \(it has all, edge, core\)/);
  });
});

/** The rows of a `simulate --out` directory's jobs.csv (header dropped), as strings. */
function jobRows(out: string): string[][] {
  return readFileSync(join(out, 'jobs.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}

/** Whether time `x` is on the grid `phase + k x period`. */
function on(x: number, period: number, phase: number): boolean {
  return Math.abs((x - phase) / period - Math.round((x - phase) / period)) < 1e-9;
}

describe('the combined scenario end to end', () => {
  it('simulate --engine and compare --engine run it (resizes, energy, both users)', () => {
    const s = cli(['simulate', '--workload', WORKLOAD, '--engine', ENGINE, '--policy', 'multifactor:first+easy']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/jobs finished\s+200/);
    expect(s.stdout).toMatch(/malleable jobs resized [1-9]\d* times/);
    const c = cli(['compare', '--workload', WORKLOAD, '--platform', HETERO, '--engine', ENGINE, '--policies', 'fcfs+easy,multifactor+easy', '--json']);
    expect(c.code, c.stderr).toBe(0);
    const rep = JSON.parse(c.stdout) as { policies: { name: string; energy: number }[] };
    expect(rep.policies.map((p) => p.name)).toEqual(['fcfs:first+easy', 'multifactor:first+easy']);
    for (const p of rep.policies) expect(p.energy).toBeGreaterThan(0);
    const bad = cli(['simulate', '--workload', WORKLOAD, '--engine', '{"malleable": "elastic"}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("clustergym simulate: error: --engine: $.malleable: Invalid enum value. Expected 'rigid' | 'steps', received 'elastic'");
  });

  it("simulate runs Slurm's pass clock and the preemption pass from --engine: every start at a pass the clock allows; a bad timer exits 2 naming it", () => {
    // the combined scenario's engine with Slurm's clock: no pass at a submission, a pass 0.5 s after a job end,
    // the periodic pass every 30 s, and a pass 0.5 s after each 300 s priority recalculation (from the first submission)
    const base = JSON.parse(readFileSync(ENGINE, 'utf8')) as Record<string, unknown>;
    const engine = JSON.stringify({ ...base, pass_clock: { slurm: { sched_interval: 30, sched_delay: 0.5 } }, preempt_type: 'partition_prio' });
    const startsOffClock = (engineArg: string): number => {
      const out = mkdtempSync(join(tmpdir(), 'cg-clock-'));
      try {
        const r = cli(['simulate', '--workload', WORKLOAD, '--engine', engineArg, '--policy', 'multifactor:first+easy', '--out', out]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/jobs finished\s+200/);
        const rows = jobRows(out);
        const ends = new Set(rows.map((r) => (Number(r[5]) + 0.5).toFixed(6)));
        const first = Math.min(...rows.map((r) => Number(r[3])));
        return rows.filter((r) => {
          const start = Number(r[4]);
          return !(ends.has(start.toFixed(6)) || on(start, 30, 0) || on(start, 300, first + 0.5));
        }).length;
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    };
    expect(startsOffClock(engine)).toBe(0);
    // the control: with a pass at every instant, jobs start at their submissions, off that clock
    expect(startsOffClock(ENGINE)).toBeGreaterThan(20);
    const bad = cli(['simulate', '--workload', WORKLOAD, '--engine', '{"pass_clock": {"slurm": {"sched_delay": -1}}}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('clustergym simulate: error: --engine: $.pass_clock.slurm.sched_delay: Number must be greater than or equal to 0');
  });

  it("simulate runs Slurm's main pass and backfill scheduler from --engine: every job ends, every start at a main or backfill pass; an EASY policy under them exits 2", () => {
    const base = JSON.parse(readFileSync(ENGINE, 'utf8')) as Record<string, unknown>;
    const engine = JSON.stringify({
      ...base,
      pass_clock: { slurm: { sched_interval: 60, sched_delay: 0.5, main: 'slurm', backfill: { interval: 30, grid: true } } },
    });
    const out = mkdtempSync(join(tmpdir(), 'cg-slurm-passes-'));
    try {
      const r = cli(['simulate', '--workload', WORKLOAD, '--engine', engine, '--policy', 'multifactor:first', '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/jobs finished\s+200/);
      const rows = jobRows(out);
      const ends = new Set(rows.map((x) => (Number(x[5]) + 0.5).toFixed(6)));
      const first = Math.min(...rows.map((x) => Number(x[3])));
      // a main pass (0.5 s after a job end, every 60 s, 0.5 s after a priority recalculation) or a backfill pass (every 30 s)
      const off = rows.filter((x) => {
        const start = Number(x[4]);
        return !(ends.has(start.toFixed(6)) || on(start, 30, 0) || on(start, 300, first + 0.5));
      });
      expect(off).toEqual([]);
      // backfill passes start jobs between the main passes (starts on the 30 s grid that is not the 60 s grid)
      expect(rows.filter((x) => on(Number(x[4]), 30, 0) && !on(Number(x[4]), 60, 0)).length).toBeGreaterThan(5);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    const easy = cli(['simulate', '--workload', WORKLOAD, '--engine', engine, '--policy', 'multifactor:first+easy']);
    expect(easy.code).toBe(2);
    expect(easy.stderr).toMatch(
      /pass_clock\.slurm\.main: Slurm's main scheduler walks a JOB:RESOURCE policy's queue without backfilling.*found multifactor:first\+easy/,
    );
  });

  it('fair share shows: under multifactor the user with the larger share waits less than under FCFS', () => {
    const platform = loadPlatform(HETERO);
    const jobs = loadWorkload(WORKLOAD).jobs;
    const e = engine();
    const waitOf = (policy: string) => {
      const w: Record<string, number[]> = { alice: [], bob: [] };
      runSimulation(platform, jobs, makeScheduler(policy, { multifactor: multifactorOptionsOf(e) }), {
        engine: e,
        listeners: [{ onEnd: (_s, r) => void w[r.job.user!]!.push(r.start - r.submit) }],
      });
      const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
      return { alice: mean(w.alice!), bob: mean(w.bob!) };
    };
    const fcfs = waitOf('fcfs:first+easy');
    const mf = waitOf('multifactor:first+easy');
    // alice has twice bob's share: multifactor moves waiting time from alice to bob
    expect(mf.alice / mf.bob).toBeLessThan(fcfs.alice / fcfs.bob);
  });

  it('keeps the engine contract', () => {
    const platform = loadPlatform(HETERO);
    const jobs = loadWorkload(WORKLOAD).jobs.slice(0, 50);
    const e = engine();
    const r = checkEngine(
      () => {
        const sim = new ClusterSimulator(platform, jobs, simulatorOptionsOf(e));
        attachEngineConfig(sim, e);
        sim.setScheduler(makeScheduler('multifactor+easy', { multifactor: multifactorOptionsOf(e) }));
        const transcript: TranscriptEntry[] = [];
        sim.addListener({
          onSubmit: (s, job) => void transcript.push({ type: 'submit', job: job.id, time: s.now }),
          onStart: (s, rj) => void transcript.push({ type: 'start', job: rj.job.id, time: s.now, detail: Array.from(rj.cores).join(' ') }),
          onResize: (s, rj, from, to) => void transcript.push({ type: 'resize', job: rj.job.id, time: s.now, detail: `${from}->${to}` }),
          onEnd: (s, rec) => void transcript.push({ type: 'end', job: rec.job.id, time: s.now }),
        });
        return { engine: sim, transcript };
      },
      { name: 'combined', seed: 3, slices: 60 },
    );
    expect(r.ended).toBe(50);
    expect(r.resizes).toBeGreaterThan(0);
  }, 120_000);

  it('JobNode-v0 on the combined setting: the env checker passes, and masks allow only a job partition', () => {
    const setting = JSON.parse(readFileSync(`${ROOT}/data/configs/combined.json`, 'utf8')) as { env: { config: Record<string, unknown> } };
    const config = { ...setting.env.config, platform: HETERO, generator: { ...(setting.env.config.generator as object), jobs: 40 } };
    const env = makeFromContext(makeContext('clustergym/JobNode-v0', config));
    const report = checkEnv(env, { episodes: 2, seed: 7 });
    expect(report.checks.length).toBeGreaterThan(5);
    const env2 = makeFromContext(makeContext('clustergym/JobNode-v0', config));
    // play random valid actions and check every allowed (job, node) is on the job's partition
    const platform = loadPlatform(HETERO);
    let r = env2.reset({ seed: 3 });
    const N = platform.nodeCount;
    let checked = 0;
    for (let step = 0; step < 400 && !(r as { terminated?: boolean }).terminated; step++) {
      const mask = env2.actionMask();
      const allowed: number[] = [];
      for (let a = 0; a < mask.length; a++) if (mask[a]) allowed.push(a);
      for (const a of allowed) {
        if (a === mask.length - 1) continue;
        const job = (env2 as unknown as { window: { partition?: string }[] }).window[Math.floor(a / N)]!;
        const part = platform.partitions[platform.partitionIndex(job.partition ?? 'all')]!;
        expect(part.nodeMask[a % N]).toBe(1);
        checked++;
      }
      const res = env2.step(allowed[(step * 7919) % allowed.length]!);
      r = res;
      if (res.terminated || res.truncated) break;
    }
    expect(checked).toBeGreaterThan(20);
    env2.close();
  }, 120_000);
});
