import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/core/paths.js';
import { runRaijinExperiment } from '../../src/slurm/experiment.js';
import { RAIJIN_PLATFORM, SlurmPlatform } from '../../src/slurm/platform.js';
import { expectSlurmEngine } from '../golden/slurmEngine.js';

describe('reproduce raijin at small size', () => {
  for (const seed of [1, 5, 99]) {
    it(`seed ${seed}: every finding holds`, () => {
      const r = runRaijinExperiment({ jobs: 15_000, seed, shrink: '100:50:25', group: 10, load: 0.85 });
      for (const f of r.findings) expect(f.holds, `${f.id}: ${f.measured}`).toBe(true);
      expect(r.raijin.shrink_sweep.map((s) => s.shrink)).toEqual([100, 75, 50]);
      expect(r.raijin.suspended_jobs).toBeGreaterThan(0);
      expect(r.tables.shrink_sweep).toHaveLength(3);
    });
  }
});

describe('reproduce raijin on the one engine (--engine one: the Slurm preset)', () => {
  /** The report without its timings (jobs/s, wall time, RSS). */
  const figures = (r: ReturnType<typeof runRaijinExperiment>) => {
    const { jobs_per_s: _j, peak_rss_mb: _m, ...raijin } = r.raijin;
    return { raijin, findings: r.findings.map((f) => [f.id, f.holds, f.measured]), tables: r.tables };
  };
  it('gives the Slurm engine report, table for table: waits, responses, slowdowns, utilisation, backfilled and suspended jobs, findings', () => {
    const o = { jobs: 8_000, seed: 3, shrink: '100:60:20', group: 10, load: 0.85 };
    const one = runRaijinExperiment({ ...o, engine: 'one' });
    expectSlurmEngine('raijin-report', o, figures(one), () => figures(runRaijinExperiment(o)));
    // not vacuous: jobs were backfilled and suspended, and waited
    const row = one.tables.shrink_sweep![0]!;
    expect(Number(row.backfilled)).toBeGreaterThan(100);
    expect(Number(row.suspended_jobs)).toBeGreaterThan(10);
    expect(one.raijin.shrink_sweep[0]!.mean_wait).toBeGreaterThan(0);
  });
});

describe('reproduce raijin on a platform file', () => {
  it('the embedded data/platforms/slurm-raijin.json is the built-in Raijin', () => {
    const file = new SlurmPlatform(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'data/platforms/slurm-raijin.json'), 'utf8')));
    const built = new SlurmPlatform(RAIJIN_PLATFORM);
    expect(file.totalCores).toBe(built.totalCores);
    expect(file.partitions).toEqual(built.partitions);
  });

  it('a machine whose first partition cannot hold a 64-core job is an input error naming the file, not a job error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slurm-exp-'));
    try {
      const f = join(dir, 'tiny.json');
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'g', count: 3, cores: 16 }], partitions: [{ name: 'p', groups: ['g'] }] }));
      expect(() => runRaijinExperiment({ jobs: 1000, seed: 2, shrink: '100:50:50', group: 10, load: 0.8, platform: f })).toThrow(
        `${f}: partition "p"'s largest node group has 48 cores; the Raijin-like workload needs 64`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a smaller machine (200 x 16 cores): the workload scales to it and the findings hold', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slurm-exp-'));
    try {
      const f = join(dir, 'small.json');
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'g', count: 200, cores: 16 }], partitions: [{ name: 'p', groups: ['g'], max_time: 86400 }] }));
      const r = runRaijinExperiment({ jobs: 15_000, seed: 2, shrink: '100:50:50', group: 10, load: 0.8, platform: f });
      for (const x of r.findings) expect(x.holds, `${x.id}: ${x.measured}`).toBe(true);
      expect(r.raijin.cores).toBe(3200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
