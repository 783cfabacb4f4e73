/**
 * Vector envs: `makeVec` steps n envs in one call with same-step auto-reset, and gives what the
 * same envs give one by one; the worker_threads variant gives exactly the same batches.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { observationDigest } from '../../envs/checker.js';
import { InvalidActionError, make, sampleMasked, type Observation } from '../../envs/index.js';
import { makeVec, type BatchObservation, type VecEnv } from '../../envs/vector.js';
import { makeVecWorkers } from '../../envs/workerVec.js';
import { Rng } from '../../src/core/rng.js';
import { SMALL } from './envHelpers.js';

function row(o: BatchObservation, i: number, n: number): Observation {
  if (o instanceof Float32Array) {
    const w = o.length / n;
    return o.slice(i * w, (i + 1) * w);
  }
  const part = (a: Float32Array) => a.slice((i * a.length) / n, ((i + 1) * a.length) / n);
  return { jobs: part(o['jobs']!), nodes: part(o['nodes']!), global: part(o['global']!) };
}

/** Plays `steps` random masked steps; returns a digest of every batch. */
function trace(v: VecEnv, steps: number, seed: number): string[] {
  const n = v.numEnvs;
  const A = v.singleActionSpace.n;
  const rng = new Rng(`vec/${seed}`);
  const out: string[] = [];
  const r = v.reset({ seed });
  out.push(Array.from({ length: n }, (_, i) => observationDigest(row(r.observations, i, n))).join(','));
  const acts = new Int32Array(n);
  for (let s = 0; s < steps; s++) {
    const m = v.actionMasks();
    for (let i = 0; i < n; i++) acts[i] = sampleMasked(m.subarray(i * A, (i + 1) * A), rng);
    const st = v.step(acts);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const fin = st.infos[i]!.final_observation;
      parts.push(
        `${observationDigest(row(st.observations, i, n))}|${st.rewards[i]}|${st.terminated[i]}|${st.truncated[i]}|${st.infos[i]!.time}` +
          (fin ? `|F${observationDigest(fin)}|${JSON.stringify(st.infos[i]!.final_info!.metrics)}` : ''),
      );
    }
    out.push(parts.join(','));
  }
  return out;
}

describe('makeVec', () => {
  it('rows equal the same envs stepped one by one, with same-step auto-reset', () => {
    const config = { ...SMALL, k: 4 };
    const n = 3;
    const v = makeVec(n, 'clustergym/Job-v0', config);
    const singles = Array.from({ length: n }, () => make('clustergym/Job-v0', config));
    const r = v.reset({ seed: 10 });
    for (const [i, e] of singles.entries()) expect(observationDigest(row(r.observations, i, n))).toBe(observationDigest(e.reset({ seed: 10 + i }).observation));
    const rng = new Rng('vec');
    const A = v.singleActionSpace.n;
    let resets = 0;
    for (let s = 0; s < 400; s++) {
      const m = v.actionMasks();
      const acts = Array.from({ length: n }, (_, i) => sampleMasked(m.subarray(i * A, (i + 1) * A), rng));
      const st = v.step(acts);
      for (let i = 0; i < n; i++) {
        const one = singles[i]!.step(acts[i]!);
        expect(st.rewards[i]).toBe(one.reward);
        expect(st.terminated[i]).toBe(one.terminated ? 1 : 0);
        if (one.terminated || one.truncated) {
          resets++;
          expect(observationDigest(st.infos[i]!.final_observation!)).toBe(observationDigest(one.observation));
          expect(st.infos[i]!.final_info!.metrics).toEqual(one.info.metrics);
          const again = singles[i]!.reset();
          expect(observationDigest(row(st.observations, i, n))).toBe(observationDigest(again.observation));
        } else expect(observationDigest(row(st.observations, i, n))).toBe(observationDigest(one.observation));
        expect(Array.from(v.actionMasks().subarray(i * A, (i + 1) * A))).toEqual(Array.from(singles[i]!.actionMask()));
      }
    }
    expect(resets).toBeGreaterThan(3);
    v.close();
    v.close();
  });

  it('an invalid action in any env throws and moves no env (invalid_action: "raise")', () => {
    const v = makeVec(2, { id: 'clustergym/Job-v0', config: { ...SMALL, k: 4, invalid_action: 'raise' } });
    v.reset({ seed: 1 });
    const A = v.singleActionSpace.n;
    const m = v.actionMasks();
    const good = [m.subarray(0, A).indexOf(1), m.subarray(A).indexOf(1)];
    const bad = m.subarray(A).indexOf(0);
    expect(() => v.step([good[0]!, bad])).toThrow(/env 1: invalid action/);
    expect(() => v.step([good[0]!, bad])).toThrow(InvalidActionError);
    const r = v.step(good);
    const w = makeVec(2, { id: 'clustergym/Job-v0', config: { ...SMALL, k: 4 } });
    w.reset({ seed: 1 });
    const r2 = w.step(good);
    expect(Array.from(r.rewards)).toEqual(Array.from(r2.rewards));
    expect(r.infos.map((x) => x.time)).toEqual(r2.infos.map((x) => x.time));
  });
});

describe('makeVecWorkers (worker_threads)', () => {
  const open: VecEnv[] = [];
  afterAll(() => {
    for (const v of open) v.close();
  });

  for (const [id, config] of [
    ['clustergym/JobNode-v0', { ...SMALL, k: 3 }],
    ['clustergym/Job-v0', { ...SMALL, k: 4, observation: 'flat', unfit: 'reserve', backfilling: 'easy' }],
    ['clustergym/PolicyPair-v0', { ...SMALL, observation: 'minimal' }],
  ] as const)
    it(`${id}: the same batches as makeVec (2 threads and 3)`, async () => {
      const want = trace(makeVec(5, id, config), 150, 3);
      for (const threads of [2, 3]) {
        const v = await makeVecWorkers(5, id, config, { threads });
        open.push(v);
        expect(v.workerCount).toBe(threads - 1);
        expect(trace(v, 150, 3)).toEqual(want);
        v.close();
        v.close();
      }
    });

  it('refuses an invalid action before any worker moves, and reports a bad config', async () => {
    const v = await makeVecWorkers(4, 'clustergym/Job-v0', { ...SMALL, k: 4, invalid_action: 'raise' }, { threads: 2 });
    open.push(v);
    v.reset({ seed: 2 });
    const A = v.singleActionSpace.n;
    const m = v.actionMasks();
    const acts = [0, 1, 2, 3].map((i) => m.subarray(i * A, (i + 1) * A).indexOf(1));
    const bad = acts.slice();
    bad[3] = m.subarray(3 * A, 4 * A).indexOf(0);
    expect(() => v.step(bad)).toThrow(/env 3: invalid action/);
    const r = v.step(acts);
    const s = makeVec(4, 'clustergym/Job-v0', { ...SMALL, k: 4 });
    s.reset({ seed: 2 });
    expect(Array.from(r.rewards)).toEqual(Array.from(s.step(acts).rewards));
    await expect(makeVecWorkers(2, 'clustergym/Job-v0', { k: -1 })).rejects.toThrow(/\$\.k/);
  });
});
