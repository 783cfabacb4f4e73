/**
 * `clustergym convert`: SWF and Batsim workloads to native JSON, which loads back into the same
 * jobs; bad input exits 2 naming the SWF line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkload } from '../../src/workload/index.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING, cli } from '../helpers.js';

const strip = (jobs: { source: string }[]) => jobs.map(({ source: _s, ...j }) => j);

describe.skipIf(!HAVE_SHARED)(`convert real workloads ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  for (const rel of ['traces/lublin_256.swf', 'batsim/example_workload_hpc_seed1_jobs250.json']) {
    it(`${rel} -> native JSON -> the same jobs`, () => {
      const out = join(mkdtempSync(join(tmpdir(), 'cg-conv-')), 'w.json');
      const r = cli(['convert', '--workload', join(SHARED_DATA, rel), '--out', out]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const original = loadWorkload(join(SHARED_DATA, rel));
      expect(r.stdout).toMatch(new RegExp(`wrote ${original.jobs.length} jobs`));
      const back = loadWorkload(out);
      expect(strip(back.jobs)).toEqual(strip(original.jobs));
      expect(JSON.parse(readFileSync(out, 'utf8')).jobs).toHaveLength(original.jobs.length);
    });
  }
});

describe('convert bad input', () => {
  it('an SWF line with the wrong number of fields exits 2 naming the line', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-conv-'));
    const f = join(d, 'bad.swf');
    writeFileSync(f, '; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 0 10 2 -1 -1 2 20\n');
    const r = cli(['convert', '--workload', f, '--out', join(d, 'o.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.swf:3/);
    expect(r.stderr).toMatch(/expected 18 whitespace-separated SWF fields, found 9/);
  });
  it('a missing --out exits 2', () => {
    const r = cli(['convert', '--workload', 'x.swf']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out: Required/);
  });
});
