/**
 * deploy/slurm on a live Slurm (deploy/slurm/local-cluster.sh: 2 emulated nodes of 2 CPUs on this
 * machine, every process real): fleet.sbatch starts one clustergym server per node and runs a
 * learner against them all (the CleanRL-style PPO of python-client/examples, whose first training
 * episodes must be those of a one-server run); a server SIGKILLed under a stepping learner ends its
 * call with an error naming that server, and the job leaves no process behind; leaderboard.sh's
 * array job and merge give the one-machine leaderboard. Skipped (with a message) when Slurm or
 * Python's client modules are missing. The cluster uses its own PORT_BASE
 * ($CLUSTERGYM_FLEET_SLURM_PORT_BASE, default 9717) and directory ($CLUSTERGYM_FLEET_SLURM_TEST_DIR,
 * which .ci/run's trap stops whatever happens).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers.js';

const HAVE_SLURM = spawnSync('sh', ['-c', 'command -v slurmctld && command -v slurmd && command -v sbatch'], { encoding: 'utf8' }).status === 0;
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const HAVE_PY = spawnSync(PYTHON, ['-c', 'import zmq, msgpack, numpy, torch'], { encoding: 'utf8' }).status === 0;
if (!HAVE_SLURM) console.warn('skipped: the Slurm fleet tests need slurmctld, slurmd and sbatch (apt-get install slurm-wlm munge; .ci/run does it)');
else if (!HAVE_PY) console.warn('skipped: the Slurm fleet tests need Python with zmq, msgpack, numpy and torch (Debian python3-zmq, -msgpack, -numpy, -torch)');

const SCRIPT = join(ROOT, 'deploy/slurm/local-cluster.sh');
const DEPLOY = join(ROOT, 'deploy/slurm');
const PPO = join(ROOT, 'python-client/examples/ppo_torch.py');
const PPO_ARGS = ['--total-steps', '1024', '--num-steps', '64', '--num-envs', '4', '--jobs', '64', '--eval-episodes', '2', '--quiet'];

describe.skipIf(!HAVE_SLURM || !HAVE_PY)('deploy/slurm on a live Slurm (2 nodes x 2 CPUs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-slurm-fleet-'));
  const cluster = process.env.CLUSTERGYM_FLEET_SLURM_TEST_DIR ?? join(dir, 'cluster');
  const work = join(dir, 'work');
  const env = {
    ...process.env,
    SLURM_CONF: join(cluster, 'slurm.conf'),
    CLUSTERGYM: `${process.execPath} ${CLI}`,
    CLUSTERGYM_DEPLOY: DEPLOY,
    CLUSTERGYM_BIND_HOST: '127.0.0.1',
    PYTHONPATH: join(ROOT, 'python-client'),
  };
  const stop = () => spawnSync('bash', [SCRIPT, 'stop', cluster], { stdio: 'ignore' });
  const onExit = () => stop();
  /** Processes whose command line names `text` (this run's servers and learners), but not pgrep itself. */
  const processesNaming = (text: string) =>
    (spawnSync('pgrep', ['-af', text], { encoding: 'utf8' }).stdout ?? '').split('\n').filter((l) => l.trim() !== '' && !l.includes('pgrep'));

  beforeAll(() => {
    process.on('exit', onExit);
    mkdirSync(work, { recursive: true });
    const r = spawnSync('bash', [SCRIPT, 'start', cluster], {
      encoding: 'utf8',
      env: { ...process.env, NODES: '2', CPUS: '2', PORT_BASE: process.env.CLUSTERGYM_FLEET_SLURM_PORT_BASE ?? '9717' },
    });
    if (r.status !== 0) throw new Error(`local-cluster.sh start failed: ${r.stderr}`);
  }, 120_000);

  afterAll(() => {
    stop();
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  });

  const sbatch = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync('sbatch', ['--wait', '--parsable', ...args], { cwd: work, encoding: 'utf8', env: { ...env, ...extra }, timeout: 300_000 });
  const jobOutput = (id: string) => readFileSync(join(work, `clustergym-fleet-${id}.out`), 'utf8');

  it('fleet.sbatch: a PPO learner on 2 servers (one per node) trains, its first episodes those of one server', () => {
    const run = join(work, 'ppo-run');
    const r = sbatch(['--nodes=2', join(DEPLOY, 'fleet.sbatch'), PYTHON, PPO, ...PPO_ARGS], { CLUSTERGYM_RUN_DIR: run });
    const id = r.stdout.trim().split(';')[0]!;
    const out = jobOutput(id);
    expect(r.status, `${r.stderr}\n${out}`).toBe(0);
    expect(out).toMatch(/fleet: job \d+: 2 servers: tcp:\/\/127\.0\.0\.1:\d+,tcp:\/\/127\.0\.0\.1:\d+/);
    const line = out.split('\n').find((l) => l.startsWith('{'))!;
    const fleet = JSON.parse(line) as { servers: number; steps: number; first_episodes: [number, number, number][] };
    expect(fleet.servers).toBe(2);
    expect(fleet.steps).toBe(1024);
    expect(fleet.first_episodes.length).toBe(8);
    // the same learner on one local server
    const one = spawnSync(PYTHON, [PPO, ...PPO_ARGS], { encoding: 'utf8', env: { ...env, CLUSTERGYM_ADDRESSES: '' }, timeout: 300_000 });
    expect(one.status, one.stderr).toBe(0);
    const single = JSON.parse(one.stdout.trim().split('\n').at(-1)!) as typeof fleet;
    expect(single.servers).toBe(1);
    expect(fleet.first_episodes).toEqual(single.first_episodes);
    // the servers stopped when the learner was done, each closing on the step's SIGTERM (scancel
    // --signal=TERM reaches the task's process group and fleet-server.sh's trap passes it on: the server
    // gets it twice and must close once, not die of the second), nothing left
    for (const k of [0, 1]) expect(readFileSync(join(run, `server-${k}.log`), 'utf8')).toMatch(/SIGTERM, closing/);
    expect(processesNaming(run)).toEqual([]);
  });

  it('a server SIGKILLed under the learner: its call ends with ServerLostError naming it, the job fails, no process is left', () => {
    const run = join(work, 'kill-run');
    const learner = join(work, 'stepper.py');
    writeFileSync(
      learner,
      [
        'import json, os, sys, time',
        'import clustergym',
        "run = os.environ['CLUSTERGYM_RUN_DIR']",
        "venv = clustergym.make_vec('clustergym/Job-v0', 4, {'k': 8, 'trajectory': {'length': 30}}, addresses=os.environ['CLUSTERGYM_ADDRESSES'].split(','), seeds=1, timeout=None)",
        'venv.reset()',
        "open(os.path.join(run, 'learner.ready'), 'w').close()",
        'try:',
        '    while True:',
        '        venv.step(venv.action_masks().argmax(axis=1))',
        'except Exception as e:',
        "    print(json.dumps({'error': type(e).__name__, 'message': str(e), 't': time.time()}), flush=True)",
        '    sys.exit(3)',
      ].join('\n'),
    );
    const job = spawnSync('sbatch', ['--parsable', '--nodes=2', join(DEPLOY, 'fleet.sbatch'), PYTHON, learner], {
      cwd: work,
      encoding: 'utf8',
      env: { ...env, CLUSTERGYM_RUN_DIR: run },
    });
    expect(job.status, job.stderr).toBe(0);
    const id = job.stdout.trim().split(';')[0]!;
    const deadline = Date.now() + 120_000;
    while (!existsSync(join(run, 'learner.ready')) && Date.now() < deadline) spawnSync('sleep', ['0.2']);
    expect(existsSync(join(run, 'learner.ready'))).toBe(true);
    spawnSync('sleep', ['0.5']); // stepping
    const log = readFileSync(join(run, 'server-1.log'), 'utf8');
    const [, address, pid] = /listening on (tcp:\/\/\S+) \(\w+, pid (\d+)\)/.exec(log)!;
    const killed = Date.now() / 1000;
    process.kill(Number(pid), 'SIGKILL');
    // the job ends: the learner raised, the batch script stopped the other server
    for (let i = 0; i < 600; i++) {
      const state = spawnSync('squeue', ['-h', '-j', id, '-o', '%T'], { encoding: 'utf8', env }).stdout.trim();
      if (state === '') break;
      spawnSync('sleep', ['0.2']);
    }
    const out = jobOutput(id);
    const line = out.split('\n').find((l) => l.startsWith('{'));
    expect(line, out).toBeDefined();
    const e = JSON.parse(line!) as { error: string; message: string; t: number };
    expect(e.error).toBe('ServerLostError');
    expect(e.message).toContain(address);
    expect(e.t - killed).toBeLessThan(2); // the killed server's connection closed at once
    expect(out).toMatch(/fleet: the learner exited with 3/);
    // slurmctld keeps the ended job for MinJobAge (300 s): failed, with the learner's exit code
    const shown = spawnSync('scontrol', ['show', 'job', id], { encoding: 'utf8', env }).stdout;
    expect(shown).toMatch(/JobState=FAILED .*ExitCode=3:0/s);
    // the surviving server closed on the step's SIGTERM, and no process is left
    expect(readFileSync(join(run, 'server-0.log'), 'utf8')).toMatch(/clustergym serve: listening on[\s\S]*SIGTERM, closing/);
    expect(processesNaming(run)).toEqual([]);
  });

  it('leaderboard.sh: an array job of 3 pieces and their merge give the one-machine leaderboard', () => {
    const args = ['--settings', 'malleable,fair', '--episodes', '5', '--seed', '6'];
    const r = spawnSync('bash', [join(DEPLOY, 'leaderboard.sh'), '--wait', '3', ...args], { cwd: work, encoding: 'utf8', env, timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    const [, , out] = r.stdout.trim().split(' ');
    expect(readdirSync(join(out!, 'pieces')).sort()).toEqual(['shard-0-of-3.json', 'shard-1-of-3.json', 'shard-2-of-3.json']);
    const one = spawnSync(process.execPath, [CLI, 'leaderboard', ...args, '--json', '--out', join(work, 'one')], { encoding: 'utf8' });
    expect(one.status, one.stderr).toBe(0);
    const times = (t: string) => t.replace(/"seconds": ?[-0-9.e+]+/g, '"seconds":0');
    expect(times(readFileSync(join(out!, 'merge.out'), 'utf8'))).toBe(times(one.stdout));
  });
});
