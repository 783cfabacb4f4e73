/**
 * `clustergym reproduce dmr` through the built CLI: the tables and findings, `--json` on stdout in
 * the documented shape, `--out`, and a bad `--jobs` value (exit code 2).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

describe('reproduce dmr', () => {
  it('prints Table 4 and the findings, exit 0', () => {
    const r = cli(['reproduce', 'dmr', '--seed', '2', '--jobs', '50,100']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Table 4 \(this run, paper in parentheses\)/);
    expect(r.stdout).toMatch(/holds +wait-down/);
    expect(r.stdout).toMatch(/all 8 findings hold \(seed 2/);
  });
  it('--json prints the runs, --out writes the files', () => {
    const out = mkdtempSync(join(tmpdir(), 'cg-dmr-'));
    const r = cli(['reproduce', 'dmr', '--seed', '3', '--jobs', '50', '--json', '--out', out]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.name).toBe('dmr');
    expect(Object.keys(report.runs[0]).sort()).toEqual(['jobs', 'malleable', 'rigid']);
    expect(Object.keys(report.runs[0].rigid).sort()).toEqual(['allocation', 'makespan', 'mean_completion', 'mean_execution', 'mean_wait']);
    expect(report.runs[0].malleable.invalid_resizes).toBe(0);
    expect(report.runs[0].malleable.allocation).toBeLessThan(1);
    for (const f of ['dmr.json', 'dmr-50-malleable-resizes.csv', 'dmr-50-rigid-jobs.csv', 'index.html']) expect(existsSync(join(out, f))).toBe(true);
  });
  it('--expand-cost/--shrink-cost set the resize costs', () => {
    const r = cli(['reproduce', 'dmr', '--seed', '1', '--jobs', '50', '--json', '--expand-cost', '2', '--shrink-cost', '3']);
    const report = JSON.parse(r.stdout);
    expect(report.parameters.resize_cost_s).toEqual({ expand: 2, shrink: 3 });
    const m = report.runs[0].malleable;
    expect(m.resize_time).toBeCloseTo(2 * m.expands + 3 * m.shrinks, 6);
  });
  it('--jobs outside 50..10000 is an input error naming the flag (below 50 the findings are not the paper regime; above, minutes)', () => {
    for (const bad of ['3', '49,100', '10001']) {
      const r = cli(['reproduce', 'dmr', '--jobs', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--jobs/);
      expect(r.stderr).toMatch(/between 50/);
    }
  });
  it('a bad --jobs is an input error', () => {
    const r = cli(['reproduce', 'dmr', '--jobs', '50,x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/comma-separated job counts/);
  });
});
