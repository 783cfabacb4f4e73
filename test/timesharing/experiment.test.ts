import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coschedReport, tableCsv, writeCoschedOutputs } from '../../src/timesharing/experiment.js';
import { checkSvg } from '../report/svgCheck.js';

// Small runs (120 jobs per configuration) on three seeds. The findings that this model reproduces
// robustly are asserted on every seed; the others are reported by `reproduce cosched` (see
// docs/timesharing.md, "Findings").
describe('reproduce cosched (small size, several seeds)', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: tables complete, DYN the lowest parallel slowdown, RR no better than IMPLI, DYN's local overhead below IMPLI's, DYN_MOD and CSC fewer page faults, CSC's local slowdown below 2.5`, () => {
      const { report, result } = coschedReport({ seed, jobs: 120, mpls: [2, 3, 4, 5], Ls: [0.25, 1] });
      expect(result.mpl_sweep).toHaveLength(16);
      expect(result.L_sweep).toHaveLength(4);
      expect(result.mem_sweep).toHaveLength(16);
      for (const r of result.mpl_sweep) {
        expect(r.parallel.slowdown).toBeGreaterThanOrEqual(1);
        expect(r.parallel.correlation).toBeGreaterThan(0);
        expect(r.parallel.correlation).toBeLessThanOrEqual(100);
        expect(r.mem_load).toBeLessThanOrEqual(1); // low memory: every node fits
        expect(r.parallel.page_faults).toBe(0);
      }
      // §2.3.2: high memory overflows from MPL_TOTAL 3 on ("mem_load >= 1,3"), not at MPL 2
      for (const r of result.mem_sweep.filter((x) => x.policy === 'rr')) {
        if (r.mpl >= 3) expect(r.mem_load).toBeGreaterThanOrEqual(1.3);
        else expect(r.mem_load).toBeLessThan(1);
      }
      const ids = report.findings.map((f) => f.id);
      expect(ids).toEqual([
        'dyn-lowest-parallel-slowdown',
        'rr-no-better-than-impli',
        'slowdown-above-mpl-at-5',
        'coscheduling-costs-locals',
        'dyn-local-overhead-below-impli',
        'csc-local-slowdown-rises-with-L',
        'dyn-mod-fewer-page-faults',
        'csc-fewer-page-faults',
        'csc-local-slowdown-below-2.5',
      ]);
      const holds = (id: string) => report.findings.find((f) => f.id === id)!.holds;
      expect(holds('dyn-lowest-parallel-slowdown')).toBe(true);
      expect(holds('rr-no-better-than-impli')).toBe(true);
      expect(holds('dyn-local-overhead-below-impli')).toBe(true);
      expect(holds('dyn-mod-fewer-page-faults')).toBe(true);
      expect(holds('csc-fewer-page-faults')).toBe(true);
      expect(holds('csc-local-slowdown-below-2.5')).toBe(true);
    }, 120_000);
  }

  it('writes CSV tables and well-formed SVG figures', () => {
    const { report, result } = coschedReport({ seed: 4, jobs: 40, mpls: [2, 3], Ls: [0.5, 1] });
    const dir = mkdtempSync(join(tmpdir(), 'cosched-'));
    try {
      const files = writeCoschedOutputs(dir, report, result);
      expect(files).toContain('mpl_sweep.csv');
      expect(readFileSync(join(dir, 'mpl_sweep.csv'), 'utf8').split('\n')[0]).toBe(Object.keys(report.tables.mpl_sweep![0]!).join(','));
      for (const f of files.filter((x) => x.endsWith('.svg'))) checkSvg(readFileSync(join(dir, f), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(tableCsv([{ a: 1, b: 'x' }])).toBe('a,b\n1,x\n');
  });
});
