/**
 * Information parity (DESIGN §14, issue 44): what each env config lets a policy observe, what each
 * heuristic reads, and the leaderboard's refusal to rank a learned policy that observes more than
 * its setting's heuristics; the system envs' observe options and the heuristics that use the same
 * information (Fair-v0's duration orders, Malleable-v0's shrink rules).
 */
import { describe, expect, it } from 'vitest';
import { playEpisode } from '../../agents/episode.js';
import { drfAgent, durationAgent } from '../../agents/fairness/index.js';
import { heuristicObserves } from '../../agents/leaderboard/heuristics.js';
import { checkParity, heuristicsObserve } from '../../agents/leaderboard/parity.js';
import { runSetting } from '../../agents/leaderboard/run.js';
import { parseSetting } from '../../agents/leaderboard/settings.js';
import { dmrAgent, dmrShrinkAgent, malleableAgent, minAgent, srptAgent } from '../../agents/malleable/index.js';
import { cardIdentity, legacyObserves } from '../../agents/learning/card.js';
import { InputError } from '../../src/core/errors.js';
import type { FairEnv } from '../../envs/fairness/fairEnv.js';
import type { MalleableEnv } from '../../envs/malleable/malleableEnv.js';
import { envObserves, observesMax, observesMore } from '../../envs/observes.js';
import { make } from '../../envs/registry.js';
import { ROOT } from '../helpers.js';
import { join } from 'node:path';

describe('what a policy observes', () => {
  it('defaults to what a live scheduler knows, per env', () => {
    expect(envObserves('clustergym/Job-v0', {})).toEqual({ durations: 'requested', horizon: 'seen' });
    expect(envObserves('clustergym/JobNode-v0', { observe: { horizon: 'trajectory' } })).toEqual({ durations: 'requested', horizon: 'trajectory' });
    expect(envObserves('clustergym/Fair-v0', { observe: { durations: 'actual' } })).toEqual({ durations: 'actual', horizon: 'seen' });
    expect(envObserves('clustergym/Malleable-v0', {})).toEqual({ durations: 'requested', horizon: 'seen' });
    expect(envObserves('clustergym/Slurm-v0', {})).toEqual({ durations: 'none', horizon: 'seen' });
    expect(envObserves('clustergym/CoSched-v0', { observe: { horizon: 'trajectory' } })).toEqual({ durations: 'none', horizon: 'trajectory' });
  });

  it('orders information: none < requested < actual, seen < trajectory < future', () => {
    const live = { durations: 'requested', horizon: 'seen' } as const;
    expect(observesMore(live, live)).toEqual([]);
    expect(observesMore({ durations: 'actual', horizon: 'seen' }, live)).toEqual(['durations: actual > requested']);
    expect(observesMore({ durations: 'none', horizon: 'future' }, live)).toEqual(['horizon: future > seen']);
    expect(observesMax({ durations: 'none', horizon: 'trajectory' }, live)).toEqual({ durations: 'requested', horizon: 'trajectory' });
  });

  it("models trained before the option saw the trajectory's horizon (and Fair-v0's actual durations)", () => {
    expect(legacyObserves('clustergym/Job-v0', {})).toEqual({ durations: 'requested', horizon: 'trajectory' });
    expect(legacyObserves('clustergym/Job-v0', { observe: {} })).toEqual({ durations: 'requested', horizon: 'seen' });
    expect(legacyObserves('clustergym/Fair-v0', {})).toEqual({ durations: 'actual', horizon: 'seen' });
    expect(legacyObserves('clustergym/Malleable-v0', {})).toEqual({ durations: 'requested', horizon: 'seen' });
    // the superseded PPO models of RLScheduler's setting declare it in their config
    expect(cardIdentity(join(ROOT, 'data/models/lublin256'))).toEqual({
      method: 'imitation+ppo',
      neural: true,
      observes: { durations: 'requested', horizon: 'trajectory' },
    });
  });
});

describe('what each heuristic reads', () => {
  const cluster = parseSetting(
    {
      format: 'clustergym-leaderboard-setting',
      name: 'tiny',
      description: 'x',
      env: { id: 'clustergym/JobNode-v0', config: {} },
      metric: 'mean_bsld',
      lower_is_better: true,
      episodes: 1,
      heuristics: { names: ['fcfs:first'] },
      why: 'x',
    },
    'tiny',
  );
  const system = (id: string) => ({ ...cluster, env: { id, config: {} } });
  it('cluster settings: the job order and backfilling decide', () => {
    expect(heuristicObserves(cluster, 'fcfs:first')).toEqual({ durations: 'none', horizon: 'seen' });
    expect(heuristicObserves(cluster, 'smallest:high_gflops')).toEqual({ durations: 'none', horizon: 'seen' });
    expect(heuristicObserves(cluster, 'fcfs:first+easy').durations).toBe('requested');
    expect(heuristicObserves(cluster, 'f1:low_power').durations).toBe('requested');
    expect(heuristicObserves(cluster, 'irmasim:EnergyHeuristic(metric=edp)').durations).toBe('requested');
  });
  it('system settings: the duration rules read requested durations, the others none', () => {
    expect(heuristicObserves(system('clustergym/Fair-v0'), 'drf').durations).toBe('none');
    expect(heuristicObserves(system('clustergym/Fair-v0'), 'lpt-drf(0.5)').durations).toBe('requested');
    expect(heuristicObserves(system('clustergym/Malleable-v0'), 'dmr+shrink').durations).toBe('none');
    expect(heuristicObserves(system('clustergym/Malleable-v0'), 'srpt(300)').durations).toBe('requested');
    expect(heuristicObserves(system('clustergym/Slurm-v0'), 'fixed-9').durations).toBe('none');
    expect(heuristicObserves(system('clustergym/Slurm-v0'), 'fixed-2').durations).toBe('requested');
  });
  it('the most informed heuristic bounds what a learned row may observe', () => {
    const rows = [
      { kind: 'heuristic', observes: { durations: 'none', horizon: 'seen' } as const },
      { kind: 'heuristic', observes: { durations: 'requested', horizon: 'seen' } as const },
      { kind: 'reference', observes: { durations: 'actual', horizon: 'future' } as const },
    ];
    expect(heuristicsObserve(rows)).toEqual({ durations: 'requested', horizon: 'seen' });
    expect(() => checkParity('s', 'm', 'dir', { durations: 'requested', horizon: 'seen' }, heuristicsObserve(rows))).not.toThrow();
    expect(() => checkParity('s', 'm', 'dir', { durations: 'actual', horizon: 'seen' }, heuristicsObserve(rows))).toThrow(InputError);
  });
});

describe('the leaderboard refuses a learned policy that observes more than its heuristics', () => {
  const setting = parseSetting(
    {
      format: 'clustergym-leaderboard-setting',
      name: 'tiny-fair',
      description: 'x',
      env: { id: 'clustergym/Fair-v0', config: { task_scale: 0.01 } },
      metric: 'metrics.objective',
      lower_is_better: false,
      episodes: 2,
      heuristics: { agents: ['drf', 'sjf-drf(0)'] },
      why: 'x',
    },
    'tiny-fair',
  );
  const player = (durations: 'requested' | 'actual') => ({
    name: `oracle-${durations}`,
    model: 'nowhere',
    identity: { method: 'external', neural: false, observes: { durations, horizon: 'seen' as const } },
    play: async () => ({ per_episode: [1, 1], complete: true }),
  });
  it('ranks one that observes requested durations, refuses one that observes the actual ones (naming both)', async () => {
    const ok = await runSetting(setting, 0, 2, [player('requested')]);
    expect(ok.learned.map((l) => l.name)).toEqual(['oracle-requested']);
    const row = ok.policies.find((p) => p.name === 'oracle-requested')!;
    expect(row).toMatchObject({ method: 'external', neural: false, observes: { durations: 'requested', horizon: 'seen' } });
    expect(ok.policies.find((p) => p.name === 'drf')!.observes).toEqual({ durations: 'none', horizon: 'seen' });
    await expect(runSetting(setting, 0, 2, [player('actual')])).rejects.toThrow(
      /oracle-actual observes more than the heuristics of setting tiny-fair are given \(durations: actual > requested\)/,
    );
  });
});

describe('Fair-v0: the duration a policy observes, and the heuristics that read it', () => {
  // Table 5.1 at 1 %: 10 users, the first tasks of every user at t = 0
  const fair = (durations?: string) => make('clustergym/Fair-v0', { task_scale: 0.01, ...(durations ? { observe: { durations } } : {}) }) as unknown as FairEnv;
  const SLOT = 6;
  it("requested: the user's declared duration (Table 5.1's mean); actual: the task's; none: 0", () => {
    const seen: Record<string, number[]> = {};
    for (const d of ['requested', 'actual', 'none']) {
      const env = fair(d);
      const obs = env.reset({ seed: 3 }).observation as Float32Array;
      const base = 4 * env.hostCount;
      seen[d] = env.candidates().map((_, s) => obs[base + SLOT * s + 3]!);
      const slot0 = env.candidateTask(0)!;
      const user = env.state!.users.names[slot0.user]!;
      const mean = { user0: 250, user1: 400, user2: 300, user3: 250, user4: 250, user5: 300, user6: 180, user7: 160, user8: 800, user9: 220 }[user]!;
      expect(seen[d]![0]).toBeCloseTo(d === 'requested' ? mean / 1000 : d === 'actual' ? slot0.duration / 1000 : 0, 6);
    }
    expect(seen['requested']).not.toEqual(seen['actual']);
  });

  it('sjf-drf(1) is DRF (one candidate); sjf-drf(0) starts the shortest declared task first, lpt-drf(0) the longest', () => {
    const env = fair();
    const a = playEpisode(env, drfAgent, 5);
    const b = playEpisode(env, durationAgent('sjf', 1), 5);
    expect(b.metrics).toEqual(a.metrics);
    for (const [order, pick] of [
      ['sjf', Math.min],
      ['lpt', Math.max],
    ] as const) {
      env.reset({ seed: 5 });
      const action = durationAgent(order, 0).act(env, new Float32Array());
      const slot = Math.floor(action / env.hostCount);
      const durations = env.candidates().map((_, s) => env.observedDuration(env.candidateTask(s)!));
      expect(env.observedDuration(env.candidateTask(slot)!)).toBe(pick(...durations));
    }
  });
});

describe('Malleable-v0: observe.durations and the shrink rules', () => {
  const malleable = (durations?: string) =>
    make('clustergym/Malleable-v0', { jobs: 12, ...(durations ? { observe: { durations } } : {}) }) as unknown as MalleableEnv;
  it('requested shows the remaining time at the current size; none shows 0 and keeps the progress', () => {
    const a = malleable().reset({ seed: 1 }).observation as Float32Array;
    const b = malleable('none').reset({ seed: 1 }).observation as Float32Array;
    expect(a[5]).toBeGreaterThan(0);
    expect(b[5]).toBe(0);
    expect(Array.from(b.subarray(0, 5))).toEqual(Array.from(a.subarray(0, 5)));
  });
  it('dmr+shrink answers every queue point with the smallest size and plays dmr at the points; min and srpt(T) by their rules', () => {
    const env = malleable();
    let obs = env.reset({ seed: 2 }).observation as Float32Array;
    let queuePoints = 0;
    for (let steps = 0; steps < 5000; steps++) {
      const p = env.point();
      if (p === null) break;
      const sizes = p.sizes;
      const action = dmrShrinkAgent.act(env, obs);
      const smallest = env.actionMask()[1] === 1 ? 1 : 0;
      if (p.context.kind === 'queue') {
        queuePoints++;
        expect(action).toBe(smallest);
      } else expect(action).toBe(dmrAgent.act(env, obs));
      expect(minAgent.act(env, obs)).toBe(sizes[0] === p.context.size ? 0 : smallest);
      // srpt with T = infinity: every job is short (it never shrinks at a queue point)
      if (p.context.kind === 'queue') expect(srptAgent(1e12).act(env, obs)).toBe(0);
      const r = env.step(action);
      obs = r.observation as Float32Array;
      if (r.terminated || r.truncated) break;
    }
    expect(queuePoints).toBeGreaterThan(0);
    expect(malleableAgent('srpt(300)')!.name).toBe('srpt(300)');
    expect(malleableAgent('srpt(x)')).toBeUndefined();
  });
});

describe('Slurm-v0 and CoSched-v0: the seen horizon', () => {
  it('Slurm-v0: jobs finished and time normalised by the jobs submitted so far (seen) or by the episode (trajectory)', () => {
    const obs = (horizon: string) => {
      const env = make('clustergym/Slurm-v0', { jobs: 3000, nodes: 8, observe: { horizon } });
      env.reset({ seed: 1 });
      const r = env.step(2);
      expect(r.terminated || r.truncated).toBe(false);
      return r.observation as Float32Array;
    };
    const seen = obs('seen');
    const trajectory = obs('trajectory');
    // fewer jobs submitted than the episode's: the seen fractions are larger
    expect(seen[6]).toBeGreaterThanOrEqual(trajectory[6]!);
    expect(seen[7]).toBeGreaterThan(trajectory[7]!);
    expect(Array.from(seen.subarray(0, 6))).toEqual(Array.from(trajectory.subarray(0, 6)));
  });
});
