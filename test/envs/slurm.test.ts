import { describe, expect, it } from 'vitest';
import { FixedSettingAgent, QueueAdaptiveAgent, runSlurmEpisode } from '../../agents/slurm/index.js';
import { checkEnv } from '../../envs/checker.js';
import { make } from '../../envs/registry.js';
import { SLURM_ACTIONS, SLURM_ENV_ID, SlurmEnv, loadSlurmEnvContext, slurmActionName } from '../../envs/slurm/index.js';

const small = { jobs: 300, nodes: 16, period: 1800, users: 8 };

describe('clustergym/Slurm-v0', () => {
  it('is registered and passes checkEnv, on the Slurm preset (engine: "one", the default)', () => {
    for (const config of [small, { ...small, engine: 'one' }]) {
      const env = make(SLURM_ENV_ID, config);
      const report = checkEnv(env, { episodes: 2, exhaustiveStates: 1, seedChangesEpisode: true });
      expect(report.episodes).toBe(2);
    }
    expect(() => loadSlurmEnvContext({ engine: 'other' })).toThrow(/\$\.engine/);
    // the Slurm engine was retired: its name is refused, saying so
    expect(() => loadSlurmEnvContext({ engine: 'slurm' })).toThrow(/\$\.engine: the Slurm engine \('slurm'\) was retired \(issue 42\)/);
  });

  it('names its actions and validates its config with JSON paths', () => {
    expect(SLURM_ACTIONS).toBe(12);
    expect(slurmActionName(0)).toBe('fairshare/backfill');
    expect(slurmActionName(11)).toBe('large/builtin');
    expect(() => loadSlurmEnvContext({ jobs: 0 })).toThrow(/\$\.jobs/);
    expect(() => loadSlurmEnvContext({ nodez: 4 })).toThrow(/nodez/);
  });

  it('an episode ends with calcmets metrics, return = -(sum of slowdown - 1) / jobs, no accounting violation', () => {
    const env = new SlurmEnv(loadSlurmEnvContext(small));
    const r = runSlurmEpisode(env, new FixedSettingAgent(0), 3);
    expect(r.metrics.jobs).toBe(300);
    expect(r.metrics.suspend_accounting_violations).toBe(0);
    expect(r.return).toBeCloseTo(-(r.metrics.mean_slowdown - 1) * (r.metrics.measured / 300), 9);
  });

  it('settings matter: backfill off waits longer than backfill on, on the same episode', () => {
    const ctx = loadSlurmEnvContext({ ...small, load: 1.1 });
    const on = runSlurmEpisode(new SlurmEnv(ctx), new FixedSettingAgent(0), 5).metrics;
    const off = runSlurmEpisode(new SlurmEnv(ctx), new FixedSettingAgent(8), 5).metrics;
    expect(off.mean_wait).toBeGreaterThan(on.mean_wait);
    const adaptive = runSlurmEpisode(new SlurmEnv(ctx), new QueueAdaptiveAgent(), 5).metrics;
    expect(adaptive.jobs).toBe(300);
  });
});
