/**
 * `clustergym batsim` driven over real ZeroMQ sockets by Python schedulers written in pybatsim's style
 * (test/bridge/batsim/schedulers/: FCFS, EASY backfilling, a power-state FCFS, and a scripted
 * misbehaving one): the message sequence, the output files with hand-computed numbers, the same
 * decisions replayed through `clustergym simulate`, and the ends of runs whose scheduler breaks the
 * protocol, dies, stays silent or leaves the simulation stuck.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../helpers.js';
import { NO_PYTHON, PYTHON, readCsv, received, runBatsim } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-batsim-inputs-'));
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

/** 8 nodes of one 1000-Mops core; 10 W idle, 100 W busy each. */
const PLATFORM8 = file('plat8.json', {
  name: 'eight',
  clusters: [
    {
      id: 'c',
      nodes: [{ count: 8, memory_gb: 16, processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1, static_power: 10, dynamic_power: 90, min_power: 1 }] }],
    },
  ],
});

const FCFS_WORKLOAD = file('fcfs.json', {
  nb_res: 8,
  jobs: [
    { id: 1, subtime: 0, res: 4, walltime: 100, profile: 'd10' },
    { id: 2, subtime: 1, res: 8, walltime: 100, profile: 'd5' },
    { id: 3, subtime: 2, res: 2, walltime: 100, profile: 'd10' },
    { id: 'big', subtime: 3, res: 9, walltime: 10, profile: 'd5' },
    { id: 'p', subtime: 4, res: 2, walltime: 100, profile: 'hg' },
  ],
  profiles: {
    d10: { type: 'delay', delay: 10 },
    d5: { type: 'delay', delay: 5 },
    hg: { type: 'parallel_homogeneous', cpu: 2e9, com: 0 },
  },
});

/** A workload where EASY backfills job 3 at t=2 and FCFS does not. */
const BACKFILL_WORKLOAD = file('backfill.json', {
  nb_res: 8,
  jobs: [
    { id: 'j1', subtime: 0, res: 5, walltime: 10, profile: 'd10' },
    { id: 'j2', subtime: 1, res: 6, walltime: 5, profile: 'd5' },
    { id: 'j3', subtime: 2, res: 3, walltime: 8, profile: 'd8' },
    { id: 'j4', subtime: 3, res: 2, walltime: 20, profile: 'd20' },
    { id: 'j5', subtime: 4, res: 1, walltime: 30, profile: 'd3' },
  ],
  profiles: {
    d3: { type: 'delay', delay: 3 },
    d5: { type: 'delay', delay: 5 },
    d8: { type: 'delay', delay: 8 },
    d10: { type: 'delay', delay: 10 },
    d20: { type: 'delay', delay: 20 },
  },
});

/**
 * A SimGrid platform: a master host and 4 hosts with pstates 0 (100 Mf, 100 W idle, 200 W busy),
 * 1 (50 Mf), 2 sleep (10 W), 3 switch-off (0.5 f: 2 s, 50 W), 4 switch-on (0.25 f: 4 s, 120 W).
 */
const ENERGY_XML = file(
  'energy.xml',
  `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="AS0" routing="Full">
    <host id="master_host" speed="100Mf"><prop id="wattage_per_state" value="100:200"/></host>
${[0, 1, 2, 3]
  .map(
    (i) => `    <host id="host${i}" speed="100Mf, 50Mf, 1e-9Mf, 0.5f, 0.25f" pstate="0">
      <prop id="wattage_per_state" value="100:200, 80:150, 10:10, 50:50, 120:120"/>
      <prop id="sleep_pstates" value="2:3:4"/>
    </host>`,
  )
  .join('\n')}
  </zone>
</platform>`,
);

const ENERGY_WORKLOAD = file('energy.json', {
  nb_res: 4,
  jobs: [
    { id: 'a', subtime: 0, res: 2, walltime: 100, profile: 'd10' },
    { id: 'b', subtime: 20, res: 4, walltime: 100, profile: 'd5' },
  ],
  profiles: { d10: { type: 'delay', delay: 10 }, d5: { type: 'delay', delay: 5 } },
});

const SKIP = PYTHON === null;
if (SKIP) console.warn(NO_PYTHON);

describe.skipIf(SKIP)('clustergym batsim with schedulers in pybatsim style', () => {
  it('FCFS: the message sequence, _jobs.csv and _schedule.csv (hand-computed)', async () => {
    const r = await runBatsim('fcfs.py', [], ['-p', PLATFORM8, '-w', FCFS_WORKLOAD]);
    expect(r.cli.stderr).toBe('');
    expect(r.cli.code).toBe(0);
    expect(r.scheduler.code).toBe(0);
    const begins = r.transcript[0]!.msg.events[0]!;
    expect(begins.type).toBe('SIMULATION_BEGINS');
    expect(begins.data['nb_resources']).toBe(8);
    expect((begins.data['compute_resources'] as { id: number; state: string }[]).map((c) => [c.id, c.state])).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, 'idle']),
    );
    expect(Object.keys((begins.data['profiles'] as Record<string, unknown>)['w0'] as object)).toEqual(['d10', 'd5', 'hg']);
    expect(received(r.transcript)).toEqual([
      [0, ['SIMULATION_BEGINS']],
      [0, ['JOB_SUBMITTED:w0!1']],
      [1, ['JOB_SUBMITTED:w0!2']],
      [2, ['JOB_SUBMITTED:w0!3']],
      [3, ['JOB_SUBMITTED:w0!big']],
      [4, ['JOB_SUBMITTED:w0!p', 'NOTIFY:no_more_static_job_to_submit']],
      [10, ['JOB_COMPLETED:w0!1']],
      [15, ['JOB_COMPLETED:w0!2']],
      [17, ['JOB_COMPLETED:w0!p']],
      [25, ['JOB_COMPLETED:w0!3']],
      [25, ['SIMULATION_ENDS']],
    ]);
    const submitted = r.transcript[2]!.msg.events[0]!.data;
    expect(submitted).toEqual({ job_id: 'w0!1', job: { id: 'w0!1', subtime: 0, res: 4, walltime: 100, profile: 'd10' } });
    const jobs = readCsv(`${r.prefix}_jobs.csv`);
    const pick = (id: string) => jobs.find((j) => j['job_id'] === id)!;
    // delay jobs draw idle power (10 W per node); the parallel job 2e9 ops at 1e9 ops/s on 2 nodes at 100 W
    expect(pick('1')).toMatchObject({
      final_state: 'COMPLETED_SUCCESSFULLY',
      starting_time: '0.000000',
      finish_time: '10.000000',
      allocated_resources: '0-3',
      consumed_energy: '400.000000',
    });
    expect(pick('2')).toMatchObject({
      starting_time: '10.000000',
      finish_time: '15.000000',
      waiting_time: '9.000000',
      stretch: '2.800000',
      allocated_resources: '0-7',
    });
    expect(pick('p')).toMatchObject({ starting_time: '15.000000', execution_time: '2.000000', allocated_resources: '2-3', consumed_energy: '400.000000' });
    expect(pick('3')).toMatchObject({ starting_time: '15.000000', finish_time: '25.000000', allocated_resources: '0-1' });
    expect(pick('big')).toMatchObject({ final_state: 'REJECTED', success: '0', starting_time: '', allocated_resources: '' });
    const schedule = readCsv(`${r.prefix}_schedule.csv`)[0]!;
    // energy: 8 nodes x 10 W x 25 s + the parallel job's 2 x 90 W x 2 s
    expect(schedule).toMatchObject({
      consumed_joules: '2360.000000',
      makespan: '25.000000',
      nb_jobs: '5',
      nb_jobs_finished: '4',
      nb_jobs_success: '4',
      nb_jobs_rejected: '1',
      mean_waiting_time: '6.600000',
      max_slowdown: '6.500000',
      time_computing: '104.000000',
      time_idle: '96.000000',
    });
  });

  for (const [policy, script, backfill] of [
    ['FCFS', 'fcfs.py', 'none'],
    ['EASY', 'easy.py', 'easy'],
  ] as const) {
    it(`${policy}: the same decisions replayed through clustergym simulate give the same schedule`, async () => {
      const r = await runBatsim(script, [], ['-p', PLATFORM8, '-w', BACKFILL_WORKLOAD]);
      expect(r.cli.code).toBe(0);
      const batsim = Object.fromEntries(readCsv(`${r.prefix}_jobs.csv`).map((j) => [j['job_id'], [Number(j['starting_time']), Number(j['finish_time'])]]));
      const out = join(r.dir, 'simulate');
      const s = cli(['simulate', '--platform', PLATFORM8, '--workload', BACKFILL_WORKLOAD, '--policy', 'fcfs:first', '--backfill', backfill, '--out', out]);
      expect(s.stderr).toBe('');
      const simulated = Object.fromEntries(readCsv(join(out, 'jobs.csv')).map((j) => [j['job_id'], [Number(j['start']), Number(j['finish'])]]));
      expect(simulated).toEqual(batsim);
      // hand-computed: EASY backfills j3 (ends at 10 = the head's shadow time) at t=2
      expect(batsim['j3']).toEqual(policy === 'EASY' ? [2, 10] : [15, 23]);
      expect(batsim['j5']).toEqual(policy === 'EASY' ? [15, 18] : [15, 18]);
      expect(batsim['j2']).toEqual([10, 15]);
    });
  }

  it('power states on a SimGrid platform: switches, RESOURCE_STATE_CHANGED, QUERY/ANSWER energy (hand-computed)', async () => {
    const r = await runBatsim('power.py', ['0', '2'], ['-p', ENERGY_XML, '-w', ENERGY_WORKLOAD, '--energy']);
    expect(r.cli.stderr).toBe('');
    expect(r.cli.code).toBe(0);
    const begins = r.transcript[0]!.msg.events[0]!.data;
    expect(begins['nb_resources']).toBe(4); // the master host is not a resource
    expect((begins['compute_resources'] as { name: string }[]).map((c) => c.name)).toEqual(['host0', 'host1', 'host2', 'host3']);
    expect(received(r.transcript)).toEqual([
      [0, ['SIMULATION_BEGINS']],
      [0, ['JOB_SUBMITTED:w0!a']],
      [2, ['RESOURCE_STATE_CHANGED:2-3']],
      [10, ['JOB_COMPLETED:w0!a']],
      [10, ['ANSWER']],
      [12, ['RESOURCE_STATE_CHANGED:0-1']],
      [20, ['JOB_SUBMITTED:w0!b', 'NOTIFY:no_more_static_job_to_submit']],
      [24, ['RESOURCE_STATE_CHANGED:0-3']],
      [29, ['JOB_COMPLETED:w0!b']],
      [29, ['ANSWER']],
      [31, ['RESOURCE_STATE_CHANGED:0-3']],
      [31, ['SIMULATION_ENDS']],
    ]);
    const answers = r.transcript
      .filter((l) => l.dir === 'recv')
      .flatMap((l) => l.msg.events.filter((e) => e.type === 'ANSWER').map((e) => e.data['consumed_energy']));
    // t=10: hosts 0-1 ran a delay job (idle 100 W) 10 s: 2000 J; hosts 2-3 switched off 2 s at 50 W then slept 8 s at 10 W: 360 J
    // t=29: + hosts 0-1 off 2 s (200 J), asleep 8 s (160 J); hosts 2-3 asleep 10 s (200 J); all on 4 s at 120 W (1920 J), job b 5 s at 100 W (2000 J)
    expect(answers).toEqual([2360, 6840]);
    const states = r.transcript
      .filter((l) => l.dir === 'recv')
      .flatMap((l) => l.msg.events.filter((e) => e.type === 'RESOURCE_STATE_CHANGED').map((e) => e.data['state']));
    expect(states).toEqual(['2', '2', '0', '2']);
    const jobs = readCsv(`${r.prefix}_jobs.csv`);
    expect(jobs.map((j) => [j['job_id'], j['starting_time'], j['finish_time'], j['consumed_energy']])).toEqual([
      ['a', '0.000000', '10.000000', '2000.000000'],
      ['b', '24.000000', '29.000000', '2000.000000'],
    ]);
    expect(readCsv(`${r.prefix}_schedule.csv`)[0]).toMatchObject({
      consumed_joules: '6840.000000',
      nb_grouped_switches: '4',
      nb_machine_switches: '12',
      time_computing: '40.000000',
      time_switching_off: '16.000000',
      time_switching_on: '16.000000',
      time_sleeping: '52.000000',
      time_idle: '0.000000',
    });
  });

  it('a malformed reply ends the run with Batsim\'s "Invalid JSON message" and exit code 1', async () => {
    const replies = file('bad-json.json', [{ now: 0, events: [] }, '{"now": 0, "events": [']);
    const r = await runBatsim('scripted.py', [replies, 'exit'], ['-p', PLATFORM8, '-w', FCFS_WORKLOAD, '--timeout', '2']);
    expect(r.cli.code).toBe(1);
    expect(r.cli.stderr).toMatch(/^clustergym batsim: error at t=0: Invalid JSON message: cannot parse the message/);
  });

  it("an impossible allocation (a busy machine) ends the run with Batsim's message", async () => {
    const replies = file('busy.json', [
      { now: 0, events: [] },
      { now: '$now', events: [{ timestamp: '$now', type: 'EXECUTE_JOB', data: { job_id: 'w0!1', alloc: '0-3' } }] },
      { now: '$now', events: [{ timestamp: '$now', type: 'EXECUTE_JOB', data: { job_id: 'w0!2', alloc: '3-10' } }] },
    ]);
    const r = await runBatsim('scripted.py', [replies, 'exit'], ['-p', PLATFORM8, '-w', FCFS_WORKLOAD, '--timeout', '2']);
    expect(r.cli.code).toBe(1);
    expect(r.cli.stderr).toContain(
      "Job 'w0!2': Invalid allocation ('3-10'): machine 3 (hostname='node3') is currently computing jobs (these ones: {w0!1}) whereas time-sharing on compute machines is disabled",
    );
  });

  for (const then of ['silent', 'exit'] as const)
    it(`a scheduler that ${then === 'silent' ? 'stops answering' : 'dies'} ends the run within the timeout`, async () => {
      const replies = file(`${then}.json`, [{ now: 0, events: [] }]);
      const r = await runBatsim('scripted.py', [replies, then], ['-p', PLATFORM8, '-w', FCFS_WORKLOAD, '--timeout', '1']);
      expect(r.cli.code).toBe(1);
      expect(r.cli.stderr).toMatch(/the scheduler at tcp:\/\/127\.0\.0\.1:\d+ did not answer within 1 s .* stops at t=0 after 1 replies/);
      expect(r.cli.seconds).toBeLessThan(8);
    });

  it('a scheduler that never runs the jobs ends the run (no hang): nothing is left to happen', async () => {
    const replies = file('idle.json', []);
    const r = await runBatsim('scripted.py', [replies, 'echo-empty'], ['-p', PLATFORM8, '-w', FCFS_WORKLOAD, '--timeout', '2']);
    expect(r.cli.code).toBe(1);
    expect(r.cli.stderr).toContain(
      'the simulation cannot go on at t=4: 5 submitted job(s) were neither executed nor rejected (w0!1, w0!2, w0!3, w0!big, w0!p)',
    );
  });
});

describe('clustergym batsim command line', () => {
  it('bad input exits 2 naming the flag or the file', () => {
    expect(cli(['batsim', '-w', FCFS_WORKLOAD])).toMatchObject({ code: 2 });
    expect(cli(['batsim', '-w', FCFS_WORKLOAD]).stderr).toContain('--platform: Required');
    const bad = cli(['batsim', '-p', PLATFORM8, '-w', FCFS_WORKLOAD, '--timeout', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout');
    const unknown = file('smpi.json', { jobs: [{ id: 1, subtime: 0, res: 1, profile: 's' }], profiles: { s: { type: 'smpi', trace: 'x' } } });
    const u = cli(['batsim', '-p', PLATFORM8, '-w', unknown]);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('profile type "smpi" cannot be modelled by clustergym');
  });
});
