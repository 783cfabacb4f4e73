/**
 * Slurm-v0 on the Slurm preset (`engine: "one"`, src/slurm/presetRun.ts) against Slurm-v0 on the Slurm engine
 * (`engine: "slurm"`, the reference): the same observations, rewards, masks, `terminated`/`truncated`, infos and
 * `info.metrics`, bit for bit, for random seeds, configurations and action sequences over all 12 actions; counts
 * show that the actions change what the cases compare. One short episode's numbers are pinned (golden, from the
 * Slurm engine), and the stepped preset's reconfiguration is checked by hand on schedules small enough to follow.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FixedSettingAgent, runSlurmEpisode } from '../../agents/slurm/index.js';
import { SLURM_ACTIONS, SlurmEnv, loadSlurmEnvContext } from '../../envs/slurm/index.js';
import { PRIORITY_PROFILES } from '../../envs/slurm/slurmEnv.js';
import type { SlurmConfig, SlurmJobInput, SlurmSchedulingChange } from '../../src/slurm/config.js';
import { SlurmEngine } from '../../src/slurm/engine.js';
import { SlurmPlatform, type SlurmPlatformSpec } from '../../src/slurm/platform.js';
import { SlurmPresetRun } from '../../src/slurm/presetRun.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';
import { DEFAULT_PRIORITY } from '../../src/slurm/priority.js';

/** One step's outcome as bits: the observation's bytes, the reward's float64, the flags and the info (metrics included). */
function stepBits(r: { observation: Float32Array; reward?: number; terminated?: boolean; truncated?: boolean; info: unknown }): string {
  const reward = r.reward === undefined ? '' : Buffer.from(new Float64Array([r.reward]).buffer).toString('hex');
  return `${Buffer.from(r.observation.buffer, r.observation.byteOffset, r.observation.byteLength).toString('hex')}|${reward}|${r.terminated}|${r.truncated}|${JSON.stringify(r.info)}`;
}

/** Plays `actions` (cycled) on `engine` from `seed`: every step's bits and mask, and the backfill starts under each action. */
function play(engine: 'slurm' | 'one', config: Record<string, unknown>, seed: number, actions: number[], maxSteps: number) {
  const env = new SlurmEnv(loadSlurmEnvContext({ ...config, engine }));
  const bits = [stepBits(env.reset({ seed }))];
  const backfilledUnder = new Array<number>(SLURM_ACTIONS).fill(0);
  const backfilled = () => (engine === 'one' ? (env.simulator as SlurmPresetRun).backfilled : (env.simulator as SlurmEngine).stats.backfilled);
  let steps = 0;
  let ended = false;
  while (!ended && steps < maxSteps) {
    const act = actions[steps % actions.length]!;
    const before = backfilled();
    const r = env.step(act);
    steps++;
    bits.push(`${stepBits(r)}|${Array.from(env.actionMask()).join('')}`);
    backfilledUnder[act]! += backfilled() - before;
    ended = r.terminated || r.truncated;
  }
  return { bits, steps, ended, backfilledUnder };
}

/**
 * Plays `actions` (cycled) on the Slurm preset from `seed` and expects the Slurm engine's episode: every step's
 * observation, reward, flags, info and mask (its recorded golden, test/golden/slurmEngine.ts).
 */
function playBoth(config: Record<string, unknown>, seed: number, actions: number[], maxSteps = 400) {
  const b = play('one', config, seed, actions, maxSteps);
  expectSlurmEngine('slurm-v0', { config, seed, actions, maxSteps }, b.bits, () => play('slurm', config, seed, actions, maxSteps).bits);
  return b;
}

describe('Slurm-v0 on the Slurm preset (engine: "one") gives the Slurm engine\'s episodes, bit for bit', () => {
  it('random seeds, configurations and action sequences over all 12 actions: every observation, reward, mask, flag, info and metrics', () => {
    const backfilled = new Array<number>(SLURM_ACTIONS).fill(0);
    const used = new Array<number>(SLURM_ACTIONS).fill(0);
    let steps = 0;
    let ended = 0;
    let truncated = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.record({
          jobs: fc.integer({ min: 200, max: 800 }),
          nodes: fc.integer({ min: 8, max: 40 }),
          period: fc.constantFrom(60, 300, 600, 1800, 3600),
          users: fc.integer({ min: 1, max: 20 }),
          load: fc.constantFrom(0.8, 0.95, 1.2, 1.5),
          max_steps: fc.constantFrom(5, 100_000),
        }),
        fc.array(fc.integer({ min: 0, max: SLURM_ACTIONS - 1 }), { minLength: 1, maxLength: 40 }),
        (seed, config, actions) => {
          const r = playBoth(config, seed, actions);
          steps += r.steps;
          if (r.ended) ended++;
          if (r.steps === config.max_steps) truncated++;
          for (let x = 0; x < SLURM_ACTIONS; x++) backfilled[x]! += r.backfilledUnder[x]!;
          for (let i = 0; i < r.steps; i++) used[actions[i % actions.length]!]!++;
        },
      ),
      { numRuns: 100, seed: 4242 },
    );
    // every action was taken, episodes ended and were truncated, and both backfill settings started jobs
    expect(used.every((n) => n > 0)).toBe(true);
    expect(ended).toBe(100);
    expect(truncated).toBeGreaterThan(0);
    expect(steps).toBeGreaterThan(400);
    console.log(`Slurm-v0 differential: ${steps} steps; backfill starts by action: ${backfilled.join(' ')}; steps by action: ${used.join(' ')}`);
    for (const x of [0, 1, 3, 4, 5, 7]) expect(backfilled[x], `backfill starts under action ${x}`).toBeGreaterThan(0);
  });

  it('each priority profile and each backfill setting changes the episode (fixed settings), on both engines alike', () => {
    const ctx = { jobs: 400, nodes: 4, period: 1800, users: 6, load: 1.2 };
    const runs = Array.from({ length: SLURM_ACTIONS }, (_, a) => {
      const episode = (engine: 'slurm' | 'one') => {
        const r = runSlurmEpisode(new SlurmEnv(loadSlurmEnvContext({ ...ctx, engine })), new FixedSettingAgent(a), 3);
        return { return: r.return, metrics: r.metrics };
      };
      const one = episode('one');
      expectSlurmEngine('slurm-v0-fixed', { ctx, action: a, seed: 3 }, one, () => episode('slurm'));
      return one.metrics;
    });
    // under sched/builtin from the start nothing is backfilled; under sched/backfill something is
    console.log(`fixed settings: backfill starts ${runs.map((m) => m.backfilled).join(' ')}; mean wait ${runs.map((m) => m.mean_wait.toFixed(1)).join(' ')}`);
    for (let a = 0; a < SLURM_ACTIONS; a++) {
      if (a >= 8) expect(runs[a]!.backfilled, `action ${a}`).toBe(0);
      else if (a % 4 !== 2) expect(runs[a]!.backfilled, `action ${a}`).toBeGreaterThan(0);
    }
    // the four profiles give four episodes (their metrics) within each backfill setting; sched/builtin another than
    // sched/backfill but under favour-small (whose main pass leaves the backfill nothing to start). Here no
    // reservation lies beyond an hour: bf_window's 1 h is 24 h's episode (its change is checked by hand below)
    const episode = (a: number) => JSON.stringify(runs[a]!);
    for (const bf of [0, 4, 8]) expect(new Set([0, 1, 2, 3].map((p) => episode(bf + p))).size, `backfill setting ${bf / 4}`).toBe(4);
    for (const p of [0, 1, 3]) expect(episode(8 + p), `profile ${p}`).not.toBe(episode(p));
  });

  it("one short episode, pinned (the Slurm engine's numbers): rewards, the end and its metrics", () => {
    const config = { jobs: 100, nodes: 4, period: 30, users: 3, load: 1.2 };
    const actions = [0, 9, 6, 3, 8, 1, 10, 5];
    const got: number[] = [];
    let last: ReturnType<SlurmEnv['step']> | null = null;
    for (const engine of ['slurm', 'one'] as const) {
      if (engine === 'slurm') continue;
      const env = new SlurmEnv(loadSlurmEnvContext({ ...config, engine }));
      env.reset({ seed: 7 });
      const rewards: number[] = [];
      for (let i = 0; ; i++) {
        const r = env.step(actions[i % actions.length]!);
        rewards.push(r.reward);
        if (r.terminated || r.truncated) {
          last = r;
          break;
        }
      }
      got.push(...rewards);
    }
    expect(got.length).toBe(GOLDEN.steps);
    expect(got.map((x) => Number(x.toPrecision(12)))).toEqual(GOLDEN.rewards);
    const m = last!.info.metrics!;
    expect([m.jobs, m.refused, m.timeouts, m.suspended_jobs, m.backfilled]).toEqual(GOLDEN.counts);
    expect(Number(m.mean_wait.toPrecision(12))).toBe(GOLDEN.meanWait);
    expect(Number(m.mean_slowdown.toPrecision(12))).toBe(GOLDEN.meanSlowdown);
  });
});

/** The short episode's numbers on the Slurm engine (the reference), to 12 significant digits. */
const GOLDEN = {
  steps: 20,
  rewards: [0, 0, -0.288052766099, 0, -0.291056956387, -1.28783730223, -0.00934908754892, 0, 2.84217094304e-16, -0.0068062817806, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  // jobs, refused, timeouts, suspended, backfilled
  counts: [100, 7, 0, 1, 19],
  meanWait: 4.7743954778,
  meanSlowdown: 3.02484128391,
};

/** One group of `nodes` nodes of `cores` cores, one partition. */
const spec = (nodes: number, cores: number): SlurmPlatformSpec => ({
  groups: [{ name: 'n', count: nodes, cores }],
  partitions: [{ name: 'p', groups: ['n'] }],
});

/**
 * Every job's `[start, end]` by id when `jobs` run on `platform` under `config` with `change` at `at` (none when
 * null), on the stepped preset; the Slurm engine's run (the reference) gives the same.
 */
function rowsWith(platform: SlurmPlatformSpec, jobs: SlurmJobInput[], config: Partial<SlurmConfig>, at: number, change: SlurmSchedulingChange | null) {
  const run = new SlurmPresetRun(platform, jobs, config);
  const rows = new Map<number, [number, number]>();
  run.sim.addListener({ onEnd: (_s, rec) => void rows.set(Number(rec.job.id), [rec.start, rec.finish]) });
  run.runUntil(at);
  if (change !== null) run.setScheduling(change);
  run.runUntil(1e6);
  expectSlurmEngine('stepped-rows', { platform, jobs, config, at, change }, rows, () => {
    const e = new SlurmEngine(new SlurmPlatform(platform), config);
    const want = new Map<number, [number, number]>();
    e.onFinish((J, s) => void want.set(J.id[s]!, [J.start[s]!, J.end[s]!]));
    e.stream(jobs);
    e.runUntil(at);
    if (change !== null) e.setScheduling(change);
    e.runUntil(1e6);
    return want;
  });
  return { rows, backfilled: run.backfilled };
}

describe('the stepped Slurm preset (SlurmPresetRun): reconfiguration mid-run, by hand', () => {
  const job = (id: number, submit: number, cores: number, runTime: number, timeLimit = runTime): SlurmJobInput => ({
    id,
    submit,
    cores,
    runTime,
    timeLimit,
    user: 0,
  });

  it('a weight change recomputes the waiting jobs at once: the next pass starts them in the new order', () => {
    // 4 cores: job 0 holds them all until 100; job 1 (3 cores) came before job 2 (2 cores); FIFO by age
    const jobs = [job(0, 0, 4, 100), job(1, 1, 3, 50), job(2, 2, 2, 40)];
    const config = { backfill: false, priority: { ...DEFAULT_PRIORITY, ...PRIORITY_PROFILES[1]!.priority } };
    // favour small at 50: job 2's size factor (4 - 2 + 1) / 4 beats job 1's (4 - 3 + 1) / 4 (ages: weight 1000 over 7 days);
    // at 100 the main pass starts the first in order, and the other (3 + 2 > 4 cores) waits for its end
    const { rows } = rowsWith(spec(1, 4), jobs, config, 50, { priority: PRIORITY_PROFILES[2]!.priority });
    expect([rows.get(2), rows.get(1)]).toEqual([
      [100, 140],
      [140, 190],
    ]);
    // no change: job 1 first
    const same = rowsWith(spec(1, 4), jobs, config, 50, null).rows;
    expect([same.get(1), same.get(2)]).toEqual([
      [100, 150],
      [150, 190],
    ]);
  });

  it('backfill turned on mid-run: its first pass bf_interval (30 s) after the change; sched/builtin: none', () => {
    // job 0 holds 3 of 4 cores until 1000; job 1 (4 cores) waits and blocks the partition; job 2 (1 core, 60 s) fits before 1000
    const jobs = [job(0, 0, 3, 1000), job(1, 1, 4, 10), job(2, 2, 1, 10, 60)];
    const on = rowsWith(spec(1, 4), jobs, { backfill: false }, 100, { backfill: true });
    expect(on.rows.get(2)).toEqual([130, 140]);
    expect(on.backfilled).toBe(1);
    // sched/builtin throughout: job 2 waits behind job 1
    const off = rowsWith(spec(1, 4), jobs, { backfill: false }, 100, { backfill: false });
    expect(off.rows.get(2)).toEqual([1010, 1020]);
    expect(off.backfilled).toBe(0);
  });

  it("backfill turned off mid-run: the pass already armed runs, and the next ones while jobs wait (the Slurm engine's chain)", () => {
    // job 0 holds 3 of 4 cores until 1000; job 1 (4 cores) blocks; jobs 2 and 3 (1 core each, 60 s limits) come at 2 and 200
    const jobs = [job(0, 0, 3, 1000), job(1, 1, 4, 10), job(2, 2, 1, 10, 60), job(3, 200, 1, 10, 60)];
    // off at 10: the pass armed at the first submission (30) still runs, and so do its successors while job 1 waits
    const { rows, backfilled } = rowsWith(spec(1, 4), jobs, {}, 10, { backfill: false });
    expect([rows.get(2), rows.get(3)]).toEqual([
      [30, 40],
      [210, 220],
    ]);
    expect(backfilled).toBe(2);
  });

  it('bf_window shortened mid-run: a job whose start lies beyond it gets no reservation, and a long job is backfilled before it', () => {
    // job 0 holds 3 of 4 cores until 7200; job 1 (4 cores) can start at 7200; job 2 (1 core, 8000 s) would delay it
    const jobs = [job(0, 0, 3, 7200), job(1, 1, 4, 100), job(2, 2, 1, 8000)];
    const long = rowsWith(spec(1, 4), jobs, {}, 10, null).rows;
    expect([long.get(1), long.get(2)]).toEqual([
      [7200, 7300],
      [7300, 15300],
    ]);
    // a window of 1 h from 10 s on: the first pass (30) reserves nothing for job 1, and starts job 2
    const short = rowsWith(spec(1, 4), jobs, {}, 10, { bfWindow: 3600 }).rows;
    expect([short.get(2), short.get(1)]).toEqual([
      [30, 8030],
      [8030, 8130],
    ]);
  });

  it("an operator's suspension: the job ends where the Slurm engine ends it, to the bit ((resume + run) - run before)", () => {
    // (a submission of no short binary form: (start + run) - suspension would differ in the last bit)
    const s0 = 113.48457576648326;
    const jobs: SlurmJobInput[] = [{ ...job(0, s0, 1, 112, 180), opAfter: 92, opFor: 1794 }];
    const { rows } = rowsWith(spec(1, 4), jobs, {}, 0, null);
    const resumed = s0 + 92 + 1794;
    expect(rows.get(0)).toEqual([s0, resumed + 112 - 92]);
    expect(resumed + 112 - 92).not.toBe(resumed + (s0 + 112 - (s0 + 92)));
  });

  it('refuses by name a setting it cannot change, and takes one given at its value', () => {
    const run = new SlurmPresetRun(spec(1, 4), [job(0, 0, 1, 10)], {});
    expect(() => run.setScheduling({ bfInterval: 10 })).toThrow(/bfInterval: cannot change during a run/);
    expect(() => run.setScheduling({ priority: { calcPeriod: 60 } })).toThrow(/priority\.calcPeriod/);
    expect(() => run.setScheduling({ queueDepth: 5, priority: { decayHalfLife: 1 } })).toThrow(/queueDepth, priority\.decayHalfLife/);
    expect(() => run.setScheduling({ bfInterval: 30, priority: { ...PRIORITY_PROFILES[0]!.priority } })).not.toThrow();
    const noBackfill = new SlurmPresetRun({ groups: [{ name: 'n', count: 2, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] }, [job(0, 0, 1, 10)], {
      nodeSelect: true,
      backfill: false,
    });
    expect(() => noBackfill.setScheduling({ backfill: true })).toThrow(/backfill: nodeSelect with sched\/backfill/);
  });
});
