/**
 * `clustergym malleable` through the built CLI: the paper's workload under dmr and rigid, a
 * workload file, outputs, and bad input (exit code 2 with the JSON path).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/malleable/preset.js';
import { dmrPolicy } from '../../src/malleable/policy.js';
import { paperWorkload } from '../../src/malleable/workload.js';
import { cli } from '../helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cg-mall-'));

describe('clustergym malleable', () => {
  it('runs the paper workload: the same numbers as simulate(dmr); rigid waits longer', () => {
    const r = cli(['malleable', '--jobs', '60', '--seed', '4', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    const d = simulate(paperWorkload({ jobs: 60, seed: 4 }), dmrPolicy);
    expect(s.mean_wait).toBe(d.meanWait);
    expect(s.shrinks).toBe(d.shrinks);
    const rigid = JSON.parse(cli(['malleable', '--jobs', '60', '--seed', '4', '--rigid', '--json']).stdout);
    expect(rigid.policy).toBe('rigid');
    expect(rigid.shrinks + rigid.expands).toBe(0);
    expect(rigid.mean_wait).toBeGreaterThan(s.mean_wait);
  });
  it('reads a workload file and writes summary.json, jobs.csv, resizes.csv', () => {
    const d = tmp();
    const file = join(d, 'w.json');
    writeFileSync(
      file,
      JSON.stringify({
        nodes: 4,
        apps: { lin: { t1: 1, serial: 0 } },
        jobs: [
          { id: 'A', subtime: 0, app: 'lin', steps: 10, malleable: { min: 1, max: 4, pref: 2 } },
          { id: 'B', subtime: 0.1, app: 'lin', steps: 3, nodes: 2 },
        ],
      }),
    );
    const out = join(d, 'out');
    const r = cli(['malleable', '--workload', file, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/makespan +4\.0980/);
    expect(readFileSync(join(out, 'resizes.csv'), 'utf8')).toBe('time,job,from,to,cost\n0.25,A,4,2,0.425\n2.175,A,2,4,0.423\n');
    const jobs = readFileSync(join(out, 'jobs.csv'), 'utf8').trim().split('\n');
    expect(jobs[1]!.split(',').slice(-3)).toEqual(['2', '1', '1']);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).jobs).toBe(2);
  });
  it('bad input: exit 2 naming the file and the JSON path', () => {
    const d = tmp();
    const file = join(d, 'bad.json');
    writeFileSync(file, JSON.stringify({ jobs: [{ subtime: 0, app: 'cg', steps: 10, malleable: { min: 2, max: 24, pref: 8 } }] }));
    const r = cli(['malleable', '--workload', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.json: $.jobs[0].malleable: max (24) must be pref (8)');
    expect(cli(['malleable', '--policy', 'greedy']).code).toBe(2);
  });
  it('--jobs above 10,000 is an input error naming the flag (a million jobs ran for minutes)', () => {
    const r = cli(['malleable', '--jobs', '1000000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--jobs/);
  });
});
