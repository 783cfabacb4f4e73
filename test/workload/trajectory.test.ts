import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { makeJob, type Workload } from '../../src/workload/job.js';
import { loadSwf, SwfReader } from '../../src/workload/swf.js';
import { checkTrajectory, rebase, sliceJobs, trajectories, trajectory, trajectoryOrigins } from '../../src/workload/trajectory.js';

const dir = mkdtempSync(join(tmpdir(), 'cgw-traj-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function workload(n: number): Workload {
  const jobs = Array.from({ length: n }, (_, i) =>
    makeJob({ id: `j${i}`, subtime: 100 + 10 * i, ntasks: 1 + (i % 4), runtime: 5 + i, source: `line ${i + 1}` }),
  );
  return { name: 'w', jobs, maxProcs: 8, skipped: { 'runtime<=0': 2 } };
}

describe('trajectories', () => {
  const w = workload(20);

  it('cuts length jobs from origin and rebases their submit times to 0', () => {
    const t = trajectory(w, 5, 3);
    expect(t.name).toBe('w[5..8)');
    expect(t.maxProcs).toBe(8);
    expect(t.skipped).toEqual({ 'runtime<=0': 2 });
    expect(t.jobs).toEqual([
      { ...w.jobs[5], subtime: 0 },
      { ...w.jobs[6], subtime: 10 },
      { ...w.jobs[7], subtime: 20 },
    ]);
    expect(t.jobs.map((j) => [j.id, j.source])).toEqual([
      ['j5', 'line 6'],
      ['j6', 'line 7'],
      ['j7', 'line 8'],
    ]);
    // new objects; the source workload is untouched
    expect(t.jobs[0]).not.toBe(w.jobs[5]);
    expect(w.jobs[5]!.subtime).toBe(150);
    // the whole workload from origin 0
    expect(trajectory(w, 0, 20).jobs[19]!.subtime).toBe(190);
    expect(trajectory(w, 17, 3).jobs.map((j) => j.id)).toEqual(['j17', 'j18', 'j19']);
  });

  it('refuses a trajectory that runs past the end, with both numbers', () => {
    expect(() => trajectory(w, 18, 3)).toThrow(InputError);
    expect(() => trajectory(w, 18, 3)).toThrow(
      'trajectory origin 18 + length 3 = 21 exceeds the 20 jobs of the workload (origin + length must be <= 20; the largest origin for this length is 17)',
    );
    expect(() => trajectory(w, 0, 21)).toThrow('trajectory length 21 exceeds the 20 jobs of the workload');
    expect(() => checkTrajectory(-1, 3, 20)).toThrow('trajectory origin must be an integer >= 0, found -1');
    expect(() => checkTrajectory(0, 0, 20)).toThrow('trajectory length must be an integer >= 1, found 0');
  });

  it('draws a random origin from the seed', () => {
    const o1 = trajectoryOrigins(20, { length: 5, origin: 'random', seed: 1 });
    expect(o1).toHaveLength(1);
    expect(trajectoryOrigins(20, { length: 5, origin: 'random', seed: 1 })).toEqual(o1);
    const seen = new Set<number>();
    for (let s = 0; s < 200; s++) {
      const [o] = trajectoryOrigins(20, { length: 5, origin: 'random', seed: s });
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThanOrEqual(15);
      seen.add(o!);
    }
    // every valid origin 0..15 is reachable
    expect(seen.size).toBe(16);
  });

  it('draws K distinct seeded origins', () => {
    const o = trajectoryOrigins(100, { length: 10, trajectories: 30, seed: 'eval' });
    expect(o).toHaveLength(30);
    expect(new Set(o).size).toBe(30);
    expect(o.every((x) => x >= 0 && x <= 90)).toBe(true);
    expect(trajectoryOrigins(100, { length: 10, trajectories: 30, seed: 'eval' })).toEqual(o);
    expect(trajectoryOrigins(100, { length: 10, trajectories: 30, seed: 'train' })).not.toEqual(o);
    // all of them when K equals the number of origins
    expect([...trajectoryOrigins(12, { length: 10, trajectories: 3 })].sort()).toEqual([0, 1, 2]);
    expect(() => trajectoryOrigins(12, { length: 10, trajectories: 4 })).toThrow(
      '4 distinct trajectories of 10 jobs cannot be drawn from 12 jobs: only 3 distinct origins exist (0..2)',
    );
    const ts = trajectories(w, { length: 4, trajectories: 3, seed: 5 });
    expect(ts).toHaveLength(3);
    for (const t of ts) {
      expect(t.jobs).toHaveLength(4);
      expect(t.jobs[0]!.subtime).toBe(0);
    }
  });

  it('takes an explicit list of origins and validates each', () => {
    expect(trajectories(w, { length: 2, origins: [0, 7, 18] }).map((t) => t.jobs.map((j) => j.id))).toEqual([
      ['j0', 'j1'],
      ['j7', 'j8'],
      ['j18', 'j19'],
    ]);
    expect(() => trajectories(w, { length: 2, origins: [0, 19] })).toThrow('trajectory origin 19 + length 2 = 21 exceeds the 20 jobs');
    expect(() => trajectoryOrigins(20, { length: 2, origins: [1], trajectories: 2 })).toThrow(/either `origins` or `trajectories`/);
    expect(() => trajectoryOrigins(20, { length: 0 })).toThrow(/\$\.length/);
  });

  it('rebases any job list', () => {
    expect(rebase([])).toEqual([]);
    expect(rebase(w.jobs.slice(3, 5)).map((j) => j.subtime)).toEqual([0, 10]);
  });

  it('slices a stream (an SWF reader) without loading it, and stops reading there', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `${i + 1} ${1000 + 7 * i} -1 ${10 + i} 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1`);
    const f = join(dir, 't.swf');
    writeFileSync(f, `${lines.join('\n')}\n`);
    const whole = trajectory(loadSwf(f), 10, 5).jobs;
    const r = new SwfReader(f);
    expect([...sliceJobs(r, 10, 5)]).toEqual(whole);
    expect(r.produced).toBe(15);
    expect(whole.map((j) => j.subtime)).toEqual([0, 7, 14, 21, 28]);
    expect(() => [...sliceJobs(new SwfReader(f), 48, 5)]).toThrow('trajectory origin 48 + length 5 = 53 exceeds the 50 jobs');
  });
});
