/**
 * `clustergym simulate` on GPU workloads (issue 45): a Gavel trace under FIFO rounds on a three-type
 * platform with every job's JCT by hand (one server and spread, a migration between rounds), a Philly
 * sample on the default three-type cluster, and the bad inputs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, HAVE_SHARED, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const FIXTURE = 'data/gpu/throughputs-synthetic.json';

/** Nodes 0-1: 2 V100 each; node 2: 2 K80; node 3: 2 P100 (4 cores each). */
const PLATFORM = {
  name: 'three-types',
  models: { memory: 'none' },
  clusters: [
    {
      nodes: [
        { count: 2, memory_gb: 8, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }], gpus: { count: 2, type: 'v100' } },
        { count: 1, memory_gb: 8, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }], gpus: { count: 2, type: 'k80' } },
        { count: 1, memory_gb: 8, processors: [{ cores: 4, clock_rate: 1, dpflops_per_cycle: 1 }], gpus: { count: 2, type: 'p100' } },
      ],
    },
  ],
};

/** A 10-field Gavel trace line. */
const line = (jobType: string, steps: number, gpus: number, arrival: number) =>
  [jobType, 'python3 train.py', '.', '-n', '0', steps, gpus, 1, -1, arrival].join('\t');

describe('clustergym simulate, GPU workloads', () => {
  it('a Gavel trace under FIFO rounds: every JCT by hand', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-gpu-'));
    writeFileSync(join(d, 'p.json'), JSON.stringify(PLATFORM));
    // ConvNet (batch size 32), 720 steps each: 36 steps/s on 2 V100s on one server, 7.2 on 2 K80s, 18 on
    // 2 P100s, 28.8 on 4 V100s over two servers; rounds of 60 s
    writeFileSync(
      join(d, 'jobs.trace'),
      `${[line('ConvNet (batch size 32)', 720, 2, 0), line('ConvNet (batch size 32)', 720, 2, 0), line('ConvNet (batch size 32)', 1440, 2, 0), line('ConvNet (batch size 32)', 720, 4, 0)].join('\n')}\n`,
    );
    const r = cli([
      'simulate',
      '--workload',
      join(d, 'jobs.trace'),
      '--platform',
      join(d, 'p.json'),
      '--throughputs',
      FIXTURE,
      '--policy',
      'fifo',
      '--round',
      '60',
      '--out',
      join(d, 'out'),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = readFileSync(join(d, 'out', 'gpu_jobs.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const jct = Object.fromEntries(rows.map((f) => [f[0], Number(f[6])]));
    const where = Object.fromEntries(rows.map((f) => [f[0], `${f[7]} x${f[2]} on ${f[8]}`]));
    // 0, 1: one V100 server each, 720 / 36 = 20 s
    expect(jct['0']).toBeCloseTo(20, 9);
    expect(jct['1']).toBeCloseTo(20, 9);
    // 2: the fastest free type at 0 is the P100s (18/s; the K80s give 7.2): 1080 steps by 60, then the round
    // of 60 moves it to a V100 server (36/s): 360 / 36 = 10 s, ends at 70
    expect(jct['2']).toBeCloseTo(70, 9);
    expect(where['2']).toBe('v100 x2 on 1');
    // 3: 4 GPUs fit no server of 2: it waits until 70 (2 ends, nothing runs: an early round), then runs
    // on 4 V100s over two servers at 28.8/s: 720 / 28.8 = 25 s, ends at 95
    expect(jct['3']).toBeCloseTo(95, 9);
    expect(where['3']).toBe('v100 x4 on 2');
    const s = JSON.parse(readFileSync(join(d, 'out', 'summary.json'), 'utf8'));
    expect(s.jobs_finished).toBe(4);
    expect(s.mean_turnaround).toBeCloseTo((20 + 20 + 70 + 95) / 4, 9);
  });

  it.skipIf(!HAVE_SHARED)(`a Philly sample on the default three-type cluster${HAVE_SHARED ? '' : ` ${SHARED_MISSING}`}`, () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-gpu-'));
    const r = cli(['simulate', '--workload', join(SHARED_DATA, 'pollux/philly.csv'), '--limit', '60', '--policy', 'las', '--out', d]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/platform gpu-3types \(12 nodes, 16 v100, 16 p100, 16 k80\)/);
    expect(r.stdout).toMatch(/jobs finished\s+60/);
    const rows = readFileSync(join(d, 'gpu_jobs.csv'), 'utf8').trim().split('\n').slice(1);
    expect(rows).toHaveLength(60);
    for (const row of rows) expect(['v100', 'p100', 'k80']).toContain(row.split(',')[7]);
  });

  it('refuses a GPU workload without a GPU policy, and GPU flags without one (exit 2)', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-gpu-'));
    writeFileSync(join(d, 'jobs.trace'), `${line('ConvNet (batch size 32)', 720, 2, 0)}\n`);
    const a = cli(['simulate', '--workload', join(d, 'jobs.trace')]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/holds DL jobs: give a GPU policy, --policy fifo\|las\|srtf/);
    const b = cli(['simulate', '--round', '60']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--round: only with a GPU policy/);
    const c = cli([
      'simulate',
      '--workload',
      join(d, 'jobs.trace'),
      '--policy',
      'las',
      '--throughputs',
      FIXTURE,
      '--platform',
      'data/platforms/hetero-20.json',
    ]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/needs a platform with GPUs/);
  });
});
