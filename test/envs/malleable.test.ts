/**
 * clustergym/Malleable-v0: passes the env checker; the dmr agent reproduces the dmr simulation
 * exactly and never-resize the rigid one; masks, errors, rewards summing to minus the mean wait.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dmrAgent, neverAgent, runMalleableEpisode } from '../../agents/malleable/index.js';
import { checkEnv } from '../../envs/checker.js';
import { InvalidActionError } from '../../envs/errors.js';
import type { MalleableInfo } from '../../envs/malleable/malleableEnv.js';
import { loadMalleableContext, MalleableEnv } from '../../envs/malleable/index.js';
import { make } from '../../envs/registry.js';
import { simulate } from '../../src/malleable/preset.js';
import { dmrPolicy, neverPolicy } from '../../src/malleable/policy.js';
import { paperWorkload, rigidVersion } from '../../src/malleable/workload.js';

const env = (config: object = {}) => new MalleableEnv(loadMalleableContext(config));

describe('Malleable-v0', () => {
  it('is registered and passes checkEnv', () => {
    const e = make('clustergym/Malleable-v0', { jobs: 12 });
    const report = checkEnv(e, { episodes: 3, seedChangesEpisode: true });
    expect(report.steps).toBeGreaterThan(100);
  });
  it('the dmr agent reproduces simulate(dmr); never reproduces the rigid run', () => {
    for (const seed of [1, 2]) {
      const w = paperWorkload({ jobs: 40, seed });
      const d = simulate(w, dmrPolicy);
      const r = runMalleableEpisode(env({ jobs: 40 }), dmrAgent, seed);
      expect(r.metrics.mean_wait).toBe(d.meanWait);
      expect(r.metrics.makespan).toBe(d.makespan);
      expect(r.metrics.shrinks).toBe(d.shrinks);
      expect(r.metrics.expands).toBe(d.expands);
      // every point, plus the queue points (where dmr declines)
      expect(r.metrics.queue_points).toBeGreaterThan(0);
      expect(r.metrics.shrink_requests).toBe(0);
      expect(r.steps).toBe(d.expands + d.shrinks + d.noActions + r.metrics.queue_points);
      const q = simulate(w, dmrPolicy, { queuePoints: true });
      expect(r.metrics.queue_points).toBe(q.queuePoints);
      // the return is minus the mean waiting time in ks
      expect(r.return).toBeCloseTo(-d.meanWait / 1000, 6);
      const rigid = simulate(rigidVersion(w), neverPolicy);
      const n = runMalleableEpisode(env({ jobs: 40 }), neverAgent, seed);
      expect(n.metrics.mean_wait).toBeCloseTo(rigid.meanWait, 6);
      expect(n.metrics.makespan).toBeCloseTo(rigid.makespan, 6);
      expect(n.metrics.shrinks + n.metrics.expands).toBe(0);
      expect(r.metrics.mean_wait).toBeLessThan(n.metrics.mean_wait);
    }
  });
  it('masks: no-action always, the current size never, expansions only into free nodes', () => {
    const e = env({ jobs: 10, queue_points: false, invalid_action: 'raise' });
    const { observation, info } = e.reset({ seed: 3 });
    const p = e.point()!;
    expect(info.action_mask[0]).toBe(1);
    const cur = p.sizes.indexOf(p.context.size) + 1;
    expect(info.action_mask[cur]).toBe(0);
    p.sizes.forEach((s, i) => {
      if (s > p.context.size && s - p.context.size > p.context.free) expect(info.action_mask[i + 1]).toBe(0);
      if (s < p.context.size) expect(info.action_mask[i + 1]).toBe(1);
    });
    expect(observation[0]).toBeCloseTo(p.context.size / 64, 6);
    expect(() => e.step(cur)).toThrow(InvalidActionError);
    expect(() => e.step(99)).toThrow(InvalidActionError);
  });
  it('resize costs come from the config', () => {
    const w = paperWorkload({ jobs: 20, seed: 6 });
    const d = simulate(w, dmrPolicy, { cost: { expand: 5, shrink: 7 } });
    const r = runMalleableEpisode(env({ jobs: 20, expand_cost: 5, shrink_cost: 7 }), dmrAgent, 6);
    expect(r.metrics.mean_wait).toBe(d.meanWait);
    expect(r.metrics.makespan).toBe(d.makespan);
    expect(() => loadMalleableContext({ shrink_cost: -1 })).toThrow(/\$\.shrink_cost/);
  });
  it('config errors name the key', () => {
    expect(() => loadMalleableContext({ jobz: 3 })).toThrow(/jobz/);
    expect(() => loadMalleableContext({ reward: 'bsld' })).toThrow(/\$\.reward/);
  });
  it('completion reward sums to minus the mean completion time', () => {
    const w = paperWorkload({ jobs: 20, seed: 5 });
    const d = simulate(w, dmrPolicy);
    const r = runMalleableEpisode(env({ jobs: 20, reward: 'completion', scale: 1 }), dmrAgent, 5);
    expect(r.return).toBeCloseTo(-d.meanCompletion, 4);
  });
  it('queue_points: false asks only at reconfiguration points', () => {
    const w = paperWorkload({ jobs: 20, seed: 2 });
    const d = simulate(w, dmrPolicy);
    const r = runMalleableEpisode(env({ jobs: 20, queue_points: false }), dmrAgent, 2);
    expect(r.metrics.queue_points).toBe(0);
    expect(r.steps).toBe(d.expands + d.shrinks + d.noActions);
  });
  it('a queue point: kind flag, shrink-only mask, a request carried out at the next point (hand-computed)', () => {
    // the engine test's scenario (test/malleable/queuePoints.test.ts): 4 nodes, A malleable 1..4
    // (sizes 1, 2, 4), pref 4, inhibit 1, 10 steps of 1/n s; B rigid 2 nodes, 3 steps, at 0.1
    const w = {
      nodes: 4,
      apps: { lin: { t1: 1, serial: 0 } },
      jobs: [
        { id: 'A', subtime: 0, app: 'lin', steps: 10, malleable: { min: 1, max: 4, pref: 4, factor: 2, inhibit: 1 } },
        { id: 'B', subtime: 0.1, app: 'lin', steps: 3, nodes: 2 },
      ],
    };
    const dir = mkdtempSync(join(tmpdir(), 'cg-mall-'));
    const file = join(dir, 'w.json');
    writeFileSync(file, JSON.stringify(w));
    const e = env({ workload: file, invalid_action: 'raise' });
    expect(e.actionSpace.n).toBe(4);
    expect(e.observationSpace.shape).toEqual([15]);
    const { observation, info } = e.reset({ seed: 0 });
    expect([info.kind, info.job, info.time]).toEqual(['queue', 'A', 0.1]);
    expect(observation[11]).toBe(1);
    // sizes 1, 2, 4 at 4: requests for 1 or 2 only
    expect([...info.action_mask]).toEqual([1, 1, 1, 0]);
    expect(() => e.step(3)).toThrow(/queue point only takes shrink requests/);
    // request 2: carried out at A's point at 1 (not offered); B starts at 1.425; next decision is
    // A's point at 2.425 on 2 nodes, queue empty, no free node
    let r = e.step(2);
    let i: MalleableInfo = r.info;
    expect(i.kind).toBe('point');
    expect(i.time).toBeCloseTo(2.425, 12);
    expect(r.observation[11]).toBe(0);
    expect(r.observation[0]).toBeCloseTo(2 / 4, 6);
    expect([...i.action_mask]).toEqual([1, 1, 0, 0]);
    r = e.step(0);
    // 3.425: B gone, 2 free: expand to 4 (action 3)
    expect(r.info.time).toBeCloseTo(3.425, 12);
    expect([...r.info.action_mask]).toEqual([1, 1, 0, 1]);
    r = e.step(3);
    i = r.info;
    expect(r.terminated).toBe(true);
    expect(i.metrics).toMatchObject({ jobs: 2, shrinks: 1, expands: 1, no_actions: 1, queue_points: 1, shrink_requests: 1 });
    expect(i.metrics!.mean_wait).toBeCloseTo((1.425 - 0.1) / 2, 12);
    expect(i.metrics!.makespan).toBeCloseTo(4.348, 12);
    // the dmr agent declines the queue point: B waits for A's end at 2.5
    const d = runMalleableEpisode(env({ workload: file }), dmrAgent, 0);
    expect(d.metrics.mean_wait).toBeCloseTo((2.5 - 0.1) / 2, 12);
    expect(d.metrics.queue_points).toBe(1);
    rmSync(dir, { recursive: true });
  });
  it('an agent requesting the smallest size at queue points: requests carried out, fewer waits than never', () => {
    const e = env({ jobs: 30 });
    let { info } = e.reset({ seed: 4 });
    let requests = 0;
    for (;;) {
      let a = 0;
      if (info.kind === 'queue') {
        expect(e.point()!.context.kind).toBe('queue');
        const m = info.action_mask;
        a = m.indexOf(1, 1);
        expect(a).toBeGreaterThan(0);
        // only shrinks
        const p = e.point()!;
        expect([...m.slice(1, 1 + p.sizes.length)]).toEqual(p.sizes.map((s) => (s < p.context.size ? 1 : 0)));
        requests++;
      }
      const r = e.step(a);
      info = r.info;
      if (r.terminated) break;
    }
    expect(requests).toBeGreaterThan(0);
    expect(info.metrics!.shrink_requests).toBe(requests);
    const n = runMalleableEpisode(env({ jobs: 30 }), neverAgent, 4);
    expect(info.metrics!.mean_wait).toBeLessThan(n.metrics.mean_wait);
  });
});
