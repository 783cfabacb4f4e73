import { describe, expect, it } from 'vitest';
import { CscAgent, FixedShareAgent, runCoSchedEpisode, UnlimitedAgent } from '../../agents/timesharing/index.js';
import { checkEnv } from '../../envs/checker.js';
import { make } from '../../envs/registry.js';
import { COSCHED_ENV_ID, CoSchedEnv, loadCoSchedEnvContext } from '../../envs/timesharing/index.js';
import { runMetrics } from '../../src/timesharing/metrics.js';
import { simulate } from '../../src/timesharing/simulator.js';

const small = { sim: { n_jobs: 120, MPL_TOTAL: 3, n: 4 }, period: 1000 };

describe('clustergym/CoSched-v0', () => {
  it('is registered and passes checkEnv', () => {
    const env = make(COSCHED_ENV_ID, small);
    const report = checkEnv(env, { episodes: 2, exhaustiveStates: 1, seedChangesEpisode: true });
    expect(report.episodes).toBe(2);
  });

  it('validates its config with JSON paths (simulator keys under sim)', () => {
    expect(() => loadCoSchedEnvContext({ period: 0 })).toThrow(/\$\.period/);
    expect(() => loadCoSchedEnvContext({ sim: { MPL_TOTAL: 0 } })).toThrow(/\$\.sim\.MPL_TOTAL/);
    expect(() => loadCoSchedEnvContext({ perod: 1 })).toThrow(/perod/);
  });

  it('the unlimited agent reproduces the plain simulation; return = -(sum of slowdown - 1) / jobs', () => {
    const ctx = loadCoSchedEnvContext(small);
    const env = new CoSchedEnv(ctx);
    const r = runCoSchedEpisode(env, new UnlimitedAgent(), 7);
    const plain = runMetrics(simulate({ ...ctx.sim, seed: 7 }));
    // the whole run, not only the slowdowns: the clock stops at the last finish however far the
    // last period reaches, so the makespan and the time averages are the plain run's too
    for (const kind of ['parallel', 'local'] as const)
      for (const k of ['slowdown', 'overhead', 'page_faults', 'jobs', 'tasks'] as const) expect(r.metrics[kind][k]).toBeCloseTo(plain[kind][k], 12);
    expect(r.metrics.makespan).toBe(plain.makespan);
    expect(r.metrics.mem_load).toBeCloseTo(plain.mem_load, 12);
    expect(r.metrics.events).toBe(plain.events);
    const n = r.metrics.parallel.jobs + r.metrics.local.jobs;
    expect(n).toBe(120);
    const expected = -(r.metrics.parallel.slowdown * r.metrics.parallel.jobs + r.metrics.local.slowdown * r.metrics.local.jobs - n) / 120;
    expect(r.return).toBeCloseTo(expected, 9);
  });

  it('actions take effect: MPL 1 for parallel jobs lowers the parallel slowdown and raises the return, by stretching the run (the wait before admission is not counted); the thesis agents run', () => {
    const ctx = loadCoSchedEnvContext(small);
    const env = new CoSchedEnv(ctx);
    const one = { name: 'mpl1', act: (e: CoSchedEnv) => e.actionFor(1, 3) };
    const lowRun = runCoSchedEpisode(env, one, 3);
    const fullRun = runCoSchedEpisode(env, new UnlimitedAgent(), 3);
    const low = lowRun.metrics;
    const full = fullRun.metrics;
    expect(low.parallel.slowdown).toBeLessThan(full.parallel.slowdown);
    expect(lowRun.return).toBeGreaterThan(fullRun.return);
    expect(low.makespan).toBeGreaterThan(full.makespan);
    for (const a of [new FixedShareAgent(0.5), new CscAgent()]) expect(runCoSchedEpisode(env, a, 3).metrics.parallel.jobs).toBeGreaterThan(0);
  });
});
