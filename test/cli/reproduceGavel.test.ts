/**
 * `clustergym reproduce gavel` through the built CLI, small (CI): a window of 50 jobs on 8 GPUs of each
 * type at two low rates, on the synthetic table (the full size, on Gavel's table, is `npm run bench --
 * gavel`; its numbers are in docs/gavel-reproduction.md): the JSON report's shape, the aware policy
 * below the agnostic one at each rate, the findings judged (failing here: exit code 1), `--out`, and bad
 * flags (exit code 2).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYNTHETIC_THROUGHPUTS } from '../../src/workload/dlThroughput.js';
import { cli } from '../helpers.js';

const SMALL = [
  '--throughputs',
  SYNTHETIC_THROUGHPUTS,
  '--rates',
  '0.2,0.5',
  '--seeds',
  '1',
  '--from',
  '50',
  '--to',
  '100',
  '--per-type',
  '8',
  '--max-hours',
  '200',
];

describe('reproduce gavel (small)', () => {
  it('--json prints the figure rows and the band findings; --out writes the report and the chart', () => {
    const out = mkdtempSync(join(tmpdir(), 'cg-gavel-'));
    const r = cli(['reproduce', 'gavel', ...SMALL, '--json', '--out', out]);
    // the band is Gavel's table's on its cluster: on the synthetic table and 8 GPUs a type its findings fail (exit 1)
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.name).toBe('gavel');
    expect(report.parameters).toMatchObject({ rates: [0.2, 0.5], seeds: [0], from: 50, to: 100, perType: 8, round: 360 });
    const rows = report.tables.seed0 as { rate: number; agnostic: number; aware: number }[];
    expect(rows.map((x) => x.rate)).toEqual([0.2, 0.5]);
    for (const x of rows) {
      expect(Number.isFinite(x.agnostic) && Number.isFinite(x.aware)).toBe(true);
      expect(x.aware).toBeLessThan(x.agnostic); // heterogeneity-aware max-min fairness gives a lower mean JCT
    }
    expect(report.tables.points).toHaveLength(4);
    expect(report.findings.length).toBeGreaterThan(0);
    for (const f of report.findings) expect(typeof f.holds).toBe('boolean');
    expect(report.findings.some((f: { holds: boolean }) => !f.holds)).toBe(true);
    expect(existsSync(join(out, 'gavel-figure9.svg'))).toBe(true);
  });

  it('bad rates are an input error naming the flag', () => {
    const r = cli(['reproduce', 'gavel', ...SMALL.slice(0, 2), '--rates', '2,1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--rates: .*ascending/);
  });
});
