import { describe, expect, it } from 'vitest';
import { hostsCsv, loadCsv, Monitor, sharesCsv } from '../../src/fairness/monitor.js';
import { fairPreset, runFairPreset, type TraceTask } from '../../src/fairness/preset.js';
import type { HostGroup } from '../../src/platform/views.js';
import { bestFit, drf, type FairScheduler, firstFit, schedulerByName, tetris, tetrisCandidates } from '../../src/scheduling/multiResource.js';
import { type QueuedTask, WaitingTasks } from '../../src/scheduling/userQueues.js';

/** The fairness preset on `groups` and `tasks`: its passes (`engine`), hosts and users; `arrive()` runs the first event time without a pass, `run()` to the end. */
function engineFor(
  groups: HostGroup[],
  tasks: TraceTask[],
  sched: FairScheduler = drf(),
  monitor: Monitor | null = null,
  weights: Record<string, number> = {},
) {
  const engine = fairPreset(groups, tasks, sched, { monitor, weights });
  return {
    engine,
    hosts: engine.hosts,
    users: engine.users,
    arrive: () => engine.sim.advanceUntil(Number.POSITIVE_INFINITY),
    run: () => runFairPreset(engine, monitor),
  };
}

const many = (user: string, n: number, cpu: number, memory: number, duration = 10, submit = 0): TraceTask[] =>
  Array.from({ length: n }, () => ({ submit, cpu, memory, duration, user }));

describe('tetris candidate count (floor, as §5.2 reads)', () => {
  it('10 users: one candidate for f = 0.9 and 1, two exactly from f = 0.8 on', () => {
    expect(tetrisCandidates(1, 10)).toBe(1);
    expect(tetrisCandidates(0.9, 10)).toBe(1);
    expect(tetrisCandidates(0.85, 10)).toBe(1);
    expect(tetrisCandidates(0.81, 10)).toBe(1);
    expect(tetrisCandidates(0.8, 10)).toBe(2);
    expect(tetrisCandidates(0.5, 10)).toBe(5);
    expect(tetrisCandidates(0, 10)).toBe(10);
    expect(tetrisCandidates(0.7, 3)).toBe(1);
    expect(tetrisCandidates(0.3, 0)).toBe(0);
  });

  it('rejects f outside [0, 1] and unknown names', () => {
    expect(() => tetris(1.2)).toThrow(/\[0, 1\]/);
    expect(() => schedulerByName('drff')).toThrow(/drf/);
  });
});

describe('drf by hand', () => {
  it('alternates by dominant share and waits when the most deprived user does not fit', () => {
    // one host 10 cores / 10 memory; A's tasks (2, 1): ds 0.2 each; B's (1, 3): ds 0.3 each
    const tasks = [...many('A', 5, 2, 1), ...many('B', 5, 1, 3)];
    const { engine, users, arrive } = engineFor([{ count: 1, cpus: 10, memory: 10 }], tasks);
    arrive(); // t = 0: arrivals
    engine.schedule();
    // A 0 -> 0.2, B 0 -> 0.3, A -> 0.4, B -> 0.6, A -> 0.6, tie to A -> 0.8 (10 cores, 10 memory... B's (1, 3) no longer fits)
    expect(users.running).toEqual([4, 2]);
    expect(users.dominantShare(0)).toBeCloseTo(0.8);
    expect(users.dominantShare(1)).toBeCloseTo(0.6);
    // B is the most deprived and does not fit: DRF waits although nothing else could start either
    expect(drf().next(engine)).toBeNull();
  });

  it('weights: a user with weight 2 gets twice the dominant share', () => {
    const { engine, users, arrive } = engineFor([{ count: 1, cpus: 12, memory: 100 }], [...many('A', 12, 1, 0), ...many('B', 12, 1, 0)], drf(), null, { B: 2 });
    arrive();
    engine.schedule();
    expect(users.running).toEqual([4, 8]);
  });
});

describe('tetris by hand', () => {
  const tasks = [...many('X', 1, 10, 2), ...many('Y', 1, 5, 5)];
  it('f = 1 starts the DRF head (X, first user), f = 0 the best aligned (Y, score 1 against 0.83)', () => {
    for (const [sched, user] of [
      [tetris(1), 'X'],
      [drf(), 'X'],
      [tetris(0), 'Y'],
    ] as const) {
      const { engine, users, arrive } = engineFor([{ count: 1, cpus: 20, memory: 20 }], tasks, sched);
      arrive();
      const p = sched.next(engine)!;
      expect(users.names[p.task.user]).toBe(user);
    }
  });

  it('picks the host by packing score', () => {
    const { engine, arrive } = engineFor(
      [
        { count: 1, cpus: 20, memory: 20 },
        { count: 1, cpus: 5, memory: 60 },
      ],
      many('Z', 1, 1, 15),
      tetris(0.5),
    );
    arrive();
    // (1/20, 15/20) vs (1, 1): 0.8 / (0.7517 * 1.4142) = 0.7526; (1/5, 15/60) vs (1, 1): 0.45 / (0.3202 * 1.4142) = 0.9938
    expect(tetris(0.5).next(engine)!.host).toBe(1);
  });

  it('tetris(1) and drf make the same run', () => {
    const tasks = [...many('A', 30, 2, 1, 7), ...many('B', 20, 1, 3, 11), ...many('C', 10, 3, 3, 5)];
    const a = engineFor([{ count: 3, cpus: 8, memory: 12 }], tasks, drf());
    const b = engineFor([{ count: 3, cpus: 8, memory: 12 }], tasks, tetris(1));
    const starts = (e: typeof a) => {
      const out: string[] = [];
      e.engine.sim.addListener({ onStart: (s, rj) => void out.push(`${rj.job.id}@${rj.nodes[0]}:${s.now}`) });
      e.run();
      return out;
    };
    const sa = starts(a);
    expect(sa).toHaveLength(60);
    expect(sa).toEqual(starts(b));
  });
});

describe('first-fit and best-fit', () => {
  it('first fit takes the first host, best fit the tightest', () => {
    const groups = [
      { count: 1, cpus: 8, memory: 8 },
      { count: 1, cpus: 2, memory: 2 },
    ];
    for (const [s, host] of [
      [firstFit(), 0],
      [bestFit(), 1],
    ] as const) {
      const { engine, arrive } = engineFor(groups, many('A', 1, 2, 2), s);
      arrive();
      expect(s.next(engine)!.host).toBe(host);
    }
  });
});

describe('the preset', () => {
  it('refuses an unsorted trace with a message pointing to convert --sort', () => {
    const { run } = engineFor(
      [{ count: 1, cpus: 1, memory: 1 }],
      [
        { submit: 5, cpu: 1, memory: 0, duration: 1, user: 'a' },
        { submit: 3, cpu: 1, memory: 0, duration: 1, user: 'a' },
      ],
    );
    expect(() => run()).toThrow(/not sorted.*convert --sort/);
  });

  it('rejects tasks no host can hold and counts them', () => {
    const { run } = engineFor([{ count: 1, cpus: 4, memory: 4 }], [...many('a', 1, 5, 1), ...many('a', 1, 1, 1)]);
    expect(run()).toMatchObject({ submitted: 2, rejected: 1, finished: 1 });
  });
});

describe('monitor by hand', () => {
  it('averages load, queue and shares over intervals', () => {
    const m = new Monitor({ interval: 10, hostLoad: true });
    // A: 5 of 10 cores from 0 to 15; B: 2 cores from 12 to 25; memory unused
    const { run } = engineFor(
      [{ count: 1, cpus: 10, memory: 10, name_prefix: 'h' }],
      [
        { submit: 0, cpu: 5, memory: 0, duration: 15, user: 'A' },
        { submit: 12, cpu: 2, memory: 0, duration: 13, user: 'B' },
      ],
      firstFit(),
      m,
    );
    run();
    expect(m.rows.map((r) => r.time)).toEqual([0, 10, 20]);
    expect(m.rows[0]!.cpu).toBeCloseTo(0.5);
    expect(m.rows[1]!.cpu).toBeCloseTo((0.5 * 5 + 0.2 * 8) / 10);
    expect(m.rows[2]!.cpu).toBeCloseTo(0.2);
    expect(m.rows[1]!.shares[0]).toBeCloseTo(0.25);
    expect(m.rows[1]!.shares[1]).toBeCloseTo(0.16);
    expect(m.rows[1]!.hosts![0]).toBeCloseTo(0.41);
    expect(loadCsv(m.rows).split('\n')[0]).toBe('time,cpu,memory,queue');
    expect(sharesCsv(m.rows, ['A', 'B']).split('\n')[3]).toBe('20,0,0.2');
    expect(hostsCsv(m.rows, ['h0']).split('\n')[0]).toBe('time,h0.cpu,h0.memory');
  });

  it('queue length is time-averaged', () => {
    const m = new Monitor({ interval: 10 });
    const { run } = engineFor([{ count: 1, cpus: 1, memory: 1 }], many('A', 2, 1, 0, 4), firstFit(), m);
    run();
    // one task waits from 0 to 4
    expect(m.rows[0]!.queue).toBeCloseTo(4 / 8);
  });
});

describe('monitor integrals (property)', () => {
  it('interval averages times interval lengths add up to the load-time of the tasks', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            submit: fc.integer({ min: 0, max: 100 }),
            cpu: fc.integer({ min: 1, max: 4 }),
            memory: fc.integer({ min: 0, max: 8 }),
            duration: fc.integer({ min: 0, max: 40 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 50 }),
        (raw, interval) => {
          const tasks = raw.map((t, i) => ({ ...t, user: `u${i % 3}` })).sort((a, b) => a.submit - b.submit);
          const m = new Monitor({ interval, hostLoad: true });
          const { run, hosts, users } = engineFor([{ count: 2, cpus: 4, memory: 8 }], tasks, firstFit(), m);
          const stats = run();
          const end = stats.end;
          const len = (i: number) => Math.min(interval, end - m.rows[i]!.time);
          let cpu = 0;
          let mem = 0;
          let host0 = 0;
          const shares = [0, 0, 0];
          m.rows.forEach((r, i) => {
            cpu += r.cpu * len(i);
            mem += r.memory * len(i);
            host0 += r.hosts![0]! * len(i);
            r.shares.forEach((s, u) => {
              shares[u]! += s * len(i);
            });
          });
          const cpuTime = tasks.reduce((a, t) => a + t.cpu * t.duration, 0);
          const memTime = tasks.reduce((a, t) => a + t.memory * t.duration, 0);
          expect(cpu * hosts.totalCpu).toBeCloseTo(cpuTime, 6);
          expect(mem * hosts.totalMem).toBeCloseTo(memTime, 6);
          expect(host0).toBeLessThanOrEqual(cpu * 2 + 1e-9);
          // each user's share integral is at least its CPU-time fraction
          for (let u = 0; u < users.count; u++) {
            const own = tasks.filter((t) => t.user === users.names[u]).reduce((a, t) => a + (t.cpu * t.duration) / hosts.totalCpu, 0);
            expect(shares[u]! + 1e-9).toBeGreaterThanOrEqual(own);
          }
        },
      ),
      { numRuns: 60, seed: 16 },
    );
  });
});

describe('waiting queues stay bounded', () => {
  it('a task that never starts does not keep every task started after it', () => {
    const w = new WaitingTasks<QueuedTask & { id: number; host: number }>();
    const mk = (id: number, user: number) => ({ id, user, host: -1 });
    const stuck = mk(0, 0);
    w.add(stuck);
    for (let i = 1; i <= 10_000; i++) {
      const t = mk(i, 1);
      w.add(t);
      expect(w.headOf(1)).toBe(t);
      t.host = 0;
      w.remove(t);
    }
    expect(w.size).toBe(1);
    expect(w.oldest()).toBe(stuck);
    expect([...w.tasks()]).toEqual([stuck]);
    // before: all 10,001 entries stayed in the submission-order queue behind the stuck head
    expect(w.storedInOrder).toBeLessThan(2100);
  });
});
