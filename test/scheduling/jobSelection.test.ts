/**
 * Job selection: every key on a tiny queue, hand-computed values and orders; ties keep arrival
 * order; guards against -Infinity/NaN; seeded random.
 */
import { describe, expect, it } from 'vitest';
import { derive, PythonRandom } from '../../src/core/rng.js';
import {
  canonicalJobSelection,
  f1Key,
  fcfsSelection,
  type JOB_SELECTION_NAMES,
  makeJobSelection,
  randomSelection,
  unicepKey,
  wfp3Key,
} from '../../src/scheduling/jobSelection.js';
import { makeJob, type Job } from '../../src/workload/job.js';

/** q: arrival order a, b, c, d (submit 0, 10, 20, 30). */
function queue(): Job[] {
  return [
    makeJob({ id: 'a', subtime: 0, ntasks: 4, runtime: 100, reqTime: 100, mem: 300, memVol: 50 }),
    makeJob({ id: 'b', subtime: 10, ntasks: 1, runtime: 10, reqTime: 400, mem: 100, memVol: 70 }),
    makeJob({ id: 'c', subtime: 20, ntasks: 2, runtime: 10, reqTime: 50, mem: 200, memVol: 10 }),
    makeJob({ id: 'd', subtime: 30, ntasks: 1, runtime: 10, reqTime: 50, mem: 100, memVol: 10 }),
  ];
}

const ids = (jobs: Job[]) => jobs.map((j) => j.id).join('');
const order = (name: (typeof JOB_SELECTION_NAMES)[number], now = 100, origin = 0) =>
  ids(makeJobSelection(name, derive(1, 'policy')).order(queue(), now, origin));

describe('static keys', () => {
  it('fcfs: arrival order', () => expect(order('fcfs')).toBe('abcd'));
  it('sjf: req_time 100, 400, 50, 50 -> c, d (tie: arrival), a, b', () => expect(order('sjf')).toBe('cdab'));
  it('ljf: the reverse key, ties in arrival order', () => expect(order('ljf')).toBe('bacd'));
  it('smallest: ntasks 4, 1, 2, 1 -> b, d, c, a', () => expect(order('smallest')).toBe('bdca'));
  it('low_mem: mem 300, 100, 200, 100 -> b, d, c, a', () => expect(order('low_mem')).toBe('bdca'));
  it('low_mem_bw: mem_vol 50, 70, 10, 10 -> c, d, a, b', () => expect(order('low_mem_bw')).toBe('cdab'));
});

describe('RLScheduler priority functions', () => {
  it('wfp3 = -(wait/req_time)^3 * ntasks', () => {
    const [a, b, c, d] = queue();
    // now 100: a: -(100/100)^3*4 = -4; b: -(90/400)^3*1 = -0.011390625; c: -(80/50)^3*2 = -8.192; d: -(70/50)^3 = -2.744
    expect(wfp3Key(a!, 100)).toBe(-4);
    expect(wfp3Key(b!, 100)).toBeCloseTo(-0.011390625, 15);
    expect(wfp3Key(c!, 100)).toBeCloseTo(-8.192, 12);
    expect(wfp3Key(d!, 100)).toBeCloseTo(-2.744, 12);
    expect(order('wfp3', 100)).toBe('cadb');
  });

  it('unicep = -wait / (log2(ntasks) * req_time), log2(1) taken as 1', () => {
    const [a, b, c, d] = queue();
    // a: -100/(2*100) = -0.5; b: -90/(1*400) = -0.225; c: -80/(1*50) = -1.6; d: -70/(1*50) = -1.4
    expect(unicepKey(a!, 100)).toBe(-0.5);
    expect(unicepKey(b!, 100)).toBe(-0.225);
    expect(unicepKey(c!, 100)).toBe(-1.6);
    expect(unicepKey(d!, 100)).toBe(-1.4);
    expect(order('unicep', 100)).toBe('cdab');
  });

  it('f1 = log10(req_time) * ntasks + 870 * log10(original subtime)', () => {
    const [a, b, c] = queue();
    // origin 1000 (the original submit time of the first job): subtimes 1000, 1010, 1020, 1030
    expect(f1Key(a!, 1000)).toBeCloseTo(2 * 4 + 870 * 3, 9);
    expect(f1Key(b!, 1000)).toBeCloseTo(Math.log10(400) + 870 * Math.log10(1010), 9);
    expect(f1Key(c!, 1000)).toBeCloseTo(Math.log10(50) * 2 + 870 * Math.log10(1020), 9);
    // a: 2618; b: 2.602 + 2613.76 = 2616.36...; c: 3.398 + 2617.49 = 2620.89; d: 1.699 + 2621.72
    expect(order('f1', 100, 1000)).toBe('bacd');
  });

  it('f1 guards: subtime 0 and req_time 0 are taken as 0.1 s (RLScheduler), never -Infinity or NaN', () => {
    const j = makeJob({ id: 'z', subtime: 0, ntasks: 3, runtime: 0, reqTime: 0 });
    expect(f1Key(j, 0)).toBeCloseTo(-1 * 3 + 870 * -1, 12);
    expect(Number.isFinite(wfp3Key(j, 10))).toBe(true);
    expect(wfp3Key(j, 10)).toBeCloseTo(-((10 / 0.1) ** 3) * 3, 6);
    expect(unicepKey(j, 10)).toBeCloseTo(-10 / (Math.log2(3) * 0.1), 9);
  });

  it('the dynamic keys change the order with time', () => {
    // at now = 30, wfp3: a -(30/100)^3*4 = -0.108; b -(20/400)^3 = -1.25e-4; c -(10/50)^3*2 = -0.016; d 0
    expect(order('wfp3', 30)).toBe('acbd');
  });
});

describe('names, ties and random', () => {
  it('aliases are IRMaSim names', () => {
    expect(canonicalJobSelection('first')).toBe('fcfs');
    expect(canonicalJobSelection('shortest')).toBe('sjf');
    expect(canonicalJobSelection('low_mem_ops')).toBe('low_mem_bw');
    expect(canonicalJobSelection('nope')).toBeNull();
  });

  it('equal keys keep arrival order', () => {
    const q = [0, 1, 2, 3, 4].map((i) => makeJob({ id: `j${i}`, subtime: i, ntasks: 1, runtime: 5 }));
    for (const name of ['sjf', 'ljf', 'smallest', 'low_mem', 'low_mem_bw'] as const)
      expect(ids(makeJobSelection(name, derive(0, 'policy')).order(q, 10))).toBe('j0j1j2j3j4');
    expect(ids(fcfsSelection.order(q, 10))).toBe('j0j1j2j3j4');
  });

  it("random is IRMaSim's: a number drawn per job when first keyed (queue order), kept for the job's life", () => {
    const q = queue();
    const r1 = randomSelection(new PythonRandom(7));
    const first = ids(r1.order(q, 0));
    expect([...first].sort().join('')).toBe('abcd');
    expect(ids(r1.order(q, 0))).toBe(first); // the keys stay
    // the keys are random.random() draws in queue order: seed 7 gives the jobs a..d these numbers
    const py = new PythonRandom(7);
    const keys = q.map(() => py.next());
    expect(q.map((j) => r1.key(j, 0, 0))).toEqual(keys);
    const expected = q
      .map((j, i) => ({ id: j.id, k: keys[i]! }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.id)
      .join('');
    expect(first).toBe(expected);
    // another seed, another order somewhere among a few seeds
    const orders = new Set([1, 2, 3, 4, 5].map((s) => ids(randomSelection(derive(s, 'policy')).order(q, 0))));
    expect(orders.size).toBeGreaterThan(1);
  });
});
