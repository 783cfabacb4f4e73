/**
 * Gpu-v0 (envs/gpu, issue 45): the env checker, a one-job episode by hand (its JCT is its steps over
 * the table's rate on its fastest type, read from the fixture's JSON), the mask (a placement is
 * allowed where the round's plan finds the GPUs; ending a round with nothing chosen is not), every
 * heuristic agent making its round scheduler's engine run, the return as minus the mean JCT in hours,
 * Philly episodes, and the `gpu-placements` feature map.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gpuLayout } from '../../agents/gpu/features.js';
import { gpuSchedulerAgent, runGpuEpisode } from '../../agents/gpu/index.js';
import { linearAgent } from '../../agents/learning/flat.js';
import { checkEnv } from '../../envs/checker.js';
import { InvalidActionError } from '../../envs/errors.js';
import { GpuEnv, gpuEpisodeJobs, loadGpuEnvContext, PHILLY_CSV } from '../../envs/gpu/index.js';
import { allEnvIds, make } from '../../envs/registry.js';
import { runGpuSimulation } from '../../src/scheduling/gpu/run.js';
import { GPU_POLICIES } from '../../src/scheduling/gpu/rounds.js';
import { SYNTHETIC_THROUGHPUTS } from '../../src/workload/dlThroughput.js';

const fixture = { throughputs: SYNTHETIC_THROUGHPUTS };
const env = (config: object = {}) => new GpuEnv(loadGpuEnvContext({ ...fixture, ...config }));

describe('Gpu-v0', () => {
  it('is registered and passes checkEnv', () => {
    expect(allEnvIds()).toContain('clustergym/Gpu-v0');
    const e = make('clustergym/Gpu-v0', { ...fixture, jobs: 10, arrivals_per_hour: 12 });
    const report = checkEnv(e, { episodes: 3, seedChangesEpisode: true });
    expect(report.steps).toBeGreaterThan(30);
  });

  it('one job by hand: it runs on its fastest type from its arrival, JCT = steps / rate', () => {
    const raw = JSON.parse(readFileSync(SYNTHETIC_THROUGHPUTS, 'utf8')) as Record<string, Record<string, { null: number }>>;
    for (const seed of [1, 2, 3, 4, 5]) {
      const ctx = loadGpuEnvContext({ ...fixture, jobs: 1 });
      const [job] = gpuEpisodeJobs(ctx, seed);
      const { jobType, steps } = job!.gpus!.dl!;
      const n = job!.gpus!.count;
      // the rate on n GPUs of each type on one server (every type has 4-GPU servers in gpu-24.json)
      const rates = ['v100', 'p100', 'k80'].map((t) => raw[t]![`('${jobType}', ${n})`]?.null ?? 0);
      const best = Math.max(...rates);
      const r = runGpuEpisode(new GpuEnv(ctx), gpuSchedulerAgent('srtf'), seed);
      expect(r.metrics.jobs).toBe(1);
      expect(r.metrics.preemptions).toBe(0);
      expect(r.metrics.mean_jct).toBeCloseTo(steps / best, 6);
      expect(r.return).toBeCloseTo(-steps / best / 3600, 9);
    }
  });

  it('masks: a placement where the plan finds GPUs; no empty round while a job fits; refuses the others', () => {
    const e = env({ jobs: 12, arrivals_per_hour: 30, invalid_action: 'raise' });
    e.reset({ seed: 7 });
    const end = e.K * e.G * 2;
    let checked = 0;
    for (let step = 0; step < 60; step++) {
      const mask = e.actionMask();
      const plan = e.plan!;
      for (let k = 0; k < e.K; k++)
        for (let t = 0; t < e.G; t++)
          for (let s = 0; s < 2; s++) {
            const v = e.views[k];
            const rate = v === undefined ? 0 : s === 0 ? v.rates[t]! : v.spreadRates[t]!;
            const ok = v !== undefined && !plan.has(v.job) && rate > 0 && plan.find(v.job, t, s === 0 ? 'one' : 'several') !== null;
            expect(mask[(k * e.G + t) * 2 + s]).toBe(ok ? 1 : 0);
            checked++;
          }
      const anyPlacement = mask.subarray(0, end).includes(1);
      expect(mask[end]).toBe(plan.choices.length > 0 || !anyPlacement ? 1 : 0);
      if (mask[end] === 0) expect(() => e.step(end)).toThrow(InvalidActionError);
      const r = e.step(mask.indexOf(1));
      if (r.terminated) break;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('each heuristic agent makes its round scheduler’s engine run; the return is minus the mean JCT in hours', () => {
    const ctx = loadGpuEnvContext({ ...fixture, jobs: 16, arrivals_per_hour: 10 });
    for (const seed of [3, 11]) {
      for (const policy of GPU_POLICIES) {
        const r = runGpuEpisode(new GpuEnv(ctx), gpuSchedulerAgent(policy), seed);
        const s = runGpuSimulation(ctx.platform, gpuEpisodeJobs(ctx, seed), { policy, table: ctx.table });
        expect(r.metrics.jobs, policy).toBe(16);
        expect(r.metrics.mean_jct, policy).toBeCloseTo(s.gpu.mean_jct, 6);
        expect(r.metrics.preemptions, policy).toBe(s.gpu.preemptions);
        expect(r.return, policy).toBeCloseTo(-r.metrics.mean_jct / 3600, 9);
      }
    }
  });

  it('the gpu-placements feature map: layout, and a linear policy plays whole episodes', () => {
    expect(gpuLayout(2 * 48 * 3 + 1, 48 * 14 + 13)).toEqual({ K: 48, G: 3 });
    expect(() => gpuLayout(10, 10)).toThrow(/gpu-placements/);
    const e = env({ jobs: 12, arrivals_per_hour: 10 });
    const names = ['place', 'remaining', 'remaining_here', 'area_here', 'gpus', 'ratio', 'edge', 'kept', 'several', 'age', 'attained', 'rank', 'type_free'];
    const theta = new Float64Array(16);
    theta[names.indexOf('place')] = 10;
    theta[names.indexOf('remaining')] = -1;
    const r = runGpuEpisode(e, linearAgent(e, theta, { features: 'gpu-placements' }), 4);
    expect(r.metrics.jobs).toBe(12);
  });

  it('bad configs name the field', () => {
    expect(() => env({ jobs: 0 })).toThrow(/jobs/);
    expect(() => env({ source: 'borg' })).toThrow(/source/);
    expect(() => env({ platform: 'data/platforms/hetero-20.json' })).toThrow(/platform: .*has no GPU/);
  });

  it.skipIf(!existsSync(PHILLY_CSV))('Philly episodes (skipped without ../shared/data/pollux/philly.csv)', () => {
    const ctx = loadGpuEnvContext({ ...fixture, source: 'philly', jobs: 20, duration_scale: 1 });
    const jobs = gpuEpisodeJobs(ctx, 5);
    expect(jobs).toHaveLength(20);
    expect(jobs[0]!.subtime).toBe(0);
    const r = runGpuEpisode(new GpuEnv(ctx), gpuSchedulerAgent('las'), 5);
    expect(r.metrics.jobs).toBe(20);
    expect(r.return).toBeCloseTo(-r.metrics.mean_jct / 3600, 9);
  });
});
