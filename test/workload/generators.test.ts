import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import {
  gammaCdf,
  generateJobs,
  generateLublin,
  generatePoisson,
  generateWorkload,
  logGamma,
  LUBLIN_TYPELESS,
  lublinDailyWeights,
  lublinJobs,
  lublinParams,
  parseGeneratorConfig,
  poissonJobs,
} from '../../src/workload/generators.js';
import type { Job } from '../../src/workload/job.js';

const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
const median = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1]!;
};
const gaps = (jobs: Job[]) => jobs.slice(1).map((j, i) => j.subtime - jobs[i]!.subtime);

describe('Poisson generator', () => {
  const cfg = {
    jobs: 20000,
    rate: 1 / 300,
    size: { dist: 'uniform' as const, min: 1, max: 33 },
    runtime: { dist: 'lognormal' as const, mu: Math.log(600), sigma: 1 },
    reqTimeFactor: { min: 1.5, max: 3 },
  };

  it('is deterministic: same seed, same jobs; another seed, other jobs', () => {
    const a = generatePoisson(cfg, 42);
    const b = generatePoisson(cfg, 42);
    const c = generatePoisson(cfg, 43);
    expect(a.jobs).toEqual(b.jobs);
    expect(a.jobs.map((j) => j.runtime)).not.toEqual(c.jobs.map((j) => j.runtime));
    expect([...poissonJobs(cfg, 42)]).toEqual(a.jobs);
    expect(generateWorkload(cfg, 42).jobs).toEqual(a.jobs);
  });

  it('has the configured statistics', () => {
    const { jobs } = generatePoisson(cfg, 7);
    expect(jobs[0]!.subtime).toBe(0);
    expect(jobs.map((j) => j.id).slice(0, 3)).toEqual(['1', '2', '3']);
    // exponential inter-arrivals of mean 300 s (sd of the mean over 20k: ~0.7 %)
    expect(mean(gaps(jobs))).toBeGreaterThan(300 * 0.97);
    expect(mean(gaps(jobs))).toBeLessThan(300 * 1.03);
    expect(Math.min(...gaps(jobs))).toBeGreaterThan(0);
    // uniform sizes in [1, 33) rounded: integers 1..33, mean ~17
    expect(jobs.every((j) => Number.isInteger(j.ntasks) && j.ntasks >= 1 && j.ntasks <= 33)).toBe(true);
    expect(mean(jobs.map((j) => j.ntasks))).toBeGreaterThan(16.5);
    expect(mean(jobs.map((j) => j.ntasks))).toBeLessThan(17.5);
    // lognormal runtimes: median exp(mu) = 600
    expect(median(jobs.map((j) => j.runtime))).toBeGreaterThan(580);
    expect(median(jobs.map((j) => j.runtime))).toBeLessThan(620);
    // over-estimates by a factor in [1.5, 3)
    const f = jobs.map((j) => j.reqTime / j.runtime);
    expect(Math.min(...f)).toBeGreaterThanOrEqual(1.5);
    expect(Math.max(...f)).toBeLessThan(3);
    expect(mean(f)).toBeGreaterThan(2.2);
    expect(mean(f)).toBeLessThan(2.3);
    expect(jobs.every((j) => j.type === 'mpi' && j.work === 'delay' && j.nodes === 0)).toBe(true);
  });

  it('clamps sizes and runtimes, and fills the optional fields', () => {
    const { jobs } = generatePoisson(
      {
        jobs: 2000,
        size: { dist: 'lognormal', mu: 3, sigma: 2 },
        minSize: 2,
        maxSize: 64,
        runtime: { dist: 'exponential', mean: 5 },
        minRuntime: 2,
        mem: { dist: 'constant', value: 512 },
        memVol: { dist: 'uniform', min: 10, max: 20 },
        commVol: { dist: 'constant', value: 1e6 },
        tCompute: 0.8,
        startTime: 100,
      },
      1,
    );
    expect(jobs[0]!.subtime).toBe(100);
    expect(Math.min(...jobs.map((j) => j.ntasks))).toBe(2);
    expect(Math.max(...jobs.map((j) => j.ntasks))).toBe(64);
    expect(Math.min(...jobs.map((j) => j.runtime))).toBe(2);
    expect(jobs.every((j) => j.mem === 512 && j.memVol >= 10 && j.memVol < 20 && j.commVol === 1e6 && j.tCompute === 0.8)).toBe(true);
  });

  it("bounds the runtimes' tail with maxRuntime, and moves nothing else", () => {
    const cfg = { jobs: 2000, runtime: { dist: 'lognormal', mu: 6, sigma: 1.3 }, reqTimeFactor: { min: 1, max: 3 } } as const;
    const free = generatePoisson(cfg, 5).jobs;
    const bounded = generatePoisson({ ...cfg, maxRuntime: 1600 }, 5).jobs;
    // exp(6 + 1.3 z) > 1600 for z > 1.06: about 14 % of the jobs
    const over = free.filter((j) => j.runtime > 1600).length;
    expect(over).toBeGreaterThan(200);
    expect(over).toBeLessThan(380);
    expect(Math.max(...bounded.map((j) => j.runtime))).toBe(1600);
    bounded.forEach((j, i) => {
      const f = free[i]!;
      expect(j.runtime).toBe(Math.min(1600, f.runtime));
      expect([j.subtime, j.ntasks]).toEqual([f.subtime, f.ntasks]);
      // the same over-estimate factor, on the clamped runtime
      expect(j.reqTime / j.runtime).toBeCloseTo(f.reqTime / f.runtime, 12);
    });
    expect(() => generatePoisson({ jobs: 5, minRuntime: 10, maxRuntime: 5 }, 1)).toThrow(/\$\.maxRuntime: maxRuntime must be >= minRuntime/);
  });

  it('does not move arrivals, sizes or runtimes when estimates or resources are switched on', () => {
    const plain = generatePoisson({ jobs: 300 }, 11).jobs;
    const rich = generatePoisson({ jobs: 300, reqTimeFactor: { min: 1, max: 5 }, mem: { dist: 'uniform', min: 1, max: 9 } }, 11).jobs;
    const key = (j: Job) => [j.subtime, j.ntasks, j.runtime];
    expect(rich.map(key)).toEqual(plain.map(key));
    expect(rich.map((j) => j.reqTime)).not.toEqual(plain.map((j) => j.reqTime));
  });

  it('produces ops jobs for a given core speed, and seq jobs', () => {
    const { jobs } = generatePoisson({ jobs: 50, work: 'ops', mops: 2000, type: 'seq', commVol: { dist: 'constant', value: 5 } }, 3);
    const ref = generatePoisson({ jobs: 50, type: 'seq' }, 3).jobs;
    jobs.forEach((j, i) => {
      expect(j).toMatchObject({ work: 'ops', runtime: 0, type: 'seq', nodes: 1, commVol: 0, tCompute: 1 });
      expect(j.ops).toBe(Math.ceil(ref[i]!.runtime * 2000 * 1e6));
      expect(j.reqTime).toBe(ref[i]!.runtime);
    });
  });

  it('rejects a bad configuration with the paths of every bad field', () => {
    const bad = () => generatePoisson({ jobs: 0, rate: -1, size: { dist: 'uniform', min: 5, max: 2 } }, 1, 'gen.json');
    expect(bad).toThrow(InputError);
    expect(bad).toThrow(/gen\.json:/);
    expect(bad).toThrow(/\$\.jobs: /);
    expect(bad).toThrow(/\$\.rate: /);
    expect(bad).toThrow(/\$\.size\.max: max \(2\) must be >= min \(5\)/);
    expect(() => generatePoisson({ jobs: 5, size: { dist: 'normal' } as never }, 1)).toThrow(/\$\.size\.dist/);
    expect(() => generatePoisson({ jobs: 5, minSize: 8, maxSize: 4 }, 1)).toThrow(/\$\.maxSize: maxSize must be >= minSize/);
    expect(() => generatePoisson({ jobs: 5, colour: 'red' } as never, 1)).toThrow(/colour/);
  });
});

describe('Lublin–Feitelson generator', () => {
  it('uses the lublin99.c whole-sample constants', () => {
    expect(LUBLIN_TYPELESS).toMatchObject({
      serialProb: 0.244,
      pow2Prob: 0.576,
      uLow: 0.8,
      uProb: 0.86,
      a1: 4.2,
      b1: 0.94,
      a2: 312,
      b2: 0.03,
      pa: -0.0054,
      pb: 0.78,
      aarr: 10.2303,
      barr: 0.4871,
      anum: 8.1737,
      bnum: 3.9631,
      arar: 1.0225,
    });
    const [p] = lublinParams({ model: 'lublin', jobs: 1, maxProcs: 128 });
    expect(p).toMatchObject({ uHi: 7, uMed: 4.5 });
    expect(lublinParams({ model: 'lublin', jobs: 1, maxProcs: 256, params: { uMed: 5, pa: 0 } })[0]).toMatchObject({ uHi: 8, uMed: 5, pa: 0 });
    const [batch, inter] = lublinParams({ model: 'lublin', jobs: 1, classes: 'batch-interactive' });
    expect(batch).toMatchObject({ uHi: 7, uMed: 5, serialProb: 0.2927 });
    expect(inter).toMatchObject({ uHi: 5.5, uMed: 3, serialProb: 0.1541 });
  });

  it('gamma CDF and log-gamma agree with closed forms', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    for (const x of [0.5, 2, 3, 10, 40]) {
      // shape 2, scale 1: 1 - e^-x (1 + x); shape 3, scale 2: 1 - e^-y (1 + y + y^2/2), y = x/2
      expect(gammaCdf(x, 2, 1)).toBeCloseTo(1 - Math.exp(-x) * (1 + x), 12);
      const y = x / 2;
      expect(gammaCdf(x, 3, 2)).toBeCloseTo(1 - Math.exp(-y) * (1 + y + (y * y) / 2), 12);
    }
    expect(gammaCdf(0, 2, 1)).toBe(0);
  });

  it('weighs the half-hours of the day with a daytime peak', () => {
    const w = lublinDailyWeights(LUBLIN_TYPELESS.anum, LUBLIN_TYPELESS.bnum);
    expect(w.length).toBe(48);
    expect(mean([...w])).toBeCloseTo(1, 12);
    const peak = w.indexOf(Math.max(...w));
    expect(peak).toBeGreaterThanOrEqual(20); // 10:00
    expect(peak).toBeLessThanOrEqual(32); // 16:00
    expect(Math.min(...w)).toBeLessThan(0.3);
  });

  it('is deterministic and streams the same jobs it collects', () => {
    const cfg = { model: 'lublin' as const, jobs: 3000, maxProcs: 64 };
    const a = generateLublin(cfg, 'abc');
    expect(generateLublin(cfg, 'abc').jobs).toEqual(a.jobs);
    expect([...lublinJobs(cfg, 'abc')]).toEqual(a.jobs);
    expect([...generateJobs(cfg, 'abc')]).toEqual(a.jobs);
    expect(generateLublin(cfg, 'abd').jobs.map((j) => j.ntasks)).not.toEqual(a.jobs.map((j) => j.ntasks));
    expect(a.maxProcs).toBe(64);
  });

  it('has the model statistics over 20,000 jobs (256 processors)', () => {
    const { jobs } = generateLublin({ model: 'lublin', jobs: 20000, maxProcs: 256 }, 1);
    const n = jobs.length;
    const sizes = jobs.map((j) => j.ntasks);
    const serial = sizes.filter((s) => s === 1).length / n;
    // serial fraction: SERIAL_PROB = 0.244 (binomial sd 0.003)
    expect(serial).toBeGreaterThan(0.23);
    expect(serial).toBeLessThan(0.26);
    // power-of-two parallel sizes: POW2_PROB plus the non-rounded draws that land on one
    const pow2 = sizes.filter((s) => s > 1 && (s & (s - 1)) === 0).length / n;
    expect(pow2).toBeGreaterThan(0.576);
    expect(pow2).toBeLessThan(0.66);
    // mean size: E[2^x] of the two-stage uniform on log2 size, about 22 on 256 processors
    expect(mean(sizes)).toBeGreaterThan(19);
    expect(mean(sizes)).toBeLessThan(25);
    expect(Math.min(...sizes)).toBe(1);
    expect(Math.max(...sizes)).toBe(256);
    expect(sizes.every((s) => Number.isInteger(s))).toBe(true);
    // runtimes: whole seconds in [1, e^12]; heavy tailed (median ~ 140 s, mean ~ 4800 s)
    const rt = jobs.map((j) => j.runtime);
    expect(rt.every((r) => Number.isInteger(r) && r >= 1 && r <= Math.exp(12))).toBe(true);
    expect(median(rt)).toBeGreaterThan(100);
    expect(median(rt)).toBeLessThan(200);
    expect(mean(rt)).toBeGreaterThan(4000);
    expect(mean(rt)).toBeLessThan(6000);
    // pa < 0: the larger the job, the more likely the long gamma: wide jobs run longer
    const logMean = (pred: (s: number) => boolean) => mean(jobs.filter((j) => pred(j.ntasks)).map((j) => Math.log(j.runtime)));
    expect(logMean((s) => s >= 64)).toBeGreaterThan(logMean((s) => s === 1) + 0.5);
    // arrivals: whole seconds, non-decreasing; median inter-arrival ~ 115 s, heavy-tailed mean
    const g = gaps(jobs);
    expect(jobs.every((j) => Number.isInteger(j.subtime))).toBe(true);
    expect(Math.min(...g)).toBeGreaterThanOrEqual(0);
    expect(median(g)).toBeGreaterThan(90);
    expect(median(g)).toBeLessThan(140);
    expect(mean(g)).toBeGreaterThan(600);
    expect(mean(g)).toBeLessThan(1300);
    // daily cycle: many more submissions from 09:00 to 17:00 than from 00:00 to 08:00
    const hours = new Array<number>(24).fill(0);
    for (const j of jobs) hours[Math.floor((j.subtime % 86400) / 3600)]!++;
    const day = hours.slice(9, 17).reduce((a, b) => a + b);
    const night = hours.slice(0, 8).reduce((a, b) => a + b);
    expect(day / night).toBeGreaterThan(2.5);
    expect(jobs.every((j) => j.reqTime === j.runtime && j.type === 'mpi' && j.work === 'delay')).toBe(true);
  });

  it('shifts the daily cycle with startHour', () => {
    const cfg = { model: 'lublin' as const, jobs: 20000, maxProcs: 128 };
    const night = (jobs: Job[]) => jobs.filter((j) => j.subtime % 86400 < 8 * 3600).length / jobs.length;
    // time 0 at noon: the quiet hours are now 12:00 to 20:00 after time 0
    expect(night(generateLublin({ ...cfg, startHour: 12 }, 1).jobs)).toBeGreaterThan(2 * night(generateLublin(cfg, 1).jobs));
  });

  it('mixes batch and interactive classes', () => {
    const { jobs } = generateLublin({ model: 'lublin', jobs: 20000, classes: 'batch-interactive', maxProcs: 128 }, 2);
    const sizes = jobs.map((j) => j.ntasks);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
    const serial = sizes.filter((s) => s === 1).length / jobs.length;
    // between the interactive (0.154) and batch (0.293) serial probabilities
    expect(serial).toBeGreaterThan(0.154);
    expect(serial).toBeLessThan(0.293);
    expect(gaps(jobs).every((g) => g >= 0)).toBe(true);
  });

  it('applies reqTimeFactor and the ops work model', () => {
    const { jobs } = generateLublin({ model: 'lublin', jobs: 500, reqTimeFactor: { min: 2, max: 2 }, work: 'ops', mops: 100 }, 9);
    const ref = generateLublin({ model: 'lublin', jobs: 500 }, 9).jobs;
    jobs.forEach((j, i) => {
      expect(j.reqTime).toBe(2 * ref[i]!.runtime);
      expect(j.ops).toBe(Math.ceil(ref[i]!.runtime * 100 * 1e6));
    });
  });

  it('validates its configuration', () => {
    expect(() => generateLublin({ model: 'lublin', jobs: 10, maxProcs: 1 }, 1)).toThrow(/\$\.maxProcs/);
    expect(() => generateLublin({ model: 'lublin', jobs: 10, params: { serialProb: 2 } }, 1)).toThrow(/\$\.params\.serialProb/);
    expect(() => generateLublin({ model: 'lublin', jobs: 10, params: { typo: 1 } as never }, 1)).toThrow(/typo/);
    expect(() => parseGeneratorConfig({ model: 'weibull', jobs: 3 }, 'g.json')).toThrow('g.json: $.model: expected "poisson" or "lublin", found "weibull"');
    expect(parseGeneratorConfig({ model: 'lublin', jobs: 3 }, 'g.json')).toMatchObject({ model: 'lublin', maxProcs: 128 });
    expect(parseGeneratorConfig({ jobs: 3 }, 'g.json')).toMatchObject({ model: 'poisson', rate: 1 / 600 });
  });

  it('streams a million jobs without holding them', () => {
    let n = 0;
    let last = -1;
    let sorted = true;
    for (const j of lublinJobs({ model: 'lublin', jobs: 1_000_000, maxProcs: 256 }, 5)) {
      n++;
      if (j.subtime < last) sorted = false;
      last = j.subtime;
    }
    expect(n).toBe(1_000_000);
    expect(sorted).toBe(true);
  });
});
