/**
 * Policy names and the `compare` / `simulate --policy` commands through the built CLI
 * (`node dist/cli/main.js`, compiled by the global setup): the table, `--out DIR` (compare.json)
 * and `--json` (the same report on stdout).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parsePolicyName, validPolicyNames } from '../../src/scheduling/policyName.js';
import { cli } from '../helpers.js';

const ALL_NAMES = [
  'fcfs',
  'random',
  'sjf',
  'ljf',
  'smallest',
  'low_mem',
  'low_mem_bw',
  'wfp3',
  'unicep',
  'f1',
  'high_gflops',
  'high_cores',
  'high_mem',
  'high_mem_bw',
  'low_power',
  'none',
  'easy',
  'conservative',
];

describe('policy names', () => {
  it('parses JOB[:RESOURCE][+BACKFILL] with defaults and aliases', () => {
    expect(parsePolicyName('fcfs')).toEqual({ job: 'fcfs', resource: 'first', backfill: 'none', name: 'fcfs:first' });
    expect(parsePolicyName('sjf:first+easy').name).toBe('sjf:first+easy');
    expect(parsePolicyName('SHORTEST:High_Gflops').name).toBe('sjf:high_gflops');
    expect(parsePolicyName('f1+conservative').name).toBe('f1:first+conservative');
    expect(parsePolicyName('wfp3', 'easy').name).toBe('wfp3:first+easy');
    expect(parsePolicyName('wfp3+none', 'easy').name).toBe('wfp3:first');
  });

  it('a bad name is an InputError naming the bad part and listing every valid name', () => {
    for (const bad of ['xyz', 'sjf:fastest', 'sjf:first+eazy', 'a:b:c', 'sjf+easy+none', '']) {
      let err: unknown;
      try {
        parsePolicyName(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      for (const n of ALL_NAMES) expect((err as Error).message).toContain(n);
    }
    expect(() => parsePolicyName('sjf:fastest')).toThrow(/unknown resource selection "fastest"/);
    expect(validPolicyNames()).toContain('fcfs (first)');
  });
});

describe('CLI', () => {
  it('simulate --policy with a bad name: exit 2, the valid names listed, nothing on stdout', () => {
    const r = cli(['simulate', '--policy', 'fastest-first']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown job selection "fastest-first"');
    for (const n of ALL_NAMES) expect(r.stderr).toContain(n);
  });

  it('compare --policies with a bad name: exit 2 listing the names', () => {
    const r = cli(['compare', '--policies', 'fcfs,sjf:first+eazy']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown backfilling "eazy"');
    for (const n of ALL_NAMES) expect(r.stderr).toContain(n);
  });

  it('compare: trajectory flags must come with --length; --backfill must be a name', () => {
    expect(cli(['compare', '--trajectories', '3']).code).toBe(2);
    expect(cli(['compare', '--backfill', 'greedy']).stderr).toContain('--backfill');
  });

  it('simulate --policy sjf:first+easy runs and names its policy', () => {
    const r = cli(['simulate', '--policy', 'sjf', '--backfill', 'easy', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).jobs_finished).toBe(300);
  });

  it('compare on a small SWF trace without --platform: a table and DIR/compare.json with --out DIR', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-compare-'));
    const swf = join(d, 't.swf');
    // 4 processors; jobs (submit, run, procs): a 0 10 4; b 1 100 3; c 2 5 2; d 3 5 1
    const line = (id: number, sub: number, run: number, procs: number) => `${id} ${sub} -1 ${run} ${procs} -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1`;
    writeFileSync(swf, `${['; MaxProcs: 4', line(1, 0, 10, 4), line(2, 1, 100, 3), line(3, 2, 5, 2), line(4, 3, 5, 1)].join('\n')}\n`);
    const out = join(d, 'out');
    const r = cli(['compare', '--workload', swf, '--policies', 'fcfs,sjf,fcfs+easy', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('homogeneous-4 (4 nodes, 4 cores)');
    expect(r.stdout).toMatch(/fcfs:first\+easy/);
    expect(r.stdout).toContain(`results in ${join(out, 'compare.json')}`);
    const j = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as { policies: { name: string; mean_wait: number; per_trajectory: unknown[] }[] };
    expect(j.policies.map((p) => p.name)).toEqual(['fcfs:first', 'sjf:first', 'fcfs:first+easy']);
    for (const p of j.policies)
      expect(Object.keys(p).sort()).toEqual(['energy', 'makespan', 'mean_bsld', 'mean_wait', 'name', 'per_trajectory', 'utilisation']);
    // fcfs: a 0..10; at 10 b (3 cores) starts, c (2) does not fit and d waits behind it: both at 110
    //   -> waits 0, 9, 108, 107: mean 56
    // sjf: at 10 c and d (5 s) go before b (100 s): c 10, d 10, b 15 -> waits 0, 14, 8, 7: mean 7.25
    // fcfs+easy: at 10 b starts; c is the head (reserved at 110); d (1 core, ends at 15) backfills at 10
    //   -> waits 0, 9, 108, 7: mean 31
    expect(j.policies.map((p) => p.mean_wait)).toEqual([56, 7.25, 31]);
    expect(j.policies[0]!.per_trajectory).toHaveLength(1);
  });

  it('compare with --origins and --length cuts those trajectories; --json prints the report of --out on stdout', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-compare-'));
    const r = cli(['compare', '--policies', 'fcfs', '--origins', '0,100', '--length', '50', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { trajectories: { label: string; jobs: number }[]; policies: { per_trajectory: { trajectory: string }[] }[] };
    expect(j.trajectories).toEqual([
      { label: '0', jobs: 50 },
      { label: '100', jobs: 50 },
    ]);
    expect(j.policies[0]!.per_trajectory.map((t) => t.trajectory)).toEqual(['0', '100']);
    // the same report as the file --out writes
    expect(cli(['compare', '--policies', 'fcfs', '--origins', '0,100', '--length', '50', '--out', d]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'compare.json'), 'utf8'))).toEqual(j);
  });
});
