/**
 * Differential test (issue 42): the fairness preset of the one engine (`fairPreset`: the vector
 * capacity, fixed durations, the multi-resource passes, the monitor as a listener) against the fairness
 * engine it replaces, on random hosts, tasks, users, quotas and policies: every task's start, end and
 * host, the run's totals and the monitor's rows agree exactly (===, no tolerance).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairEngine, type TraceTask } from '../../src/fairness/engine.js';
import { HostTable, UserTable } from '../../src/fairness/model.js';
import { Monitor } from '../../src/fairness/monitor.js';
import { fairPreset, runFairPreset } from '../../src/fairness/preset.js';
import * as oldPolicies from '../../src/fairness/schedulers.js';
import * as newPolicies from '../../src/scheduling/multiResource.js';

const hostGroup = fc.record({
  count: fc.integer({ min: 1, max: 4 }),
  cpus: fc.integer({ min: 1, max: 16 }),
  memory: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.double({ min: 0.5, max: 64, noNaN: true })),
});

const task = fc.record({
  gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 20, noNaN: true })),
  cpu: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0.05, max: 12, noNaN: true })),
  memory: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 40, noNaN: true })),
  duration: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0, max: 30, noNaN: true })),
  user: fc.constantFrom('a', 'b', 'c', 'd'),
});

const policy = fc.oneof(
  fc.constant({ name: 'drf', f: 0 }),
  fc.constant({ name: 'first-fit', f: 0 }),
  fc.constant({ name: 'best-fit', f: 0 }),
  fc.integer({ min: 0, max: 10 }).map((k) => ({ name: 'tetris', f: k / 10 })),
);

/** Per task `id,start,end,host,user`, the totals, and the monitor's rows: the old engine. */
function oldRun(
  groups: { count: number; cpus: number; memory: number }[],
  tasks: TraceTask[],
  p: { name: string; f: number },
  weights: Record<string, number>,
  interval: number,
) {
  const hosts = new HostTable(groups);
  const users = new UserTable(hosts.totalCpu, hosts.totalMem, weights);
  const monitor = new Monitor({ interval, hostLoad: true });
  const e = new FairEngine(hosts, users, oldPolicies.schedulerByName(p.name, p.f), tasks, monitor);
  const rows: string[] = [];
  e.addListener({ onEnd: (eng, t) => void rows.push(`${t.id},${t.start},${eng.now},${t.host},${t.user}`) });
  const stats = e.run();
  return { rows, stats, monitor: monitor.rows, users: users.names };
}

/** The same of the preset. */
function newRun(
  groups: { count: number; cpus: number; memory: number }[],
  tasks: TraceTask[],
  p: { name: string; f: number },
  weights: Record<string, number>,
  interval: number,
) {
  const monitor = new Monitor({ interval, hostLoad: true });
  const passes = fairPreset(groups, tasks, newPolicies.schedulerByName(p.name, p.f), { weights, monitor });
  const rows: string[] = [];
  passes.sim.addListener({ onEnd: (s, _rec, rj) => void rows.push(`${rj!.job.id},${rj!.start},${s.now},${rj!.nodes[0]},${passes.userOf(rj!)}`) });
  const stats = runFairPreset(passes, monitor);
  return { rows, stats, monitor: monitor.rows, users: passes.users.names };
}

describe('the fairness preset gives the fairness engine’s runs exactly (property)', () => {
  it('random hosts, tasks, users, quotas and policies', () => {
    fc.assert(
      fc.property(
        fc.array(hostGroup, { minLength: 1, maxLength: 3 }),
        fc.array(task, { maxLength: 80 }),
        policy,
        fc.record({ b: fc.constantFrom(1, 2, 0.5), c: fc.constantFrom(1, 3) }),
        fc.integer({ min: 1, max: 40 }),
        (groups, raw, p, weights, interval) => {
          let t = 0;
          const tasks: TraceTask[] = raw.map((x) => {
            t += x.gap;
            return { submit: t, cpu: x.cpu, memory: x.memory, duration: x.duration, user: x.user };
          });
          const a = oldRun(groups, tasks, p, weights, interval);
          const b = newRun(groups, tasks, p, weights, interval);
          expect(b.rows).toEqual(a.rows);
          expect(b.stats).toEqual(a.stats);
          expect(b.users).toEqual(a.users);
          expect(b.monitor).toEqual(a.monitor);
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });
});
