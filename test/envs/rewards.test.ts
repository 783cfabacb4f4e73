/**
 * Rewards: the dense terms integrate exactly what they claim (sum of -flowtime rewards = minus the
 * total time jobs spent in the system; sum of -energy rewards = minus the episode's energy; sum of
 * -dt = minus the makespan), terminal terms are paid once from the episode's metrics, weights
 * combine, and truncation pays no terminal term.
 */
import { describe, expect, it } from 'vitest';
import { RandomMaskedAgent } from '../../agents/heuristics/index.js';
import { make } from '../../envs/index.js';
import { play, SMALL } from './envHelpers.js';

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(b));

describe('rewards', () => {
  for (const id of ['clustergym/JobNode-v0', 'clustergym/Job-v0', 'clustergym/PolicyPair-v0'] as const)
    it(`${id}: dense flowtime, energy and dt sum to the episode's totals`, () => {
      for (const seed of [1, 2, 3]) {
        const agent = new RandomMaskedAgent(seed);
        const flow = play(make(id, { ...SMALL, k: 4, reward: 'flowtime' }), (e) => agent.act(e), seed);
        const m = flow.last.info.metrics!;
        const sumFlow = flow.rewards.reduce((a, b) => a + b, 0);
        expect(m.jobs_finished).toBe(20);
        expect(rel(sumFlow, -(m.mean_turnaround * m.jobs_finished))).toBeLessThan(1e-9);

        const agent2 = new RandomMaskedAgent(seed);
        const en = play(make(id, { ...SMALL, k: 4, reward: 'energy' }), (e) => agent2.act(e), seed);
        expect(
          rel(
            en.rewards.reduce((a, b) => a + b, 0),
            -en.last.info.metrics!.energy,
          ),
        ).toBeLessThan(1e-9);

        const agent3 = new RandomMaskedAgent(seed);
        const dt = play(make(id, { ...SMALL, k: 4, reward: 'dt' }), (e) => agent3.act(e), seed);
        expect(
          rel(
            dt.rewards.reduce((a, b) => a + b, 0),
            -dt.last.info.metrics!.makespan,
          ),
        ).toBeLessThan(1e-9);
      }
    });

  it('terminal rewards are paid once, at termination, from info.metrics', () => {
    for (const [term, value] of [
      ['bsld', (m: Record<string, number>) => -m['mean_bsld']!],
      ['wait', (m: Record<string, number>) => -m['mean_wait']!],
      ['slowdown', (m: Record<string, number>) => -m['mean_slowdown']!],
      ['makespan', (m: Record<string, number>) => -m['makespan']!],
      ['utilisation', (m: Record<string, number>) => m['utilisation']!],
    ] as const) {
      const agent = new RandomMaskedAgent(4);
      const r = play(make('clustergym/Job-v0', { ...SMALL, k: 4, reward: term }), (e) => agent.act(e), 4);
      expect(r.rewards.slice(0, -1).every((x) => x === 0)).toBe(true);
      expect(r.rewards.at(-1)).toBe(value(r.last.info.metrics! as unknown as Record<string, number>));
      expect(r.last.info.episode!.return).toBe(r.rewards.at(-1));
    }
  });

  it('weighted sums combine terms', () => {
    const a = new RandomMaskedAgent(9);
    const w = play(make('clustergym/Job-v0', { ...SMALL, k: 4, reward: { bsld: 2, flowtime: 1e-3, dt: 0.5 } }), (e) => a.act(e), 9);
    const m = w.last.info.metrics!;
    const total = w.rewards.reduce((x, y) => x + y, 0);
    const want = -2 * m.mean_bsld - 1e-3 * m.mean_turnaround * m.jobs_finished - 0.5 * m.makespan;
    expect(rel(total, want)).toBeLessThan(1e-9);
  });

  it('truncation on max_steps and max_sim_time: metrics so far, no terminal reward, no more steps', () => {
    const env = make('clustergym/Job-v0', { ...SMALL, k: 4, max_steps: 3 });
    env.reset({ seed: 1 });
    const mask = () => env.actionMask().indexOf(1);
    expect(env.step(mask()).truncated).toBe(false);
    expect(env.step(mask()).truncated).toBe(false);
    const last = env.step(mask());
    expect(last.truncated).toBe(true);
    expect(last.terminated).toBe(false);
    expect(last.reward).toBe(0);
    expect(last.info.metrics).toBeDefined();
    expect(last.info.episode!.steps).toBe(3);
    expect(() => env.step(0)).toThrow(/episode is over/);
    expect(env.actionMask().every((x) => x === 0)).toBe(true);

    const env2 = make('clustergym/Job-v0', { ...SMALL, k: 4, max_sim_time: 150 });
    const a = new RandomMaskedAgent(1);
    const r = play(env2, (e) => a.act(e), 1);
    expect(r.last.truncated).toBe(true);
    expect(r.last.info.time).toBeGreaterThanOrEqual(150);
  });
});
