/**
 * Differential test (issue 42): the fairness preset of the one engine (`fairPreset`: the vector capacity,
 * fixed durations, the multi-resource passes, the monitor as a listener) against the runs of the
 * fairness engine it replaced, on 300 seeded random cases (hosts, tasks with integer and fractional
 * sizes, gaps and durations, zero durations and zero gaps, four users, quotas, every policy, a monitor
 * interval). The old engine's runs were recorded before it was retired (the recording run also checked
 * that the preset gave them exactly): per case, every task's `id,start,end,host,user`, the run's totals,
 * the users and the monitor's rows (with the hosts' loads), hashed (SHA-256) in
 * test/golden/schedules/fair-differential.json. The preset must give the same hashes (exact, no
 * tolerance). Together with test/golden's one-engine-fair-* cases (the golden schedules written by the
 * old engine) this is the identity proof that let the old engine go.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { Monitor } from '../../src/fairness/monitor.js';
import { fairPreset, runFairPreset, type TraceTask } from '../../src/fairness/preset.js';
import { schedulerByName } from '../../src/scheduling/multiResource.js';

const FILE = join(import.meta.dirname, '..', 'golden', 'schedules', 'fair-differential.json');
const CASES = 300;

interface Case {
  groups: { count: number; cpus: number; memory: number }[];
  tasks: TraceTask[];
  policy: { name: string; f: number };
  weights: Record<string, number>;
  interval: number;
}

/** Case `i` (its own seeded stream). */
function differentialCase(i: number): Case {
  const r = new Rng(`fair-differential/${i}`);
  const int = (lo: number, hi: number) => lo + r.int(hi - lo + 1);
  const pick = <T>(xs: readonly T[]) => xs[r.int(xs.length)]!;
  // integers, fractions, and the boundary values
  const value = (lo: number, hi: number, fracLo: number) => {
    const k = r.int(5);
    return k === 0 ? lo : k <= 2 ? int(lo, hi) : fracLo + r.next() * (hi - fracLo);
  };
  const groups = Array.from({ length: int(1, 3) }, () => ({ count: int(1, 4), cpus: int(1, 16), memory: r.next() < 0.5 ? int(1, 64) : 0.5 + r.next() * 63.5 }));
  let t = 0;
  const tasks = Array.from({ length: int(0, 80) }, () => {
    t += value(0, 20, 0);
    return { submit: t, cpu: value(1, 12, 0.05), memory: value(0, 40, 0), duration: value(0, 30, 0), user: pick(['a', 'b', 'c', 'd']) };
  });
  const policy = pick(['drf', 'first-fit', 'best-fit', 'tetris']);
  return {
    groups,
    tasks,
    policy: { name: policy, f: policy === 'tetris' ? int(0, 10) / 10 : 0 },
    weights: { b: pick([1, 2, 0.5]), c: pick([1, 3]) },
    interval: int(1, 40),
  };
}

/** Per task `id,start,end,host,user`, the totals, the users and the monitor's rows of the preset on `c`. */
function presetRun(c: Case): { rows: string[]; stats: object; users: string[]; monitor: object[] } {
  const monitor = new Monitor({ interval: c.interval, hostLoad: true });
  const passes = fairPreset(c.groups, c.tasks, schedulerByName(c.policy.name, c.policy.f), { weights: c.weights, monitor });
  const rows: string[] = [];
  passes.sim.addListener({ onEnd: (s, _rec, rj) => void rows.push(`${rj!.job.id},${rj!.start},${s.now},${rj!.nodes[0]},${passes.userOf(rj!)}`) });
  const stats = runFairPreset(passes, monitor);
  return { rows, stats: { ...stats }, users: [...passes.users.names], monitor: monitor.rows };
}

/** The digest of a run (key order as written). */
const runDigest = (run: { rows: string[]; stats: object; users: string[]; monitor: object[] }): string =>
  createHash('sha256')
    .update(JSON.stringify([run.rows, run.stats, run.users, run.monitor]))
    .digest('hex');

describe('the fairness preset gives the retired fairness engine’s runs exactly', () => {
  it(`${CASES} seeded random cases: hosts, tasks, users, quotas, policies, monitor`, () => {
    const want = JSON.parse(readFileSync(FILE, 'utf8')) as { cases: number; tasks: number; digests: string[] };
    expect(want.digests).toHaveLength(CASES);
    let tasks = 0;
    for (let i = 0; i < CASES; i++) {
      const c = differentialCase(i);
      tasks += c.tasks.length;
      const run = presetRun(c);
      expect(runDigest(run), `case ${i} (${c.policy.name} ${c.policy.f}, ${c.tasks.length} tasks)`).toBe(want.digests[i]);
    }
    expect(tasks).toBe(want.tasks);
  });
});
