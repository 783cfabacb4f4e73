/**
 * The per-action feature maps of the flat linear policy (agents/learning/actionFeatures.ts) and the
 * action restriction of flat.ts: Fair-v0's pair features on a hand-made observation (every value
 * computed by hand), the DRF theta's choices there, the layout solved from the env's sizes, and a
 * CoSched-v0 policy restricted to the MPL_TOTAL actions; the trainer with a feature map and hidden
 * units (named init, deterministic, resumed exactly, the best validation theta kept).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { playEpisode } from '../../agents/episode.js';
import { fairLayout, featureAction, featureMap } from '../../agents/learning/actionFeatures.js';
import { flatShape, linearAgent, linearScorer, parseFlatEsConfig, readLinearPolicy, thetaOf, trainFlat } from '../../agents/learning/flat.js';
import { make } from '../../envs/registry.js';

const FAIR = 'clustergym/Fair-v0';

/** H = 3 hosts, S = 10 slots: 76 observations, 31 actions. */
function fairState(): { obs: number[]; mask: number[] } {
  const obs = new Array<number>(76).fill(0);
  // hosts: free cores, free memory (/ capacity), cores, memory (/ the largest)
  obs.splice(0, 12, 0.5, 0.25, 1, 1, 1, 1, 1, 0.75, 0, 0, 1, 1);
  // slot 0: 2 of 16 cores, 5 of 64 memory, 250 s, dominant share 0.05, 60 waiting tasks
  obs.splice(12, 6, 1, 0.125, 0.078125, 0.25, 0.05, 0.6);
  // slot 1: 10 cores, 2 memory, 220 s, share 0, 20 waiting
  obs.splice(18, 6, 1, 0.625, 0.03125, 0.22, 0, 0.2);
  // globals: CPU load, memory load, waiting / 1000, users / S
  obs.splice(72, 4, 0.5, 0.4, 0.3, 0.2);
  const mask = new Array<number>(31).fill(0);
  for (const a of [0, 1, 4, 30]) mask[a] = 1; // slot 0 on hosts 0 and 1, slot 1 on host 1, wait
  return { obs, mask };
}

describe('fair-pairs features', () => {
  const map = featureMap('fair-pairs', FAIR, 31, 76);
  const row = (phi: Float64Array, a: number) => Object.fromEntries(map.names.map((n, i) => [n, phi[a * map.size + i]!]));

  it('solves H and S from the sizes of the env (31 actions, 76 observations: 3 hosts, 10 slots)', () => {
    expect(fairLayout(31, 76)).toEqual({ H: 3, S: 10 });
    const env = make(FAIR, { scale: 2 });
    const { A, D } = flatShape(env);
    expect(fairLayout(A, D)).toEqual({ H: 6, S: 10 });
    expect(() => fairLayout(31, 77)).toThrow(/no host and slot counts/);
    expect(() => featureMap('fair-pairs', 'clustergym/CoSched-v0', 31, 76)).toThrow(/Fair-v0's/);
  });

  it('hand-computed features of a placement, another slot, the wait, and zeros for masked actions', () => {
    const { obs, mask } = fairState();
    const phi = new Float64Array(31 * map.size);
    map.fill(obs, mask, phi);
    const a0 = row(phi, 0);
    // demand (2/16, 5/64) of host 0's capacity against its free (0.5, 0.25)
    expect(a0.align).toBeCloseTo(0.9954954725939523, 12);
    expect({ ...a0, align: 0 }).toEqual({
      place: 1,
      rank: 0,
      cpu: 0.125,
      mem: 0.078125,
      duration: 0.25,
      share: 0.5,
      waiting: 0.6,
      align: 0,
      cpu_left: 0.375,
      mem_left: 0.171875,
      user_work: expect.closeTo(30 * 0.6 * 0.25 * 0.125, 12),
      task_work: 0.03125,
      share_gap: 0,
      cpu_load: 0.5,
      cpu_fill: 0.25,
      host_mem: 1,
      rank_x_users: 0,
      duration_x_users: expect.closeTo(0.05, 12),
      user_work_x_users: expect.closeTo(0.1125, 12),
      cpu_left_sq: 0.140625,
      wait: 0,
      'wait:cpu_load': 0,
      'wait:mem_load': 0,
      'wait:users': 0,
      'wait:waiting': 0,
      'wait:head_cpu': 0,
      'wait:head_fits': 0,
    });
    // slot 1 on host 1 (48 memory of the largest 64: mc = 0.75)
    const a4 = row(phi, 4);
    expect(a4.rank).toBeCloseTo(0.1, 12);
    expect(a4.align).toBeCloseTo(0.7525766947068778, 12);
    expect(a4.cpu_left).toBeCloseTo(0.375, 12);
    expect(a4.mem_left).toBeCloseTo(1 - 0.03125 / 0.75, 12);
    expect(a4.share_gap).toBeCloseTo(-0.5, 12);
    expect(a4.host_mem).toBe(0.75);
    expect(row(phi, 30)).toMatchObject({
      place: 0,
      wait: 1,
      'wait:cpu_load': 0.5,
      'wait:mem_load': 0.4,
      'wait:users': 0.2,
      'wait:waiting': 0.3,
      'wait:head_cpu': 0.125,
      'wait:head_fits': 1,
    });
    for (const a of [2, 3, 5, 29]) expect(row(phi, a).place).toBe(0);
  });

  it("DRF's theta starts slot 0 on its best-aligned host, and waits when slot 0 fits nowhere", () => {
    const { obs, mask } = fairState();
    const theta = new Float64Array(map.size);
    theta[map.names.indexOf('rank')] = -30;
    theta[map.names.indexOf('align')] = 1;
    theta[map.names.indexOf('wait')] = -0.5;
    const phi = new Float64Array(31 * map.size);
    map.fill(obs, mask, phi);
    // host 1 aligns 0.99589 with slot 0's demand, host 0 0.99550
    expect(featureAction(theta, phi, mask, 31, map.size)).toBe(1);
    const blocked = mask.map((m, a) => (a === 0 || a === 1 ? 0 : m));
    map.fill(obs, blocked, phi);
    expect(featureAction(theta, phi, blocked, 31, map.size)).toBe(30);
  });
});

describe('allowed_actions', () => {
  it('a CoSched-v0 policy restricted to the MPL_TOTAL actions plays only those (theta 0: the lowest of them)', () => {
    const env = make('clustergym/CoSched-v0', { sim: { n_jobs: 30 } });
    const { A, D } = flatShape(env);
    const allowed = [2, 5, 8, 11];
    const played = new Set<number>();
    const agent = linearAgent(env, new Float64Array(A * (D + 1)), { features: 'actions', allowed_actions: allowed });
    playEpisode(
      env,
      {
        name: 'x',
        act: (en, obs) => {
          const a = agent.act(en, obs);
          played.add(a);
          return a;
        },
      },
      1,
    );
    expect([...played]).toEqual([2]);
    // a theta that prefers action 0 (not allowed) and then 11: the restriction keeps 11
    const theta = new Float64Array(A * (D + 1));
    theta[0 * (D + 1) + D] = 5;
    theta[11 * (D + 1) + D] = 1;
    const scorer = linearScorer({ features: 'actions', allowed_actions: allowed }, env.id, A, D);
    expect(scorer.act(theta, new Float32Array(D), new Uint8Array(A).fill(1))).toBe(11);
    // when no allowed action is valid, the env's mask decides
    const onlyZero = new Uint8Array(A);
    onlyZero[0] = 1;
    expect(scorer.act(theta, new Float32Array(D), onlyZero)).toBe(0);
    expect(() => linearScorer({ features: 'actions', allowed_actions: [12] }, env.id, A, D)).toThrow(/not an action/);
    env.close();
  });
});

describe('flat ES with a feature map and hidden units', () => {
  const config = (generations: number, hidden: number) =>
    parseFlatEsConfig(
      {
        format: 'clustergym-es-flat',
        setting: 'fair',
        env: { id: FAIR, config: { reward: 'mixed', task_scale: 0.01 } },
        metric: 'metrics.objective',
        lower_is_better: false,
        features: 'fair-pairs',
        hidden,
        seed: 5,
        es: {
          generations,
          population: 1,
          episodes: 1,
          reference: 'drf',
          init: hidden ? { 'h0:rank': -1, 'out:h0': 3 } : { rank: -30, align: 1, wait: -0.5 },
          validation_episodes: 2,
        },
        checkpoint_every: 1,
      },
      'test',
    );

  it('names the parameters, is deterministic by seed, resumes exactly, and keeps the best validation theta', () => {
    const out = (s: string) => mkdtempSync(join(tmpdir(), `cg-es-fp-${s}-`));
    const a = trainFlat(config(2, 2), { outDir: out('a') });
    const pa = readLinearPolicy(a.modelDir);
    expect(pa.features).toBe('fair-pairs');
    expect(pa.hidden).toBe(2);
    expect(pa.weights.length).toBe(2 * (27 + 1) + 2);
    expect(pa.feature_names!.slice(0, 2)).toEqual(['h0:place', 'h0:rank']);
    expect(pa.feature_names!.at(-1)).toBe('out:h1');
    expect(readLinearPolicy(trainFlat(config(2, 2), { outDir: out('b') }).modelDir)).toEqual(pa);
    const first = trainFlat(config(1, 2), { outDir: out('c') });
    const resumed = trainFlat(config(2, 2), { outDir: out('d'), resume: join(first.modelDir, '..', 'checkpoints', 'gen-00001') });
    expect(readLinearPolicy(resumed.modelDir)).toEqual(pa);
    // the linear map from DRF's theta: the model plays (theta of 27 weights, named as the features)
    const lin = readLinearPolicy(trainFlat(config(1, 0), { outDir: out('e') }).modelDir);
    expect(lin.weights.length).toBe(27);
    const env = make(FAIR, { reward: 'mixed', task_scale: 0.01 });
    expect(Number.isFinite(playEpisode(env, linearAgent(env, thetaOf(lin), lin), 3).return)).toBe(true);
    expect(() => linearAgent(env, thetaOf(lin), { features: 'fair-pairs', hidden: 1 })).toThrow(/need 29/);
    env.close();
  });
});
