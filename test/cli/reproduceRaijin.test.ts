/**
 * `clustergym reproduce raijin` through the built CLI: the tables and findings, `--json` on stdout
 * with the summary shape, `--out` files, and bad flag values (exit code 2).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

describe('reproduce raijin', () => {
  it('prints the sweep, the job sizes and the findings, exit 0', () => {
    const r = cli(['reproduce', 'raijin', '--jobs', '5000', '--shrink', '100:60:20', '--seed', '4']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Shrink sweep \(calcmets\)/);
    expect(r.stdout).toMatch(/^60% /m);
    expect(r.stdout).toMatch(/holds +accounting/);
    expect(r.stdout).toMatch(/all 5 findings hold \(seed 4/);
  });

  it('--json prints the summary, --out writes one file per shrink factor and the sweep CSV', () => {
    const out = mkdtempSync(join(tmpdir(), 'cg-raijin-'));
    try {
      const r = cli(['reproduce', 'raijin', '--jobs', '4000', '--shrink', '100:50:50', '--json', '--out', out]);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(Object.keys(report.raijin).sort()).toEqual(
        [
          'cores',
          'jobs',
          'jobs_per_s',
          'peak_rss_mb',
          'shrink_sweep',
          'size_shares',
          'su_share_1core',
          'suspend_accounting_violations',
          'suspended_jobs',
        ].sort(),
      );
      expect(report.raijin.cores).toBe(57_600);
      expect(report.raijin.shrink_sweep.map((s: { shrink: number }) => s.shrink)).toEqual([100, 50]);
      for (const f of ['raijin.json', 'raijin-shrink-100.json', 'raijin-shrink-50.json', 'raijin-sweep.csv']) expect(existsSync(join(out, f))).toBe(true);
      expect(readFileSync(join(out, 'raijin-sweep.csv'), 'utf8').split('\n')[0]).toMatch(/^shrink,mean_wait,/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('--platform loads a Slurm platform file; a bad one is an input error with its JSON path', () => {
    const ok = cli(['reproduce', 'raijin', '--jobs', '3000', '--shrink', '100:100:10', '--platform', 'data/platforms/slurm-raijin.json', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).raijin.cores).toBe(57_600);
    const dir = mkdtempSync(join(tmpdir(), 'cg-raijin-p-'));
    try {
      const f = join(dir, 'bad.json');
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'g', count: 2, cores: 16 }], partitions: [{ name: 'p', groups: ['h'] }] }));
      const bad = cli(['reproduce', 'raijin', '--platform', f]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/bad\.json: \$\.partitions\[0\]\.groups\[0\]: unknown group "h"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad values are input errors naming the flag', () => {
    const a = cli(['reproduce', 'raijin', '--shrink', '50:100:10']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/shrink/);
    const b = cli(['reproduce', 'raijin', '--jobs', '10']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/jobs/);
  });
});
