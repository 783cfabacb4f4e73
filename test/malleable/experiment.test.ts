/**
 * `reproduce dmr`'s findings hold on several seeds (small sizes here; the full 50-400 run is in
 * bench), and the report carries the runs in the documented shape.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dmrFindings, runDmrExperiment } from '../../src/malleable/experiment.js';

describe('reproduce dmr', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('every finding holds at 50 and 100 jobs, seed %i', (seed) => {
    const r = runDmrExperiment({ seed, sizes: [50, 100] });
    expect(r.findings.filter((f) => !f.holds)).toEqual([]);
    expect(r.runs.map((x) => x.jobs)).toEqual([50, 100]);
    // Figure 7: every application runs longer and waits less
    expect(r.tables.per_app!.map((x) => x.app).sort()).toEqual(['cg', 'cg', 'jacobi', 'jacobi', 'nbody', 'nbody']);
    for (const x of r.tables.per_app!) {
      expect(x.malleable_execution_s as number).toBeGreaterThan(x.fixed_execution_s as number);
      expect(x.malleable_wait_s as number).toBeLessThan(x.fixed_wait_s as number);
    }
    for (const x of r.runs) {
      expect(x.malleable.invalid_resizes).toBe(0);
      expect(x.malleable.shrinks).toBeGreaterThan(0);
    }
  });
  it('a finding fails when the change is not there', () => {
    const same = { mean_wait: 100, mean_execution: 500, mean_completion: 600, makespan: 1000, allocation: 0.97 };
    const f = dmrFindings([{ jobs: 50, rigid: same, malleable: { ...same, expands: 1, shrinks: 0, no_actions: 0, invalid_resizes: 2, resize_time: 0 } }]);
    expect(f.filter((x) => !x.holds).map((x) => x.id)).toEqual([
      'wait-down',
      'completion-down',
      'makespan-down',
      'execution-up',
      'allocation-malleable',
      'shrinks-outnumber-expands',
      'no-invalid-resize',
    ]);
  });
  it('writes jobs.csv, resizes.csv and the report page', () => {
    const out = mkdtempSync(join(tmpdir(), 'dmr-'));
    const r = runDmrExperiment({ seed: 3, sizes: [50], out });
    const jobs = readFileSync(join(out, 'dmr-50-malleable-jobs.csv'), 'utf8').trim().split('\n');
    expect(jobs[0]).toBe('job_id,app,malleable,submit,start,finish,wait,execution,completion,bsld,start_nodes,end_nodes,node_seconds,resizes,expands,shrinks');
    expect(jobs.length).toBe(51);
    const resizes = readFileSync(join(out, 'dmr-50-malleable-resizes.csv'), 'utf8').trim().split('\n');
    expect(resizes[0]).toBe('time,job,from,to,cost');
    expect(resizes.length - 1).toBe(r.runs[0]!.malleable.expands + r.runs[0]!.malleable.shrinks);
    for (const f of ['index.html', 'dmr-figure4.svg', 'dmr-figure5.svg', 'dmr-figure6-rigid.svg', 'dmr-figure6-malleable.svg'])
      expect(existsSync(join(out, f))).toBe(true);
  });
});
