import { describe, expect, it } from 'vitest';
import { drfAgent, runFairEpisode, tetrisAgent } from '../../agents/fairness/index.js';
import { checkEnv } from '../../envs/checker.js';
import { InvalidActionError } from '../../envs/errors.js';
import { FairEnv, loadFairContext } from '../../envs/fairness/index.js';
import { allEnvIds, make } from '../../envs/registry.js';
import { fairnessCluster, table51Workload } from '../../src/fairness/experiment.js';
import { fairPreset, runFairPreset } from '../../src/fairness/preset.js';
import { drf, type FairScheduler, tetris } from '../../src/scheduling/multiResource.js';

const env = (config: object = {}) => new FairEnv(loadFairContext(config));

function engineRun(sched: FairScheduler, seed: number, taskScale: number) {
  const stats = runFairPreset(fairPreset(fairnessCluster(1), table51Workload(seed, taskScale), sched));
  return { makespan: stats.end, meanWait: stats.totalWait / stats.started, finished: stats.finished };
}

describe('Fair-v0', () => {
  it('is registered and passes checkEnv', () => {
    expect(allEnvIds()).toContain('clustergym/Fair-v0');
    const e = make('clustergym/Fair-v0', { task_scale: 0.02 });
    const report = checkEnv(e, { episodes: 3, seedChangesEpisode: true });
    expect(report.steps).toBeGreaterThan(100);
  });

  it('the drf and tetris agents make the preset’s policies’ runs', () => {
    for (const seed of [1, 2]) {
      for (const [agent, sched] of [
        [drfAgent, drf()],
        [tetrisAgent(0.5), tetris(0.5)],
        [tetrisAgent(0), tetris(0)],
      ] as const) {
        const r = runFairEpisode(env({ task_scale: 0.05 }), agent, seed);
        const d = engineRun(sched, seed, 0.05);
        expect(r.metrics.tasks).toBe(d.finished);
        expect(r.metrics.makespan).toBe(d.makespan);
        expect(r.metrics.mean_wait).toBeCloseTo(d.meanWait, 9);
        // the utilisation reward integrates the load: return = utilisation x makespan / 1000
        expect(r.return).toBeCloseTo((r.metrics.utilisation * r.metrics.makespan) / 1000, 6);
      }
    }
  });

  it('DRF is fairer than pure packing over the episode (Jain over dominant shares)', () => {
    for (const seed of [3, 4]) {
      const d = runFairEpisode(env({ task_scale: 0.1, scale: 2 }), drfAgent, seed);
      const t = runFairEpisode(env({ task_scale: 0.1, scale: 2 }), tetrisAgent(0), seed);
      expect(d.metrics.jain).toBeGreaterThan(t.metrics.jain);
    }
  });

  it('masks placements that do not fit and refuses them', () => {
    const e = env({ task_scale: 0.02, invalid_action: 'raise' });
    e.reset({ seed: 1 });
    const mask = e.actionMask();
    const H = e.hostCount;
    for (let s = 0; s < 10; s++) {
      const t = e.candidateTask(s);
      for (let h = 0; h < H; h++) {
        const fits = t !== undefined && e.state!.hosts.fits(h, t.cpu, t.memory);
        expect(mask[s * H + h]).toBe(fits ? 1 : 0);
      }
    }
    const bad = mask.indexOf(0);
    expect(() => e.step(bad)).toThrow(InvalidActionError);
  });

  it('fairness and mixed rewards; bad config names the field', () => {
    const f = runFairEpisode(env({ task_scale: 0.02, reward: 'fairness' }), drfAgent, 1);
    expect(f.return).toBeCloseTo((f.metrics.jain * f.metrics.makespan) / 1000, 6);
    const m = runFairEpisode(env({ task_scale: 0.02, reward: 'mixed', fairness_weight: 0.25 }), drfAgent, 1);
    expect(m.return).toBeCloseTo(((0.75 * m.metrics.utilisation + 0.25 * m.metrics.jain) * m.metrics.makespan) / 1000, 6);
    expect(() => env({ reward: 'bsld' })).toThrow(/reward/);
    expect(() => env({ hosts: [{ count: 1, cpus: 0, memory: 1 }] })).toThrow(/cpus/);
  });

  it('objective is the reward averaged over the makespan: idling raises the return, not the objective', () => {
    const config = { task_scale: 0.02, reward: 'mixed' as const };
    const m = runFairEpisode(env(config), drfAgent, 2);
    expect(m.metrics.objective).toBeCloseTo(0.5 * m.metrics.utilisation + 0.5 * m.metrics.jain, 12);
    expect(m.metrics.objective).toBeCloseTo((m.return * 1000) / m.metrics.makespan, 6);
    expect(runFairEpisode(env({ task_scale: 0.02 }), drfAgent, 2).metrics.objective).toBeCloseTo(m.metrics.utilisation, 12);
    // a policy that waits for the next event whenever something runs: one task at a time
    const e = env(config);
    const first = e.reset({ seed: 2 });
    let { observation, info } = first;
    const wait = e.actionSpace.n - 1;
    let ret = 0;
    for (;;) {
      const idle = info.running === 0;
      const r = e.step(idle || info.action_mask[wait] !== 1 ? drfAgent.act(e, observation) : wait);
      ret += r.reward;
      ({ observation, info } = r);
      if (r.terminated || r.truncated) break;
    }
    const lazy = info.metrics!;
    expect(lazy.tasks).toBe(m.metrics.tasks);
    expect(lazy.makespan).toBeGreaterThan(m.metrics.makespan);
    expect(ret).toBeGreaterThan(m.return);
    expect(lazy.objective).toBeLessThan(m.metrics.objective);
  });

  it('clone continues the same episode', () => {
    const e = env({ task_scale: 0.02 });
    let o = e.reset({ seed: 5 }).observation;
    for (let i = 0; i < 10; i++) o = e.step(drfAgent.act(e, o)).observation;
    const c = e.clone();
    const a = runRest(e, o);
    const b = runRest(c, o.slice());
    expect(b).toEqual(a);
  });
});

function runRest(e: FairEnv, observation: Float32Array) {
  let o = observation;
  for (;;) {
    const r = e.step(drfAgent.act(e, o));
    o = r.observation;
    if (r.terminated || r.truncated) return r.info.metrics;
  }
}

describe('Fair-v0 on a task trace', () => {
  it('streams a native trace every episode; a missing trace is a config error', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const d = mkdtempSync(join(tmpdir(), 'cg-fair-env-'));
    const f = join(d, 't.csv');
    writeFileSync(f, 'submit,cpu,memory,duration,user\n0,8,8,10,a\n0,8,8,10,b\n5,16,60,10,a\n');
    const e = env({ trace: f, hosts: [{ count: 1, cpus: 16, memory: 64 }] });
    for (const seed of [1, 2]) {
      const r = runFairEpisode(e, drfAgent, seed);
      expect(r.metrics.tasks).toBe(3);
      // a and b share the host from 0 to 10, then a's big task runs alone from 10 to 20
      expect(r.metrics.makespan).toBe(20);
      expect(r.metrics.mean_wait).toBeCloseTo(5 / 3);
    }
    expect(() => env({ trace: join(d, 'nope.csv') })).toThrow(/\$\.trace.*not found/);
    // an unsorted trace names the file and the task (the engine's own error knows neither)
    const u = join(d, 'unsorted.csv');
    writeFileSync(u, 'submit,cpu,memory,duration,user\n0,1,1,10,a\n7,1,1,10,b\n3,1,1,10,a\n');
    const ue = env({ trace: u, hosts: [{ count: 1, cpus: 16, memory: 64 }] });
    expect(() => runFairEpisode(ue, drfAgent, 1)).toThrow(/unsorted\.csv: task 3 is submitted at 3, before the previous task \(7\)/);
  });
});
