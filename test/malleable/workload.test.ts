/**
 * Malleable workload files (validation with JSON paths), the paper's workload generator, and malleable
 * workloads as native workload files (jobs with the `malleable` facet) that give back the same run.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { simulate } from '../../src/malleable/preset.js';
import { PAPER_APPS, stepTime } from '../../src/malleable/model.js';
import { dmrPolicy } from '../../src/malleable/policy.js';
import { isMalleableWorkload, malleableJobs, malleableWorkloadOf, paperWorkload, parseMalleableWorkload, rigidVersion } from '../../src/malleable/workload.js';
import { parseNativeWorkload, writeNativeWorkload } from '../../src/workload/index.js';

describe('workload file', () => {
  it('reads rigid and malleable jobs, built-in and own applications', () => {
    const w = parseMalleableWorkload({
      apps: { st: { t1: 0.4, serial: 0.05 } },
      jobs: [
        { id: 'b', subtime: 12, app: 'st', steps: 500, nodes: 4 },
        { id: 'a', subtime: 0, app: 'cg', steps: 10000, malleable: { min: 2, max: 32, pref: 8, inhibit: 15 } },
      ],
    });
    expect(w.nodes).toBe(64);
    expect(w.jobs.map((j) => j.id)).toEqual(['a', 'b']);
    expect(w.jobs[0]!.malleable).toEqual({ min: 2, max: 32, pref: 8, factor: 2, inhibit: 15 });
    expect(w.jobs[0]!.nodes).toBe(32);
    expect(w.jobs[0]!.app).toBe(PAPER_APPS.cg);
    expect(w.jobs[1]!.app).toEqual({ name: 'st', t1: 0.4, serial: 0.05 });
  });
  const err = (raw: unknown) => {
    try {
      parseMalleableWorkload(raw, 'w.json');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return (e as Error).message;
    }
    throw new Error('no error');
  };
  it('errors name the file and the JSON path', () => {
    expect(err({ jobs: [{ subtime: 0, app: 'cg', steps: 1, malleable: { min: 2, max: 24, pref: 8 } }] })).toMatch(
      /^w\.json: \$\.jobs\[0\]\.malleable: max \(24\) must be pref/,
    );
    expect(err({ jobs: [{ subtime: 0, app: 'cgg', steps: 1, nodes: 2 }] })).toMatch(
      /\$\.jobs\[0\]\.app: unknown application "cgg"; expected one of cg, jacobi, nbody/,
    );
    expect(err({ jobs: [{ subtime: 0, app: 'cg', steps: 1 }] })).toMatch(/\$\.jobs\[0\]: a job needs `nodes`/);
    expect(err({ jobs: [{ subtime: 0, app: 'cg', steps: 0, nodes: 2 }] })).toMatch(/\$\.jobs\[0\]\.steps/);
    expect(err({ jobs: [{ subtime: 0, app: 'cg', steps: 1, nodes: 2, malleable: { min: 1, max: 4, pref: 2 } }] })).toMatch(
      /\$\.jobs\[0\]\.nodes: a malleable job is submitted at max \(4\)/,
    );
    expect(err({ nodes: 8, jobs: [{ subtime: 0, app: 'cg', steps: 1, nodes: 9 }] })).toMatch(/needs 9 nodes, the platform has 8/);
    expect(err({ job: [] })).toMatch(/\$\.job: .*jobs/);
  });
});

describe('paper workload', () => {
  it('equal shares of CG, Jacobi and N-body, Poisson arrivals of mean 10 s, seeded', () => {
    const w = paperWorkload({ jobs: 3000, seed: 4 });
    const count = (a: string) => w.jobs.filter((j) => j.app.name === a).length;
    expect([count('cg'), count('jacobi'), count('nbody')]).toEqual([1000, 1000, 1000]);
    expect(w.jobs[0]!.subtime).toBe(0);
    const meanGap = w.jobs[w.jobs.length - 1]!.subtime / (w.jobs.length - 1);
    expect(meanGap).toBeGreaterThan(9.3);
    expect(meanGap).toBeLessThan(10.7);
    expect(paperWorkload({ jobs: 50, seed: 4 })).toEqual(paperWorkload({ jobs: 50, seed: 4 }));
    expect(paperWorkload({ jobs: 50, seed: 5 }).jobs.map((j) => j.subtime)).not.toEqual(paperWorkload({ jobs: 50, seed: 4 }).jobs.map((j) => j.subtime));
    const nb = w.jobs.find((j) => j.app.name === 'nbody')!;
    expect(nb.malleable).toEqual({ min: 1, max: 16, pref: 1, factor: 2, inhibit: 0 });
    expect(nb.steps).toBe(25);
    expect(rigidVersion(w).jobs.every((j) => j.malleable === null && j.nodes === (j.app.name === 'nbody' ? 16 : 32))).toBe(true);
  });
});

describe('as a native workload file (jobs with the malleable facet)', () => {
  it('paper workload -> native JSON -> the same engine jobs and the same dmr run, bit for bit', () => {
    const w = paperWorkload({ jobs: 60, seed: 5 });
    const native = JSON.parse(JSON.stringify(writeNativeWorkload(malleableJobs(w, 'paper'))));
    expect(native.max_procs).toBe(64);
    const cg = native.jobs.find((j: { malleable: { speedup: { name: string } } }) => j.malleable.speedup.name === 'cg');
    expect(cg.malleable).toEqual({ min: 2, max: 32, pref: 8, factor: 2, inhibit: 15, steps: 10000, speedup: { ...PAPER_APPS.cg } });
    expect([cg.nodes, cg.ntasks, cg.ntasks_per_node]).toEqual([32, 32, 1]);
    const workload = parseNativeWorkload(native, 'paper.json');
    // its run time at max: steps x d(max)
    const first = workload.jobs[0]!;
    expect(first.runtime).toBe(first.malleable!.steps * stepTime(first.malleable!.speedup, first.nodes));
    const back = malleableWorkloadOf({ ...workload, maxProcs: native.max_procs });
    expect(back).toEqual(w);
    expect(simulate(back, dmrPolicy)).toEqual(simulate(w, dmrPolicy));
    // a rigid one keeps its jobs rigid (no limits: spec null)
    const rigid = rigidVersion(w);
    expect(malleableWorkloadOf(parseNativeWorkload(writeNativeWorkload(malleableJobs(rigid)), 'r.json'), 64)).toEqual(rigid);
  });

  it('recognises a malleable workload; a job without the facet cannot go back', () => {
    expect(isMalleableWorkload({ jobs: [{ subtime: 0, app: 'cg', steps: 3, nodes: 2 }] })).toBe(true);
    expect(isMalleableWorkload({ jobs: [{ subtime: 0, ntasks: 2, runtime: 3 }] })).toBe(false);
    const w = parseNativeWorkload({ jobs: [{ id: 'x', subtime: 0, ntasks: 2, runtime: 3 }] }, 'x.json');
    expect(() => malleableWorkloadOf(w)).toThrow('$.jobs[0]: job "x" has no `malleable` facet');
  });
});
