/**
 * Gavel's workloads (src/workload/gavel.ts) and the Philly jobs (philly.ts): the trace layouts (10 and 7
 * fields) by hand on the synthetic table, errors naming the line, unmeasured jobs skipped; the generator's
 * distributions and rules (GPU mix, run times, Poisson arrivals, distributed types, steps = run time x the
 * V100 rate, weights), and on Gavel's table its first jobs equal to those of Gavel's own `generate_job`
 * (run in this session with CPython; values below); the Philly reader's order, selection, skips and
 * steps. Tests on ../shared data skip when it is absent.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadThroughputTable } from '../../src/workload/dlThroughput.js';
import { generateGavel, jobTypeDraw, loadGavelTrace, parseGavelTrace } from '../../src/workload/gavel.js';
import { jobGpus } from '../../src/workload/gpuRequest.js';
import { loadPhillyJobs, phillyTime } from '../../src/workload/philly.js';
import { ROOT, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const synthetic = loadThroughputTable(resolve(ROOT, 'data/gpu/throughputs-synthetic.json'));
const GAVEL_TABLE = resolve(SHARED_DATA, 'gavel/simulation_throughputs.json');
const PHILLY = resolve(SHARED_DATA, 'pollux/philly.csv');
const HAVE_GAVEL = existsSync(GAVEL_TABLE);
const title = (name: string, ok: boolean) => (ok ? name : `${name} (${SHARED_MISSING})`);

const C32 = 'ConvNet (batch size 32)';
const S2S = 'Seq2Seq (batch size 64)';
const REC = 'RecSys (batch size 1024)';

describe('Gavel traces', () => {
  const ten = [
    [C32, 'python3 main.py', 'cnn', '--steps', '1', '6480', '4', '1', '-1.000000', '120'],
    [REC, 'python3 rec.py', 'rec', '-n', '1', '1500', '1', '5', '1.2', '0'],
    [S2S, 'python3 s2s.py', 's2s', '-step', '0', '900', '2', '1', '-1', '60.5'],
  ]
    .map((f) => f.join('\t'))
    .join('\n');

  it('reads the 10-field layout: steps, GPUs, weight, arrival; runtime = steps / the V100 rate', () => {
    const w = parseGavelTrace(`${ten}\n`, 'a.trace', { table: synthetic });
    // sorted by arrival; ids are the file order
    expect(w.jobs.map((j) => [j.id, j.subtime])).toEqual([
      ['1', 0],
      ['2', 60.5],
      ['0', 120],
    ]);
    const [rec, s2s, c32] = w.jobs;
    expect(rec!.gpus).toEqual({ count: 1, perNode: false, weight: 5, dl: { jobType: REC, steps: 1500 } });
    // V100 rates: RecSys 15 on 1; Seq2Seq 10 x 2 x 0.9 = 18 on 2; ConvNet-32 20 x 4 x 0.81 = 64.8 on 4
    expect(rec!.runtime).toBe(100);
    expect(s2s!.runtime).toBeCloseTo(50, 12);
    expect(c32!.runtime).toBeCloseTo(100, 12);
    expect([c32!.ntasks, c32!.type, c32!.nodes, c32!.work, c32!.reqTime]).toEqual([4, 'mpi', 0, 'delay', c32!.runtime]);
    expect(jobGpus(c32!)).toBe(4);
    expect(c32!.source).toBe('line 1');
  });

  it('reads the 7-field layout (weight 1) and another reference GPU', () => {
    const seven = [`${C32}\tcmd\t--steps\t1\t640\t30\t2`, `${REC}\tcmd\t-n\t1\t120\t0\t1`].join('\n');
    const w = parseGavelTrace(seven, 'm.trace', { table: synthetic, referenceGpu: 'k80' });
    // K80: ConvNet-32 4 x 2 x 0.9 = 7.2 steps/s on 2; RecSys 12 on 1
    expect(w.jobs.map((j) => [j.id, j.subtime, j.gpus!.count, j.gpus!.weight, j.runtime])).toEqual([
      ['1', 0, 1, 1, 10],
      ['0', 30, 2, 1, 640 / 7.2],
    ]);
  });

  it('skips jobs the table has no rate for, and counts them', () => {
    const w = parseGavelTrace(`${REC}\tcmd\t-n\t1\t120\t0\t4\n${C32}\tcmd\t-n\t1\t120\t0\t3\n${C32}\tcmd\t-n\t1\t120\t0\t1`, 'm.trace', { table: synthetic });
    expect(w.jobs.map((j) => j.id)).toEqual(['2']);
    expect(w.skipped).toEqual({ [`no rate for ${REC} on 4 GPUs`]: 1, [`no rate for ${C32} on 3 GPUs`]: 1 });
  });

  it('names the line of a malformed job', () => {
    const parse = (t: string) => () => parseGavelTrace(t, 'b.trace', { table: synthetic });
    expect(parse('a\tb\tc')).toThrow(/b\.trace:1: expected 10 tab-separated fields \(Gavel's trace\) or 7 \(its older layout\), found 3/);
    expect(parse(`${ten.split('\n')[0]}\n${C32}\tcmd\t--steps\t1\t640\t30\t2`)).toThrow(/b\.trace:2: expected 10 fields as the lines before, found 7/);
    expect(parse(`${C32}\tcmd\t--steps\t1\tmany\t30\t2`)).toThrow(/b\.trace:1: field 5 \(total_steps\): expected a number of steps > 0, found "many"/);
    expect(parse(`${C32}\tcmd\t--steps\t1\t640\t30\t1.5`)).toThrow(/field 7 \(scale_factor\): expected a whole number of GPUs >= 1/);
    expect(parse(`BERT\tcmd\t--steps\t1\t640\t30\t1`)).toThrow(/b\.trace:1: field 1 \(job_type\): "BERT" is not a job type of the throughput table/);
    expect(() => parseGavelTrace('', 'c.trace', { table: synthetic, referenceGpu: 'a100' })).toThrow(
      /reference GPU type "a100" is not in the throughput table/,
    );
  });
});

describe('Gavel’s generator on the synthetic table', () => {
  const w = generateGavel({ jobs: 20000, arrivalsPerHour: 3, multiPriority: true }, 0, synthetic);

  it('GPUs 1/2/4/8 with p 0.70/0.10/0.15/0.05, multi-GPU jobs of distributed types only', () => {
    const n = w.jobs.length;
    const share = (g: number) => w.jobs.filter((j) => j.gpus!.count === g).length / n;
    // binomial standard deviation at n = 20,000 is at most 0.0035: 4 sigma
    expect(share(1)).toBeCloseTo(0.7, 1);
    expect(Math.abs(share(1) - 0.7)).toBeLessThan(0.014);
    expect(Math.abs(share(2) - 0.1)).toBeLessThan(0.009);
    expect(Math.abs(share(4) - 0.15)).toBeLessThan(0.011);
    expect(Math.abs(share(8) - 0.05)).toBeLessThan(0.007);
    expect(w.jobs.filter((j) => j.gpus!.count > 1 && j.gpus!.dl!.jobType === REC)).toEqual([]);
    expect(new Set(w.jobs.map((j) => j.gpus!.dl!.jobType)).size).toBe(4);
  });

  it('run times 60 x 10^U(1.5, 3) s with p 0.8, else 60 x 10^U(3, 4) s; steps = run time x the V100 rate', () => {
    const e = w.jobs.map((j) => Math.log10(j.runtime / 60));
    expect(e.every((x) => x >= 1.5 && x < 4)).toBe(true);
    expect(Math.abs(e.filter((x) => x >= 3).length / e.length - 0.2)).toBeLessThan(0.012);
    for (const j of w.jobs.slice(0, 200)) expect(j.gpus!.dl!.steps).toBe(j.runtime * synthetic.throughput(j.gpus!.dl!.jobType, 'v100', j.gpus!.count)!);
  });

  it('Poisson arrivals at the rate asked (mean gap 1,200 s at 3 jobs/h), the first at 0, ids in arrival order', () => {
    expect(w.jobs[0]!.subtime).toBe(0);
    const last = w.jobs.at(-1)!.subtime;
    expect(Math.abs(last / (w.jobs.length - 1) - 1200)).toBeLessThan(1200 * 0.04);
    expect(w.jobs.every((j, i) => j.id === String(i) && (i === 0 || j.subtime >= w.jobs[i - 1]!.subtime))).toBe(true);
  });

  it('weights 5 for 20 % of jobs with multi-priority; single-GPU and fixed durations when asked; same seed, same jobs', () => {
    expect(Math.abs(w.jobs.filter((j) => j.gpus!.weight === 5).length / w.jobs.length - 0.2)).toBeLessThan(0.012);
    const single = generateGavel({ jobs: 300, arrivalsPerHour: 0, multiGpu: false, fixedDuration: 3600 }, 4, synthetic);
    expect(single.jobs.every((j) => j.gpus!.count === 1 && j.runtime === 3600 && j.subtime === 0 && j.gpus!.weight === 1)).toBe(true);
    expect(generateGavel({ jobs: 50, arrivalsPerHour: 3 }, 9, synthetic)).toEqual(generateGavel({ jobs: 50, arrivalsPerHour: 3 }, 9, synthetic));
    expect(() => generateGavel({ jobs: 5, arrivalsPerHour: 3 }, 1.5, synthetic)).toThrow(/whole seed >= 0/);
    expect(() => generateGavel({ jobs: 5, arrivalsPerHour: -1 }, 1, synthetic, 'g.json')).toThrow(/g\.json: \$\.arrivalsPerHour/);
  });
});

describe.skipIf(!HAVE_GAVEL)(title('Gavel’s generator and traces on Gavel’s table', HAVE_GAVEL), () => {
  const table = HAVE_GAVEL ? loadThroughputTable(GAVEL_TABLE) : synthetic;

  it('draws job types in Gavel’s job-table order; ResNet-18, ResNet-50, Transformer and LM are distributed', () => {
    const d = jobTypeDraw(table);
    expect(d.order.slice(0, 6)).toEqual([
      'ResNet-18 (batch size 16)',
      'ResNet-18 (batch size 32)',
      'ResNet-18 (batch size 64)',
      'ResNet-18 (batch size 128)',
      'ResNet-18 (batch size 256)',
      'ResNet-50 (batch size 16)',
    ]);
    expect(d.order.slice(19)).toEqual([
      'Recommendation (batch size 512)',
      'Recommendation (batch size 1024)',
      'Recommendation (batch size 2048)',
      'Recommendation (batch size 4096)',
      'Recommendation (batch size 8192)',
      'A3C',
      'CycleGAN',
    ]);
    expect(d.distributed.filter(Boolean)).toHaveLength(19);
  });

  // Gavel's utils.generate_job (github.com/stanford-futuredata/gavel, c4fa400) with random.Random(seed + 2),
  // arrivals -log(1 - random()) / (1 / lam) from random.Random(seed + 3), lam = 3600 / 2.6, run with
  // CPython 3 in this session: job type, GPUs, run time (s), steps, weight, arrival (s)
  const GAVEL_SEED0: [string, number, number, number, number, number][] = [
    ['ResNet-18 (batch size 64)', 8, 68344.350105950871, 17484476.26110642, 1, 0],
    ['Transformer (batch size 16)', 1, 31016.609145932231, 343170.46864225325, 1, 376.28626601584841],
    ['Recommendation (batch size 2048)', 1, 2146.6088374387864, 16034.37819420177, 1, 1464.2689654293781],
    ['Recommendation (batch size 8192)', 1, 7386.6748197459447, 20989.313058424774, 1, 2103.9118394713651],
    ['LM (batch size 5)', 4, 6858.6982069701098, 869104.86889806762, 1, 3386.2583761436467],
    ['Transformer (batch size 64)', 1, 445845.32667457394, 3842187.5729611241, 1, 4746.991791498469],
  ];
  const GAVEL_SEED7_PRIORITY: [string, number, number][] = [
    ['Recommendation (batch size 2048)', 1, 5],
    ['LM (batch size 40)', 1, 1],
    ['LM (batch size 5)', 2, 1],
    ['ResNet-18 (batch size 256)', 1, 1],
  ];

  it('gives the jobs of Gavel’s own generator, draw for draw (floats to 1e-15)', () => {
    const w = generateGavel({ jobs: 6, arrivalsPerHour: 2.6 }, 0, table);
    w.jobs.forEach((j, i) => {
      const [type, gpus, runtime, steps, weight, arrival] = GAVEL_SEED0[i]!;
      expect([j.gpus!.dl!.jobType, j.gpus!.count, j.gpus!.weight]).toEqual([type, gpus, weight]);
      expect(Math.abs(j.runtime - runtime) / runtime).toBeLessThan(1e-15);
      expect(Math.abs(j.gpus!.dl!.steps - steps) / steps).toBeLessThan(1e-15);
      expect(Math.abs(j.subtime - arrival)).toBeLessThanOrEqual(arrival * 1e-15);
    });
    const p = generateGavel({ jobs: 4, arrivalsPerHour: 2.6, multiPriority: true }, 7, table);
    expect(p.jobs.map((j) => [j.gpus!.dl!.jobType, j.gpus!.count, j.gpus!.weight])).toEqual(GAVEL_SEED7_PRIORITY);
  });

  it('reads its traces: 15 and 14 jobs, and the msr trace with 15 of its 2,000 jobs unmeasured', () => {
    const a = loadGavelTrace(resolve(SHARED_DATA, 'gavel/artifact_evaluation.trace'), { table });
    expect(a.jobs).toHaveLength(15);
    // ResNet-50 (batch size 64), 2,931 steps on 1 GPU, at 0: its run time at the V100 rate
    expect(a.jobs[0]!.runtime).toBe(2931 / table.throughput('ResNet-50 (batch size 64)', 'v100', 1)!);
    expect(loadGavelTrace(resolve(SHARED_DATA, 'gavel/debug.trace'), { table }).jobs).toHaveLength(14);
    const m = loadGavelTrace(resolve(SHARED_DATA, 'gavel/msr-seed0-6214e9.trace'), { table });
    expect(m.jobs).toHaveLength(1985);
    expect(Object.values(m.skipped).reduce((x, y) => x + y, 0)).toBe(15);
    expect(m.skipped['no rate for A3C on 2 GPUs']).toBe(3);
  });
});

describe('Philly jobs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-philly-'));
  const file = join(dir, 'philly.csv');
  writeFileSync(
    file,
    [
      'timestamp,duration,num_gpus,gpu_time,cluster',
      '2017-10-09 07:01:55,66.0,1,66.0,vc1',
      '2017-10-09 06:13:03,2951.0,2,5902.0,vc2',
      '2017-10-09 06:13:03,120.0,16,1920.0,vc1',
      '2017-10-09 06:00:00,0.0,1,0.0,vc1',
      '2017-10-09 08:00:00,30.0,4,120.0,vc1',
      '',
    ].join('\n'),
  );

  it('reads timestamps as UTC', () => {
    expect(phillyTime('2017-10-09 07:01:55')).toBe(Date.UTC(2017, 9, 9, 7, 1, 55) / 1000);
    expect(phillyTime('yesterday')).toBeNaN();
  });

  it('orders by submission, skips what cannot run, rebases times, steps = duration x the V100 rate', () => {
    const w = loadPhillyJobs(file, { table: synthetic });
    expect(w.skipped).toEqual({ 'duration<=0': 1, 'num_gpus=16 (no rate in the throughput table)': 1 });
    expect(w.jobs.map((j) => [j.id, j.subtime, j.gpus!.count, j.runtime, j.source])).toEqual([
      ['0', 0, 2, 2951, 'line 3'],
      ['1', 48 * 60 + 52, 1, 66, 'line 2'],
      ['2', 6417, 4, 30, 'line 6'],
    ]);
    for (const j of w.jobs) expect(j.gpus!.dl!.steps).toBe(j.runtime * synthetic.throughput(j.gpus!.dl!.jobType, 'v100', j.gpus!.count)!);
    expect(w.jobs.filter((j) => j.gpus!.count > 1 && j.gpus!.dl!.jobType === REC)).toEqual([]);
  });

  it('selects a virtual cluster, skips and limits', () => {
    const w = loadPhillyJobs(file, { table: synthetic, cluster: 'vc1', skip: 1, limit: 5 });
    expect(w.name).toBe('philly-vc1');
    expect(w.jobs.map((j) => [j.subtime, j.runtime])).toEqual([[0, 30]]);
  });

  it('names the line of a malformed row', () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,two,66.0,vc1\n');
    expect(() => loadPhillyJobs(bad, { table: synthetic })).toThrow(/bad\.csv:2: num_gpus: expected a whole number >= 1, found "two"/);
    writeFileSync(bad, 'when,duration\n');
    expect(() => loadPhillyJobs(bad, { table: synthetic })).toThrow(/bad\.csv:1: expected a header with .*; missing timestamp, num_gpus, cluster/);
  });

  describe.skipIf(!existsSync(PHILLY) || !HAVE_GAVEL)(
    title('the 82,247 jobs of ../shared/data/pollux/philly.csv (its README says 82,248: the file ends with an empty line)', existsSync(PHILLY) && HAVE_GAVEL),
    () => {
      const table = HAVE_GAVEL ? loadThroughputTable(GAVEL_TABLE) : synthetic;
      it('keeps the 81,958 jobs of 1-8 GPUs; cluster 6214e9 has 41,226 jobs, all of 1-8 GPUs', () => {
        const w = loadPhillyJobs(PHILLY, { table });
        expect(w.jobs).toHaveLength(81958);
        expect(Object.values(w.skipped).reduce((a, b) => a + b, 0)).toBe(289);
        const v = loadPhillyJobs(PHILLY, { table, cluster: '6214e9', seed: 3, limit: 1000 });
        expect(v.jobs).toHaveLength(1000);
        expect(v.jobs[0]!.subtime).toBe(0);
        expect(v.jobs.every((j, i) => i === 0 || j.subtime >= v.jobs[i - 1]!.subtime)).toBe(true);
        expect(loadPhillyJobs(PHILLY, { table, cluster: '6214e9', seed: 3, limit: 1000 })).toEqual(v);
        const other = loadPhillyJobs(PHILLY, { table, cluster: '6214e9', seed: 4, limit: 1000 });
        expect(other.jobs.map((j) => j.subtime)).toEqual(v.jobs.map((j) => j.subtime));
        expect(other.jobs.map((j) => j.gpus!.dl!.jobType)).not.toEqual(v.jobs.map((j) => j.gpus!.dl!.jobType));
      });
    },
  );
});
