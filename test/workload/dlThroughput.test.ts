/**
 * The throughput table (src/workload/dlThroughput.ts): on the generated fixture, rates by hand from its
 * formulas (consolidated 0.9^log2 n, spread 0.6^log2 n, sharing x0.6 / x0.7), the spread fallback, a rate
 * of 0, unmeasured counts; the committed fixture is what its script writes; errors name the JSON path;
 * and on Gavel's measured table (../shared/data/gavel, skipped when absent) every rate of the file is
 * read back, with the speed-up spread the issue quotes (V100 over K80: 0.66x to 11.6x, median 4x).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticThroughputs } from '../../tools/gpu/makeThroughputFixture.js';
import { dlDuration, jobKey, loadThroughputTable, parseJobKey, parseThroughputTable } from '../../src/workload/dlThroughput.js';
import { ROOT, SHARED_DATA, SHARED_MISSING } from '../helpers.js';

const FIXTURE = resolve(ROOT, 'data/gpu/throughputs-synthetic.json');
const GAVEL = resolve(SHARED_DATA, 'gavel/simulation_throughputs.json');
const C32 = 'ConvNet (batch size 32)';
const C128 = 'ConvNet (batch size 128)';
const S2S = 'Seq2Seq (batch size 64)';
const REC = 'RecSys (batch size 1024)';

describe('the synthetic table', () => {
  const t = loadThroughputTable(FIXTURE);

  it('is what tools/gpu/makeThroughputFixture.ts writes', () => {
    expect(JSON.parse(readFileSync(FIXTURE, 'utf8'))).toEqual(syntheticThroughputs());
  });

  it('lists job types, GPU types and counts in order of appearance', () => {
    expect(t.jobTypes).toEqual([C32, C128, S2S, REC]);
    expect(t.gpuTypes).toEqual(['k80', 'p100', 'v100']);
    expect(t.scales).toEqual([1, 2, 4, 8]);
    expect(t.referenceGpu()).toBe('v100');
  });

  it('gives rates alone, consolidated or spread, by hand', () => {
    // 20 steps/s on one V100; 4 on one server: 20 x 4 x 0.9^2 = 64.8; spread: 20 x 4 x 0.6^2 = 28.8
    expect(t.throughput(C32, 'v100', 1)).toBe(20);
    expect(t.throughput(C32, 'v100', 4)).toBeCloseTo(64.8, 12);
    expect(t.throughput(C32, 'v100', 4, true)).toBeCloseTo(28.8, 12);
    // one GPU spread is one GPU: the same rate
    expect(t.throughput(C128, 'p100', 1, true)).toBe(3);
    // no spread rate for Seq2Seq on K80: the consolidated one, 5 x 2 x 0.9 = 9
    expect(t.throughput(S2S, 'k80', 2, true)).toBeCloseTo(9, 12);
    expect(t.throughput(S2S, 'k80', 2)).toBeCloseTo(9, 12);
    // cannot run on 8 K80s: rate 0, duration infinite
    expect(t.throughput(C128, 'k80', 8)).toBe(0);
    expect(dlDuration(100, 0)).toBe(Number.POSITIVE_INFINITY);
    // RecSys runs on one GPU only; 3 GPUs and unknown names are not measured
    expect(t.throughput(REC, 'v100', 2)).toBeUndefined();
    expect(t.throughput(C32, 'v100', 3)).toBeUndefined();
    expect(t.throughput('A3C', 'v100', 1)).toBeUndefined();
    expect(t.throughput(C32, 'a100', 1)).toBeUndefined();
    expect(t.measuredScales(REC, 'k80')).toEqual([1]);
    expect(t.measuredScales(C32, 'k80')).toEqual([1, 2, 4, 8]);
  });

  it('gives the rates of two jobs sharing GPUs', () => {
    // same family x0.6: 20 x 0.6 and 8 x 0.6 on one V100
    expect(t.colocated(C32, C128, 'v100', 1)).toEqual([12, 4.8]);
    // different families x0.7 on 2 P100: 10 x 2 x 0.9 x 0.7 = 12.6 and 8 x 2 x 0.9 x 0.7 = 10.08
    const [a, b] = t.colocated(C32, S2S, 'p100', 2)!;
    expect(a).toBeCloseTo(12.6, 12);
    expect(b).toBeCloseTo(10.08, 12);
    expect(t.colocated(C128, C32, 'k80', 8)).toEqual([0, 0]);
    expect(t.colocated(REC, C32, 'k80', 2)).toBeUndefined();
  });

  it('a duration is steps over rate: 1,000 steps of ConvNet-32 on 4 spread V100s take 1000 / 28.8 s', () => {
    expect(dlDuration(1000, t.throughput(C32, 'v100', 4, true)!)).toBeCloseTo(1000 / 28.8, 12);
  });
});

describe('table errors name the JSON path', () => {
  const bad = (data: unknown) => () => parseThroughputTable(data, 't.json');
  it('keys, rates and pairs', () => {
    expect(bad([])).toThrow(/t\.json: \$: expected an object of GPU types/);
    expect(bad({ v100: { 'ResNet, 1': { null: 1 } } })).toThrow(/\$\.v100\["ResNet, 1"\]: expected a key "\('job type', GPU count\)"/);
    expect(bad({ v100: { [jobKey('A', 1)]: {} } })).toThrow(/expected "null": the rate of the job type alone/);
    expect(bad({ v100: { [jobKey('A', 1)]: { null: -1 } } })).toThrow(/\.null: expected a rate \(steps\/s, >= 0\), found -1/);
    expect(bad({ v100: { [jobKey('A', 1)]: { null: 1, [jobKey('A', 2)]: [1, 1] } } })).toThrow(/expected GPU count 1, found 2/);
    expect(bad({ v100: { [jobKey('A', 1)]: { null: 1, [jobKey('B', 1)]: [1, 1] } } })).toThrow(/unknown job type "B"/);
    expect(bad({ v100: { [jobKey('A', 1)]: { null: 1, [jobKey('A', 1)]: [1] } } })).toThrow(/expected \[rate of "A", rate of "A"\]/);
    expect(bad({ k80_unconsolidated: { [jobKey('A', 1)]: { null: 1 } } })).toThrow(
      /\$\.k80_unconsolidated: spread rates of GPU type "k80" without its consolidated rates/,
    );
  });
  it('parses keys', () => {
    expect(parseJobKey("('LM (batch size 5)', 8)")).toEqual({ jobType: 'LM (batch size 5)', gpus: 8 });
    expect(parseJobKey('null')).toBeUndefined();
  });
});

describe.skipIf(!existsSync(GAVEL))(existsSync(GAVEL) ? "Gavel's measured table" : `Gavel's measured table (${SHARED_MISSING})`, () => {
  const raw = existsSync(GAVEL) ? (JSON.parse(readFileSync(GAVEL, 'utf8')) as Record<string, Record<string, Record<string, number | number[]>>>) : {};
  const t = existsSync(GAVEL) ? loadThroughputTable(GAVEL) : undefined;

  it('26 job types on K80, P100, V100 at 1, 2, 4, 8 GPUs; every rate of the file read back', () => {
    expect(t!.jobTypes).toHaveLength(26);
    expect(t!.gpuTypes).toEqual(['k80', 'p100', 'v100']);
    expect(t!.scales).toEqual([1, 2, 4, 8]);
    let n = 0;
    for (const [gkey, byJob] of Object.entries(raw)) {
      const spread = gkey.endsWith('_unconsolidated');
      const gpu = gkey.replace('_unconsolidated', '');
      for (const [jkey, entry] of Object.entries(byJob)) {
        const { jobType, gpus } = parseJobKey(jkey)!;
        expect(t!.throughput(jobType, gpu, gpus, spread)).toBe(entry.null);
        if (!spread)
          for (const [okey, pair] of Object.entries(entry))
            if (okey !== 'null') expect(t!.colocated(jobType, parseJobKey(okey)!.jobType, gpu, gpus)).toEqual(pair);
        n++;
      }
    }
    expect(n).toBe(83 * 5 + 77);
  });

  it('falls back to the consolidated K80 rate where the spread one is missing, and has ResNet-50 (128) unable to run on 2-8 K80s', () => {
    const r50 = 'ResNet-50 (batch size 64)';
    expect(raw.k80_unconsolidated![jobKey(r50, 4)]).toBeUndefined();
    expect(t!.throughput(r50, 'k80', 4, true)).toBe(raw.k80![jobKey(r50, 4)]!.null);
    expect([2, 4, 8].map((n) => t!.throughput('ResNet-50 (batch size 128)', 'k80', n))).toEqual([0, 0, 0]);
  });

  it('V100 over K80 on one GPU: 0.66x to 11.6x across job types, 4.05x the median', () => {
    const ratios = t!.jobTypes.map((j) => t!.throughput(j, 'v100', 1)! / t!.throughput(j, 'k80', 1)!).sort((a, b) => a - b);
    expect(ratios[0]).toBeCloseTo(0.6625, 4);
    expect(ratios.at(-1)).toBeCloseTo(11.631, 3);
    expect((ratios[12]! + ratios[13]!) / 2).toBeCloseTo(4.0536, 4);
  });
});
