import { describe, expect, it } from 'vitest';
import type { SlurmJobInput } from '../../src/slurm/config.js';
import { JobPhase } from '../../src/core/engine.js';
import { RAIJIN_PLATFORM, SlurmPlatform } from '../../src/slurm/platform.js';
import { runSlurmPreset } from '../../src/slurm/preset.js';
import { CalcMetsAccumulator, calcMetsListener, replay, runworkload, shrinkFactors } from '../../src/slurm/replay.js';
import { DEFAULT_RAIJIN_WORKLOAD, TABLE_4_1, raijinWorkload, workloadConstants } from '../../src/slurm/workload.js';

describe('runworkload', () => {
  it('--shrink 100:50:10 gives the six factors 100, 90, ..., 50', () => {
    expect(shrinkFactors('100:50:10')).toEqual([100, 90, 80, 70, 60, 50]);
    expect(shrinkFactors('100:100:10')).toEqual([100]);
    expect(() => shrinkFactors('50:100:10')).toThrow(/FROM >= TO/);
    expect(() => shrinkFactors('100-50')).toThrow(/FROM:TO:STEP/);
  });

  it('warm-up jobs at 0, then groups at warmupPeriod + (drift + period) j; times shrunk', () => {
    const jobs: SlurmJobInput[] = Array.from({ length: 7 }, (_, i) => ({
      id: i,
      submit: i * 10,
      cores: 1,
      timeLimit: 200,
      runTime: 100,
      user: 0,
      opAfter: 10,
      opFor: 20,
    }));
    const out = [...runworkload(jobs, { shrink: 50, warmup: 2, group: 2, drift: 1, meanGap: 10 })];
    // warmupPeriod = 2 x 10 x 0.5 = 10, period = 2 x 10 x 0.5 = 10
    expect(out.map((j) => j.submit)).toEqual([0, 0, 10, 10, 21, 21, 32]);
    expect(out[3]).toMatchObject({ timeLimit: 100, runTime: 50, opAfter: 5, opFor: 10 });
  });
});

describe('calcmets on the Slurm preset', () => {
  // runworkload's submissions as the jobs give them: the warm-up job at 0, then 0 and 50 (drift 50, no period)
  const asGiven = { shrink: 100, warmup: 1, warmupPeriod: 0, group: 1, period: 0, drift: 50, meanGap: 0 };
  const p = new SlurmPlatform({ groups: [{ name: 'n', count: 1, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] });

  it('hand-computed: wait, response, slowdown, weighted slowdown, utilisation; warm-up excluded', () => {
    const m = replay(
      p,
      [
        { id: 0, submit: 0, cores: 4, timeLimit: 100, runTime: 100, user: 0 }, // warm-up: 0..100
        { id: 1, submit: 0, cores: 2, timeLimit: 50, runTime: 50, user: 0 }, // 100..150: wait 100, resp 150, sd 3
        { id: 2, submit: 50, cores: 1, timeLimit: 100, runTime: 100, user: 0, opAfter: 20, opFor: 30 }, // 100..230, wait 50, resp 180, sd 1.8
      ],
      asGiven,
    );
    expect(m.measured).toBe(2);
    expect(m.mean_wait).toBe(75);
    expect(m.mean_response).toBe(165);
    expect(m.mean_slowdown).toBeCloseTo(2.4, 12);
    // (2 x 50 x 3 + 1 x 100 x 1.8) / (100 + 100) = 480 / 200
    expect(m.weighted_slowdown).toBeCloseTo(2.4, 12);
    // (400 + 100 + 100) / (4 x 230)
    expect(m.utilisation).toBeCloseTo(600 / 920, 12);
    expect(m.suspended_jobs).toBe(1);
    expect(m.suspend_accounting_violations).toBe(0);
  });

  it('the standard error of the one-core service-unit share by hand: two jobs', () => {
    const m = replay(
      p,
      [
        { id: 0, submit: 0, cores: 1, timeLimit: 100, runTime: 100, user: 0 }, // x = y = 100
        { id: 1, submit: 0, cores: 2, timeLimit: 150, runTime: 150, user: 0 }, // x = 0, y = 300
      ],
      { ...asGiven, warmup: 0, group: 2 }, // (no warm-up, both in the first group: at 0)
    );
    // r = 0.25; residuals 100 - 25 = 75, 0 - 75 = -75; sqrt(11250 / 2) / 200
    expect(m.su_share_1core).toBe(0.25);
    expect(m.su_share_1core_se).toBeCloseTo(Math.sqrt(11250 / 2) / 200, 12);
  });

  it('a job cancelled by a preemption is counted cancelled, not a timeout, and not measured', () => {
    // low (4 cores, 100 s) runs from 0; high (4 cores, 50 s) at 20 cancels it (PreemptMode=CANCEL) and runs 20..70
    const tiers = new SlurmPlatform({
      groups: [{ name: 'n', count: 1, cores: 4 }],
      partitions: [
        { name: 'low', groups: ['n'], priority_tier: 1, preempt_mode: 'cancel' },
        { name: 'high', groups: ['n'], priority_tier: 2 },
      ],
    });
    const jobs = [
      { id: 1, submit: 0, cores: 4, runTime: 100, timeLimit: 100, user: 0, partition: 0 },
      { id: 2, submit: 20, cores: 4, runTime: 50, timeLimit: 50, user: 0, partition: 1 },
    ];
    const m = replay(tiers, jobs, { ...asGiven, warmup: 0, drift: 20 });
    expect([m.timeouts, m.cancelled, m.measured, m.mean_response]).toEqual([0, 1, 1, 50]);
    expect(m.service_units).toBe(200);
    expect(m.suspend_accounting_violations).toBe(0);
  });
});

// (the accumulator's own check, fed a corrupted record of the preset's run)
describe('calcmets', () => {
  it('a record whose end is not start + run + suspended time is counted as a violation', () => {
    const platform = { groups: [{ name: 'n', count: 1, cores: 4 }], partitions: [{ name: 'p', groups: ['n'] }] };
    const acc = new CalcMetsAccumulator(0);
    const job: SlurmJobInput = { id: 0, submit: 0, cores: 1, timeLimit: 100, runTime: 100, user: 0, opAfter: 20, opFor: 30 };
    // (a corrupted record: its end a second late)
    runSlurmPreset(platform, [job], {}, [calcMetsListener((r) => acc.addRecord({ ...r, end: r.end + 1 }))]);
    expect(acc.result(4).suspend_accounting_violations).toBe(1);
    const right = new CalcMetsAccumulator(0);
    runSlurmPreset(platform, [job], {}, [calcMetsListener((r) => right.addRecord(r))]);
    expect(right.result(4).suspend_accounting_violations).toBe(0);
  });
});

// (the generator's shares, replayed on the Slurm preset; its schedule of it: the golden case slurm-raijin-3000)
describe('Raijin-like workload (Table 4.1, Table 4.2)', () => {
  for (const seed of [1, 7, 42, 2024]) {
    it(`seed ${seed}: job-size shares within 1 point of Table 4.1, one-core SU near 1.6%, no accounting violations`, () => {
      const jobs = 20_000;
      const m = replay(
        new SlurmPlatform(RAIJIN_PLATFORM),
        raijinWorkload({ jobs, seed }),
        { shrink: 100, warmup: 200, group: 10, drift: 0, meanGap: DEFAULT_RAIJIN_WORKLOAD.meanGap },
        { users: DEFAULT_RAIJIN_WORKLOAD.users },
      );
      expect(m.jobs).toBe(jobs);
      let named = 0;
      for (const [n, share] of TABLE_4_1) {
        const got = (m.size_counts[String(n)] ?? 0) / jobs;
        named += got;
        expect(Math.abs(got - share)).toBeLessThan(0.01);
      }
      expect(Math.abs(1 - named - 0.1)).toBeLessThan(0.01);
      expect(Math.abs(m.su_share_1core - 0.016)).toBeLessThan(Math.max(0.004, 4 * m.su_share_1core_se));
      expect(m.su_share_1core_se).toBeGreaterThan(0);
      expect(m.suspended_jobs).toBeGreaterThan(100);
      expect(m.suspend_accounting_violations).toBe(0);
      expect(m.timeouts).toBeGreaterThan(50);
      expect(m.refused).toBe(0);
    });
  }

  it('the one-core run-time factor solves Table 4.2 exactly in expectation', () => {
    const c = workloadConstants(DEFAULT_RAIJIN_WORKLOAD);
    const S = TABLE_4_1.filter(([n]) => n > 1).reduce((a, [n, p]) => a + n * p, 0) + 0.1 * c.restMean;
    expect((0.49 * c.meanOne) / (0.49 * c.meanOne + S * c.meanOther)).toBeCloseTo(0.016, 12);
  });

  it('is deterministic per seed and streams (the generator holds no job list)', () => {
    const a = [...raijinWorkload({ jobs: 50, seed: 3 })];
    const b = [...raijinWorkload({ jobs: 50, seed: 3 })];
    expect(a).toEqual(b);
    expect(a.every((j, i) => i === 0 || j.submit >= a[i - 1]!.submit)).toBe(true);
    expect(a.filter((j) => j.timeLimit >= j.runTime).length).toBeGreaterThan(45);
  });
});

describe('the standard error of the one-core service-unit share', () => {
  it('covers the expected 1.6% within 4 standard errors on 12 seeds of 5,000 jobs', () => {
    for (let seed = 100; seed < 112; seed++) {
      const acc = new CalcMetsAccumulator(0);
      for (const j of raijinWorkload({ jobs: 5000, seed })) {
        const run = Math.min(j.runTime, j.timeLimit);
        acc.addRecord({
          id: j.id,
          cores: j.cores,
          state: JobPhase.Completed,
          submit: j.submit,
          start: j.submit,
          end: j.submit + run,
          run,
          suspended: 0,
          suspensions: 0,
        });
      }
      const m = acc.result(57_600);
      expect(Math.abs(m.su_share_1core - 0.016), `seed ${seed}`).toBeLessThan(4 * m.su_share_1core_se);
    }
  });
});
