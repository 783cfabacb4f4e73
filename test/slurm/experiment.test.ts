import { describe, expect, it } from 'vitest';
import { runRaijinExperiment } from '../../src/slurm/experiment.js';

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
