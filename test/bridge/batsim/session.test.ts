/**
 * The Batsim session in process (no socket): interval sets, job execution with Batsim's meaning
 * (executors, mappings, communication, walltimes, kills, metadata, dynamic jobs), the errors Batsim
 * reports, and fast-check properties: a random FCFS run completes every job with consistent times,
 * and random or malformed replies never end in anything but a BatsimProtocolError (no hang, no crash).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIntervalSet, parseIntervalSet } from '../../../bridge/batsim/intervalSet.js';
import { BatsimProtocolError } from '../../../bridge/batsim/protocol.js';
import { BatsimSession, type SessionOptions } from '../../../bridge/batsim/session.js';
import { parsePlatform } from '../../../src/platform/loader.js';

/** `nodes` nodes of `cores` 1000-Mops cores (1e9 ops/s), 125 MB/s links. */
function platform(nodes: number, cores = 1) {
  return parsePlatform(
    {
      name: 'p',
      clusters: [
        {
          nodes: [
            {
              count: nodes,
              memory_gb: 8,
              comm_bw: 125e6,
              processors: [{ cores, clock_rate: 1, dpflops_per_cycle: 1, static_power: 10, dynamic_power: 90, min_power: 1 }],
            },
          ],
        },
      ],
    },
    'test platform',
  );
}

type Ev = { timestamp: number; type: string; data: Record<string, unknown> };
type Msg = { now: number; events: Ev[] };

function session(
  jobs: Record<string, unknown>[],
  profiles: Record<string, { type: string; [k: string]: unknown }>,
  opts: Partial<SessionOptions> = {},
  nodes = 4,
  cores = 1,
) {
  return new BatsimSession({ platform: platform(nodes, cores), workloads: [{ name: 'w0', path: '/w0.json', jobs, profiles }], ...opts });
}

/** Drives `s` with `decide(message)` until the end; returns the messages received. */
function drive(s: BatsimSession, decide: (m: Msg) => Ev[] | { now: number; events: Ev[] }): Msg[] {
  const seen: Msg[] = [];
  let text: string | null = s.start();
  for (let guard = 0; text !== null && guard < 10_000; guard++) {
    const m = JSON.parse(text) as Msg;
    seen.push(m);
    const d = decide(m);
    text = s.reply(JSON.stringify(Array.isArray(d) ? { now: m.now, events: d } : d));
  }
  return seen;
}

const ev = (timestamp: number, type: string, data: Record<string, unknown>): Ev => ({ timestamp, type, data });
const types = (ms: Msg[]) => ms.map((m) => [m.now, m.events.map((e) => e.type)]);

describe('interval sets', () => {
  it('parses and formats as Batsim writes them', () => {
    expect(parseIntervalSet('0-3 5 7-8')).toEqual([0, 1, 2, 3, 5, 7, 8]);
    expect(parseIntervalSet(' 4  2-3 3 ')).toEqual([2, 3, 4]);
    expect(formatIntervalSet([8, 7, 0, 1, 2, 3, 5, 5])).toBe('0-3 5 7-8');
    expect(parseIntervalSet('')).toBe('the interval set is empty');
    expect(parseIntervalSet('3-1')).toBe('"3-1": the interval ends before it starts');
    expect(parseIntervalSet('1,2')).toBe('"1,2" is not an id nor an interval a-b');
  });
  it('format then parse is the identity on sets of ids (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 40 }), (ids) => {
        expect(parseIntervalSet(formatIntervalSet(ids))).toEqual([...ids].sort((a, b) => a - b));
      }),
    );
  });
});

describe('job execution with the Batsim meaning', () => {
  it('executors and mappings: 2 executors on one 2-core host run in parallel, a third shares a core', () => {
    const profiles = { hg: { type: 'parallel_homogeneous_total', cpu: 3e9, com: 0 }, one: { type: 'parallel_homogeneous', cpu: 1e9, com: 0 } };
    const s = session(
      [
        { id: 'a', subtime: 0, res: 2, profile: 'one' },
        { id: 'b', subtime: 0, res: 3, profile: 'one' },
      ],
      profiles,
      {},
      2,
      2,
    );
    const seen = drive(s, (m) =>
      m.events.some((e) => e.type === 'JOB_SUBMITTED')
        ? [
            ev(m.now, 'EXECUTE_JOB', { job_id: 'w0!a', alloc: '0', mapping: { 0: 0, 1: 0 } }),
            ev(m.now, 'EXECUTE_JOB', { job_id: 'w0!b', alloc: '1', mapping: { 0: '0', 1: '0', 2: '0' } }),
          ]
        : [],
    );
    const done = seen.flatMap((m) => m.events.filter((e) => e.type === 'JOB_COMPLETED').map((e) => [e.data['job_id'], e.timestamp, e.data['alloc']]));
    // a: 1e9 ops per executor at 1e9 ops/s, one core each: 1 s; b: two executors share core 0: 2 s
    expect(done).toEqual([
      ['w0!a', 1, '0'],
      ['w0!b', 2, '1'],
    ]);
  });

  it('an executor takes at least the time to send its remote bytes over its link (SimGrid L07, alone on its hosts)', () => {
    const s = session([{ id: 'c', subtime: 0, res: 2, profile: 'comm' }], { comm: { type: 'parallel_homogeneous', cpu: 1e8, com: 1e8 } });
    const seen = drive(s, (m) => (m.events.some((e) => e.type === 'JOB_SUBMITTED') ? [ev(m.now, 'EXECUTE_JOB', { job_id: 'w0!c', alloc: '0-1' })] : []));
    const end = seen.flatMap((m) => m.events).find((e) => e.type === 'JOB_COMPLETED')!;
    // cpu 1e8 / 1e9 = 0.1 s < 1e8 bytes to the other host / 125e6 B/s = 0.8 s
    expect(end.timestamp).toBeCloseTo(0.8, 12);
    expect(s.rows[0]!.energy).toBeCloseTo(2 * 100 * 0.8, 9);
  });

  it('walltime: the job is killed at start + walltime (COMPLETED_WALLTIME_REACHED, return code -1)', () => {
    const s = session([{ id: 'w', subtime: 0, res: 1, walltime: 4, profile: 'd' }], { d: { type: 'delay', delay: 10 } });
    const seen = drive(s, (m) => (m.events.some((e) => e.type === 'JOB_SUBMITTED') ? [ev(m.now, 'EXECUTE_JOB', { job_id: 'w0!w', alloc: '2' })] : []));
    expect(seen.flatMap((m) => m.events).find((e) => e.type === 'JOB_COMPLETED')).toEqual(
      ev(4, 'JOB_COMPLETED', { job_id: 'w0!w', job_state: 'COMPLETED_WALLTIME_REACHED', return_code: -1, alloc: '2' }),
    );
    expect(s.rows[0]).toMatchObject({ finalState: 'COMPLETED_WALLTIME_REACHED', start: 0, finish: 4 });
  });

  it('CALL_ME_LATER then KILL_JOB: REQUESTED_CALL, JOB_COMPLETED (killed) then JOB_KILLED with the progress', () => {
    const s = session([{ id: 'k', subtime: 0, res: 2, profile: 'd' }], { d: { type: 'delay', delay: 10, ret: 3 } });
    const seen = drive(s, (m) => {
      const t = m.events.map((e) => e.type);
      if (t.includes('JOB_SUBMITTED')) return [ev(0, 'EXECUTE_JOB', { job_id: 'w0!k', alloc: '0-1' }), ev(0, 'CALL_ME_LATER', { timestamp: 2.5 })];
      if (t.includes('REQUESTED_CALL'))
        return [ev(m.now, 'KILL_JOB', { job_ids: ['w0!k'] }), ev(m.now, 'SET_JOB_METADATA', { job_id: 'w0!k', metadata: 'killed "early"' })];
      return [];
    });
    expect(types(seen)).toEqual([
      [0, ['SIMULATION_BEGINS']],
      [0, ['JOB_SUBMITTED', 'NOTIFY']],
      [2.5, ['REQUESTED_CALL']],
      [2.5, ['JOB_COMPLETED', 'JOB_KILLED']],
      [2.5, ['SIMULATION_ENDS']],
    ]);
    const [completed, killed] = seen[3]!.events;
    expect(completed!.data).toEqual({ job_id: 'w0!k', job_state: 'COMPLETED_KILLED', return_code: -1, alloc: '0-1' });
    expect(killed!.data).toEqual({ job_ids: ['w0!k'], job_progress: { 'w0!k': { profile: 'd', progress: 0.25 } } });
    expect(s.rows[0]).toMatchObject({ finalState: 'COMPLETED_KILLED', metadata: 'killed "early"' });
  });

  it('the progress of a killed composed job is the tree Batsim gives (part index and progress in it)', () => {
    const s = session([{ id: 's', subtime: 0, res: 1, profile: 'seq' }], {
      a: { type: 'delay', delay: 2 },
      b: { type: 'delay', delay: 6 },
      seq: { type: 'composed', repeat: 2, seq: ['a', 'b'] },
    });
    const seen = drive(s, (m) => {
      const t = m.events.map((e) => e.type);
      if (t.includes('JOB_SUBMITTED')) return [ev(0, 'EXECUTE_JOB', { job_id: 'w0!s', alloc: '0' }), ev(0, 'CALL_ME_LATER', { timestamp: 11 })];
      if (t.includes('REQUESTED_CALL')) return [ev(m.now, 'KILL_JOB', { job_ids: ['w0!s'] })];
      return [];
    });
    // 16 s of work: a (0-2), b (2-8), a (8-10), b (10-16); at 11 the 4th part (index 3) is 1/6 done
    const killed = seen.flatMap((m) => m.events).find((e) => e.type === 'JOB_KILLED')!;
    const tree = (killed.data['job_progress'] as Record<string, { current_task_index: number; current_task: { profile: string; progress: number } }>)['w0!s']!;
    expect(tree.current_task_index).toBe(3);
    expect(tree.current_task.profile).toBe('b');
    expect(tree.current_task.progress).toBeCloseTo(1 / 6, 12);
  });

  it('CHANGE_JOB_STATE: submitted -> RUNNING -> COMPLETED_SUCCESSFULLY without machines; an executing job stopped silently', () => {
    const s = session(
      [
        { id: 'm', subtime: 0, res: 1, profile: 'd' },
        { id: 'x', subtime: 0, res: 2, profile: 'd' },
      ],
      { d: { type: 'delay', delay: 10 } },
    );
    const seen = drive(s, (m) => {
      const t = m.events.map((e) => e.type);
      if (t.includes('JOB_SUBMITTED'))
        return [
          ev(0, 'CHANGE_JOB_STATE', { job_id: 'w0!m', job_state: 'RUNNING' }),
          ev(0, 'EXECUTE_JOB', { job_id: 'w0!x', alloc: '0-1' }),
          ev(0, 'CALL_ME_LATER', { timestamp: 4 }),
        ];
      if (t.includes('REQUESTED_CALL'))
        return [
          ev(4, 'CHANGE_JOB_STATE', { job_id: 'w0!m', job_state: 'COMPLETED_SUCCESSFULLY' }),
          ev(4, 'CHANGE_JOB_STATE', { job_id: 'w0!x', job_state: 'COMPLETED_FAILED', kill_reason: 'sub-jobs failed' }),
        ];
      return [];
    });
    expect(types(seen)).toEqual([
      [0, ['SIMULATION_BEGINS']],
      [0, ['JOB_SUBMITTED', 'JOB_SUBMITTED', 'NOTIFY']],
      [4, ['REQUESTED_CALL']],
      [4, ['SIMULATION_ENDS']],
    ]);
    expect(s.rows.map((r) => [r.name, r.finalState, r.start, r.finish, r.alloc])).toEqual([
      ['m', 'COMPLETED_SUCCESSFULLY', 0, 4, ''],
      ['x', 'COMPLETED_FAILED', 0, 4, '0-1'],
    ]);
    expect(s.machines.stateName(0)).toBe('idle');
  });

  it('a profile with a non-zero ret completes as COMPLETED_FAILED with that return code', () => {
    const s = session([{ id: 'f', subtime: 5, res: 1, profile: 'd' }], { d: { type: 'delay', delay: 1, ret: 3 } });
    const seen = drive(s, (m) => (m.events.some((e) => e.type === 'JOB_SUBMITTED') ? [ev(m.now, 'EXECUTE_JOB', { job_id: 'w0!f', alloc: '3' })] : []));
    expect(seen.flatMap((m) => m.events).find((e) => e.type === 'JOB_COMPLETED')!.data).toMatchObject({ job_state: 'COMPLETED_FAILED', return_code: 3 });
    expect(seen.flatMap((m) => m.events).find((e) => e.type === 'JOB_COMPLETED')!.timestamp).toBe(6);
  });

  it("a decision applies at its timestamp; the scheduler is busy until the reply's now", () => {
    const s = session([{ id: 'x', subtime: 0, res: 1, profile: 'd' }], { d: { type: 'delay', delay: 1 } });
    const seen = drive(s, (m) =>
      m.events.some((e) => e.type === 'JOB_SUBMITTED') ? { now: 0.5, events: [ev(0.25, 'EXECUTE_JOB', { job_id: 'w0!x', alloc: '0' })] } : [],
    );
    expect(s.rows[0]).toMatchObject({ start: 0.25, finish: 1.25 });
    expect(types(seen).slice(2)).toEqual([
      [1.25, ['JOB_COMPLETED']],
      [1.25, ['SIMULATION_ENDS']],
    ]);
  });

  it('dynamic jobs: REGISTER_PROFILE and REGISTER_JOB, acknowledged by JOB_SUBMITTED; the end waits for registration_finished', () => {
    const s = session([], {}, { dynamicJobs: true, acknowledgeDynamicJobs: true });
    let registered = false;
    const seen = drive(s, (m) => {
      const t = m.events.map((e) => e.type);
      if (!registered) {
        registered = true;
        return [
          ev(0, 'REGISTER_PROFILE', { workload_name: 'dyn', profile_name: 'd3', profile: { type: 'delay', delay: 3 } }),
          ev(0, 'REGISTER_JOB', { job_id: 'dyn!1', job: { profile: 'd3', res: 2, id: 'dyn!1', walltime: 10 } }),
        ];
      }
      if (t.includes('JOB_SUBMITTED')) return [ev(m.now, 'EXECUTE_JOB', { job_id: 'dyn!1', alloc: '1-2' })];
      if (t.includes('JOB_COMPLETED')) return [ev(m.now, 'NOTIFY', { type: 'registration_finished' })];
      return [];
    });
    expect(types(seen)).toEqual([
      [0, ['SIMULATION_BEGINS', 'NOTIFY']],
      [0, ['JOB_SUBMITTED']],
      [3, ['JOB_COMPLETED']],
      [3, ['SIMULATION_ENDS']],
    ]);
    expect(s.rows[0]).toMatchObject({ name: '1', workload: 'dyn', start: 0, finish: 3, alloc: '1-2' });
    // pybatsim registers a composed profile and its job before the parts (resolved when the job runs)
    const seq = session([], {}, { dynamicJobs: true });
    let sent = false;
    drive(seq, () => {
      if (!sent) {
        sent = true;
        return [
          ev(0, 'REGISTER_PROFILE', { workload_name: 'T', profile_name: 'c', profile: { type: 'composed', nb: 1, seq: ['a', 'b'] } }),
          ev(0, 'REGISTER_JOB', { job_id: 'T!0', job: { profile: 'c', res: 1, walltime: 60 } }),
          ev(0, 'REGISTER_PROFILE', { workload_name: 'T', profile_name: 'a', profile: { type: 'delay', delay: 15 } }),
          ev(0, 'REGISTER_PROFILE', { workload_name: 'T', profile_name: 'b', profile: { type: 'delay', delay: 4 } }),
          ev(0, 'EXECUTE_JOB', { job_id: 'T!0', alloc: '0' }),
          ev(0, 'NOTIFY', { type: 'registration_finished' }),
        ];
      }
      return [];
    });
    expect(seq.rows[0]).toMatchObject({ name: '0', workload: 'T', start: 0, finish: 19 });
    const stuck = session([], {}, { dynamicJobs: true });
    expect(() => drive(stuck, () => [])).toThrow(/dynamic job registration is enabled and the scheduler did not send NOTIFY registration_finished/);
  });
});

describe('inputs and options', () => {
  it('several workloads (w0, w1), forwarded profiles and sched-config in SIMULATION_BEGINS and JOB_SUBMITTED', () => {
    const s = new BatsimSession({
      platform: platform(3),
      workloads: [
        { name: 'w0', path: '/a.json', jobs: [{ id: 1, subtime: 2, res: 1, profile: 'd', extra: 'kept' }], profiles: { d: { type: 'delay', delay: 1 } } },
        { name: 'w1', path: '/b.json', jobs: [{ id: 1, subtime: 1, res: 2, profile: 'd' }], profiles: { d: { type: 'delay', delay: 4 } } },
      ],
      forwardProfiles: true,
      schedConfig: '{"k": 1}',
    });
    const seen = drive(s, (m) =>
      m.events
        .filter((e) => e.type === 'JOB_SUBMITTED')
        .map((e) => ev(m.now, 'EXECUTE_JOB', { job_id: e.data['job_id'] as string, alloc: e.data['job_id'] === 'w1!1' ? '0-1' : '2' })),
    );
    const begins = seen[0]!.events[0]!.data;
    expect(begins['workloads']).toEqual({ w0: '/a.json', w1: '/b.json' });
    expect((begins['config'] as Record<string, unknown>)['sched-config']).toBe('{"k": 1}');
    expect((begins['config'] as Record<string, unknown>)['profiles-forwarded-on-submission']).toBe(true);
    expect(seen[1]!.events[0]).toEqual(
      ev(1, 'JOB_SUBMITTED', { job_id: 'w1!1', job: { id: 'w1!1', subtime: 1, res: 2, profile: 'd' }, profile: { type: 'delay', delay: 4 } }),
    );
    expect(seen[2]!.events[0]!.data['job']).toEqual({ id: 'w0!1', subtime: 2, res: 1, profile: 'd', extra: 'kept' });
    expect(s.rows.map((r) => [r.workload, r.name, r.start, r.finish])).toEqual([
      ['w0', '1', 2, 3],
      ['w1', '1', 1, 5],
    ]);
  });
});

describe('errors as Batsim reports them', () => {
  const jobs = [
    { id: 1, subtime: 0, res: 2, profile: 'd' },
    { id: 2, subtime: 0, res: 1, profile: 'p' },
  ];
  const profiles = { d: { type: 'delay', delay: 5 }, p: { type: 'parallel', cpu: [1e9], com: [0] } };
  /** The error of `events` sent in reply to the JOB_SUBMITTED message (after `before` was accepted). */
  const errorOf = (events: Ev[] | string, before: Ev[] = [], opts: Partial<SessionOptions> = {}): string => {
    const s = session(jobs, profiles, opts);
    s.start();
    s.reply('{"now": 0, "events": []}');
    if (before.length) s.reply(JSON.stringify({ now: 0, events: before }));
    try {
      s.reply(typeof events === 'string' ? events : JSON.stringify({ now: 0, events }));
    } catch (e) {
      expect(e).toBeInstanceOf(BatsimProtocolError);
      return (e as Error).message;
    }
    return 'no error';
  };
  const x = (data: Record<string, unknown>) => ev(0, 'EXECUTE_JOB', data);
  it.each([
    [[x({ job_id: 'w0!9', alloc: '0' })], "Invalid JSON message: in event 0 (EXECUTE_JOB): the job 'w0!9' does not exist"],
    [[x({ job_id: 'w0!1', alloc: '0-2' })], "Job 'w0!1' allocation ('0-2') is invalid. The job requires 2 machines but only 3 were given."],
    [[x({ job_id: 'w0!1', alloc: '3-4' })], "the allocation '3-4' of job 'w0!1' contains machine 4, which does not exist (there are 4 machines: 0-3)"],
    [
      [x({ job_id: 'w0!1', alloc: '0-1' }), x({ job_id: 'w0!2', alloc: '1' })],
      "Job 'w0!2': Invalid allocation ('1'): machine 1 (hostname='node1') is currently computing jobs (these ones: {w0!1})",
    ],
    [[x({ job_id: 'w0!1', alloc: '0-1' }), x({ job_id: 'w0!1', alloc: '2-3' })], "Cannot execute job 'w0!1': its state (RUNNING) is not JOB_STATE_SUBMITTED."],
    [
      [x({ job_id: 'w0!1', alloc: '0-1' }), ev(0, 'REJECT_JOB', { job_id: 'w0!1' })],
      "Invalid rejection received: job 'w0!1' cannot be rejected at the present time.",
    ],
    [[ev(0, 'KILL_JOB', { job_ids: ['w0!1'] })], "Invalid KILL_JOB: job_id 'w0!1' refers to a job not being executed nor completed."],
    [[x({ job_id: 'w0!1', alloc: '0', mapping: { 0: 0, 2: 0 } })], "Invalid 'mapping' object of event 0 (EXECUTE_JOB): no resource associated to executor 1."],
    [
      [x({ job_id: 'w0!1', alloc: '0', mapping: { 0: 0, 1: 1 } })],
      'executor 1 should use the 1-th resource within the allocation, but there are only 1 allocated resources.',
    ],
    [[x({ job_id: 'w0!1', alloc: '0 x' })], 'invalid allocation \'0 x\': "x" is not an id nor an interval a-b'],
    [[x({ job_id: 'w0!2', alloc: '0', mapping: { 0: 0, 1: 0 } })], 'custom mapping size (2) does not match the job requested number of machines (1)'],
    [
      [x({ job_id: 'w0!1', alloc: '0-1', extra: 1 })],
      "Invalid JSON message: the 'data' value of event 0 (EXECUTE_JOB) is invalid: Unrecognized key(s) in object: 'extra'",
    ],
    [[ev(0, 'CALL_ME_LATER', { timestamp: 0 })], 'You asked to be awaken in the past! (you ask: 0, it is: 0)'],
    [
      [ev(0, 'SET_RESOURCE_STATE', { resources: '0', state: '0' })],
      'Receiving a pstate modification request, which is forbidden as Batsim has not been launched with energy support',
    ],
    [
      [ev(0, 'QUERY', { requests: { consumed_energy: {} } })],
      'Received a QUERY of consumed_energy, which is forbidden as Batsim has not been launched with energy support',
    ],
    [[ev(0, 'NOTIFY', { type: 'hello' })], 'event 0 (NOTIFY): unknown notification type "hello"'],
    [
      [ev(0, 'REGISTER_JOB', { job_id: 'w0!3', job: { res: 1, profile: 'd' } })],
      'event 0 (REGISTER_JOB): dynamic job registration is disabled (--enable-dynamic-jobs)',
    ],
    [[ev(0, 'FOO', {})], 'Invalid JSON message: event 0: unknown event type "FOO"'],
    [
      [ev(0, 'CHANGE_JOB_STATE', { job_id: 'w0!1', job_state: 'COMPLETED_KILLED' })],
      "Invalid requested job state modification to 'COMPLETED_KILLED': can only be running or rejected.",
    ],
    [
      [ev(0, 'TO_JOB_MSG', { job_id: 'w0!1', msg: 'x' })],
      'event 0 (TO_JOB_MSG) is not supported by clustergym: messages to jobs need send/recv profiles, which clustergym does not model',
    ],
    ['{"now": 0, "events": [{"timestamp": 1, "type": "REJECT_JOB", "data": {"job_id": "w0!1"}}]}', "event 0 has a timestamp (1) after the message's now (0)"],
    [
      '{"now": 2, "events": [{"timestamp": 1, "type": "CALL_ME_LATER", "data": {"timestamp": 5}}, {"timestamp": 0, "type": "CALL_ME_LATER", "data": {"timestamp": 6}}]}',
      'the timestamps of the events are not in ascending order (event 1)',
    ],
    ['{"now": "0", "events": []}', "Invalid JSON message: 'now': Expected number, received string"],
    ['[1, 2', 'Invalid JSON message: cannot parse the message'],
  ] as [Ev[] | string, string][])('%j -> %s', (events, message) => {
    expect(errorOf(events)).toContain(message);
  });
  it('a sleeping machine cannot compute, and a computing one cannot be switched off', () => {
    const power = {
      nodes: [0, 1, 2, 3],
      pstates: [0, 1, 2, 3].map(() => [
        { kind: 'compute' as const, speed: 1e9, idleW: 10, fullW: 100 },
        { kind: 'sleep' as const, speed: 1e-9, idleW: 1, fullW: 1, off: 2, on: 3 },
        { kind: 'transition' as const, speed: 1, idleW: 5, fullW: 5 },
        { kind: 'transition' as const, speed: 0.5, idleW: 20, fullW: 20 },
      ]),
      initial: [0, 0, 0, 1],
      properties: [{}, {}, {}, {}],
    };
    expect(errorOf([x({ job_id: 'w0!2', alloc: '3' })], [], { power, energy: true })).toContain(
      "Job 'w0!2': Invalid job allocation ('3'): machine 3 (hostname='node3') cannot compute jobs now (the machine is not computing nor idle, its state is 'sleeping', pstate 1)",
    );
    expect(errorOf([x({ job_id: 'w0!1', alloc: '0-1' }), ev(0, 'SET_RESOURCE_STATE', { resources: '0', state: '1' })], [], { power, energy: true })).toContain(
      "machine 0 ('node0') is computing job w0!1: it cannot be switched off",
    );
    expect(errorOf([ev(0, 'SET_RESOURCE_STATE', { resources: '0', state: '2' })], [], { power, energy: true })).toContain('pstate 2 is a transition pstate');
    expect(errorOf([ev(0, 'SET_RESOURCE_STATE', { resources: '0', state: '7' })], [], { power, energy: true })).toContain(
      'machine 0 has no pstate 7 (it has 4: 0-3)',
    );
  });
  it('the reply to SIMULATION_ENDS must be empty, and nothing is expected after it', () => {
    const s = session([], {});
    expect((JSON.parse(s.start()) as Msg).events.map((e) => e.type)).toEqual(['SIMULATION_BEGINS', 'NOTIFY']);
    // as in Batsim, SIMULATION_ENDS goes alone, once nothing else is left to tell
    const end = JSON.parse(s.reply('{"now": 0, "events": []}')!) as Msg;
    expect(end.events.map((e) => e.type)).toEqual(['SIMULATION_ENDS']);
    expect(s.reply('{"now": 0, "events": []}')).toBeNull();
    expect(() => s.reply('{"now": 0, "events": []}')).toThrow('the simulation is over: no reply was expected');
  });
});

describe('properties', () => {
  const workloadArb = fc.array(
    fc.record({
      subtime: fc.integer({ min: 0, max: 50 }),
      res: fc.integer({ min: 1, max: 4 }),
      delay: fc.integer({ min: 1, max: 20 }),
      wall: fc.integer({ min: 0, max: 25 }),
    }),
    { minLength: 1, maxLength: 25 },
  );

  it('an FCFS scheduler completes every job: start >= submission, finish = start + delay (or the walltime)', () => {
    fc.assert(
      fc.property(workloadArb, (spec) => {
        const jobs = spec.map((j, i) => ({ id: i, subtime: j.subtime, res: j.res, walltime: j.wall > 0 ? j.wall : -1, profile: `d${j.delay}` }));
        const profiles = Object.fromEntries(spec.map((j) => [`d${j.delay}`, { type: 'delay', delay: j.delay }]));
        const s = session(jobs, profiles);
        const free = new Set([0, 1, 2, 3]);
        const queue: { id: string; res: number }[] = [];
        const held = new Map<string, number[]>();
        drive(s, (m) => {
          for (const e of m.events) {
            if (e.type === 'JOB_SUBMITTED') queue.push({ id: e.data['job_id'] as string, res: (e.data['job'] as { res: number }).res });
            if (e.type === 'JOB_COMPLETED') for (const r of held.get(e.data['job_id'] as string)!) free.add(r);
          }
          const out: Ev[] = [];
          while (queue.length > 0 && queue[0]!.res <= free.size) {
            const j = queue.shift()!;
            const ids = [...free].sort((a, b) => a - b).slice(0, j.res);
            for (const r of ids) free.delete(r);
            held.set(j.id, ids);
            out.push(ev(m.now, 'EXECUTE_JOB', { job_id: j.id, alloc: formatIntervalSet(ids) }));
          }
          return out;
        });
        expect(s.rows.length).toBe(spec.length);
        for (const r of s.rows) {
          const j = spec[Number(r.name)]!;
          expect(r.start).toBeGreaterThanOrEqual(r.submission);
          expect(r.submission).toBe(j.subtime);
          const run = j.wall > 0 && j.wall < j.delay ? j.wall : j.delay;
          expect(r.finish - r.start).toBeCloseTo(run, 9);
          expect(r.finalState).toBe(j.wall > 0 && j.wall < j.delay ? 'COMPLETED_WALLTIME_REACHED' : 'COMPLETED_SUCCESSFULLY');
        }
      }),
      { numRuns: 150, seed: 33 },
    );
  });

  it('fuzz: random and malformed replies end in a BatsimProtocolError or a normal end, never a hang or another error', () => {
    const id = fc.constantFrom('w0!0', 'w0!1', 'w0!2', 'w0!9', '', 'x');
    const alloc = fc.oneof(fc.constantFrom('0', '0-1', '2-3', '0-3', '3-9', '', '1 1', '-1', 'a'), fc.string({ maxLength: 6 }));
    const t = fc.oneof(fc.double({ min: -5, max: 1e6, noNaN: true }), fc.constantFrom(0, 1e308, -0));
    const event = fc.oneof(
      fc.record({ type: fc.constant('EXECUTE_JOB'), data: fc.record({ job_id: id, alloc }, { requiredKeys: [] }) }),
      fc.record({
        type: fc.constant('EXECUTE_JOB'),
        data: fc.record({
          job_id: id,
          alloc,
          mapping: fc.dictionary(fc.constantFrom('0', '1', '2', 'a'), fc.oneof(fc.integer({ min: -1, max: 3 }), fc.string({ maxLength: 2 }))),
        }),
      }),
      fc.record({ type: fc.constant('REJECT_JOB'), data: fc.record({ job_id: id }) }),
      fc.record({ type: fc.constant('KILL_JOB'), data: fc.record({ job_ids: fc.array(id, { maxLength: 3 }) }) }),
      fc.record({ type: fc.constant('CALL_ME_LATER'), data: fc.record({ timestamp: t }) }),
      fc.record({ type: fc.constant('SET_RESOURCE_STATE'), data: fc.record({ resources: alloc, state: fc.constantFrom('0', '1', 'x', '99') }) }),
      fc.record({ type: fc.constant('QUERY'), data: fc.record({ requests: fc.dictionary(fc.constantFrom('consumed_energy', 'other'), fc.constant({})) }) }),
      fc.record({
        type: fc.constantFrom('NOTIFY', 'SET_JOB_METADATA', 'REGISTER_JOB', 'REGISTER_PROFILE', 'ANSWER', 'CHANGE_JOB_STATE', 'WHAT'),
        data: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })),
      }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    const reply = fc.oneof(
      { weight: 6, arbitrary: fc.record({ dt: fc.constantFrom(0, 0, 0.5, 3), events: fc.array(event, { maxLength: 4 }) }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    );
    fc.assert(
      fc.property(fc.array(reply, { minLength: 1, maxLength: 12 }), fc.boolean(), (replies, energy) => {
        const s = session(
          [
            { id: 0, subtime: 0, res: 2, walltime: 5, profile: 'd' },
            { id: 1, subtime: 1, res: 4, profile: 'p' },
            { id: 2, subtime: 2, res: 1, profile: 'd' },
          ],
          { d: { type: 'delay', delay: 3 }, p: { type: 'parallel_homogeneous', cpu: 1e9, com: 1e6 } },
          { energy, dynamicJobs: energy },
        );
        let text: string | null = s.start();
        try {
          for (const r of replies) {
            if (text === null) break;
            const now = (JSON.parse(text) as Msg).now;
            const body =
              typeof r === 'string'
                ? r
                : JSON.stringify({
                    now: now + r.dt,
                    events: r.events.map((e) => (typeof e === 'object' && e !== null && !Array.isArray(e) ? { timestamp: now, ...e } : e)),
                  });
            text = s.reply(body);
          }
        } catch (e) {
          if (!(e instanceof BatsimProtocolError)) throw e;
        }
      }),
      { numRuns: 400, seed: 7 },
    );
  });
});
