/**
 * `clustergym slurm-agent` against a real Slurm: `deploy/slurm/local-cluster.sh` starts a slurmctld
 * and 4 emulated nodes of 2 CPUs (PORT_BASE 9817, with `deploy/slurm/job_submit.lua` holding every
 * new job), the agent runs as a real process (`node dist/cli/main.js slurm-agent`), jobs are real
 * `sbatch --wrap "sleep N"` jobs. Skipped (with a message) only when slurmctld is not installed.
 * The cluster is always stopped (afterAll, on the process's exit, and by .ci/run's trap, which names
 * its directory in CLUSTERGYM_SLURM_TEST_DIR).
 *
 * Also, without Slurm: the host-list expansion and the errors on malformed Slurm output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hostNames, parseJson, SlurmOutputError } from '../../src/slurm/client.js';
import { CLI, ROOT } from '../helpers.js';
import { HAVE_SLURM, TestCluster, decisions, exited, testPort, waitFor } from '../slurmCluster.js';

describe('Slurm client helpers', () => {
  it('expands host lists', () => {
    expect(hostNames('n[1-3,7],m2')).toEqual(['n1', 'n2', 'n3', 'n7', 'm2']);
    expect(hostNames('node[08-10]')).toEqual(['node08', 'node09', 'node10']);
    expect(hostNames('n4')).toEqual(['n4']);
    expect(hostNames('')).toEqual([]);
    expect(hostNames('(null)')).toEqual([]);
    expect(hostNames('r[1-2]n[1-2]')).toEqual(['r1n1', 'r1n2', 'r2n1', 'r2n2']);
  });
  it('names the command and the field of unexpected output', () => {
    const schema = z.object({ jobs: z.array(z.object({ job_id: z.number() })) });
    expect(() => parseJson('squeue --json', '{"jobs":[{"job_id":"7"}]}', schema)).toThrow(
      /squeue --json: unexpected output: \$\.jobs\[0\]\.job_id: Expected number, received string \(found "7"\)/,
    );
    expect(() => parseJson('sinfo --json', 'slurm_load_node error', schema)).toThrow(SlurmOutputError);
    expect(() => parseJson('sinfo --json', 'slurm_load_node error', schema)).toThrow(/sinfo --json: unexpected output: not JSON/);
  });
});

if (!HAVE_SLURM) console.warn('skipped: the live Slurm tests need slurmctld, slurmd and sbatch (apt-get install slurm-wlm munge; .ci/run does it)');

describe.skipIf(!HAVE_SLURM)('slurm-agent on a live Slurm (4 nodes x 2 CPUs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-slurm-agent-'));
  // .ci/run names the cluster directory so that its trap can stop the cluster whatever happens
  const cluster = process.env.CLUSTERGYM_SLURM_TEST_DIR ?? join(dir, 'cluster');
  const c = new TestCluster(cluster);
  c.hooks(
    () => {
      mkdirSync(cluster, { recursive: true });
      copyFileSync(join(ROOT, 'deploy/slurm/job_submit.lua'), join(cluster, 'job_submit.lua'));
      writeFileSync(join(dir, 'extra.conf'), 'JobSubmitPlugins=lua\nMinJobAge=600\n');
      c.start({ NODES: '4', CPUS: '2', PORT_BASE: testPort(9817), SLURM_CONF_EXTRA: join(dir, 'extra.conf') });
    },
    () => {
      rmSync(dir, { recursive: true, force: true });
      if (cluster !== join(dir, 'cluster')) rmSync(cluster, { recursive: true, force: true });
    },
  );

  const sh = (cmd: string, args: string[]): string => c.sh(cmd, args);
  /** Submits `sleep S` on `cpus` CPUs (time limit `minutes`); `hold`: with --hold, else job_submit.lua holds it. */
  const submit = (cpus: number, seconds: number, minutes: number, hold = true): string =>
    c.sbatch([...(hold ? ['-H'] : []), '-n', String(cpus), '-t', String(minutes)], seconds);
  const queue = (ids: readonly string[]) => c.queue(ids);
  const allDone = (ids: readonly string[]) => c.allDone(ids);
  const agent = (args: string[]) => c.agent(args);
  const expand = (s: string) => c.expand(s);

  /** Every job completed, each on exactly the nodes of its one decision, within `lag` s (5) of it. */
  const checkFollowed = (ids: readonly string[], ds: { t: number; job_id: string; nodes: string[] }[], lag = 5) => {
    const q = queue(ids);
    for (const id of ids) {
      const j = q.get(id)!;
      expect(j.job_state, `job ${id}`).toBe('COMPLETED');
      const mine = ds.filter((d) => d.job_id === id);
      expect(mine, `decisions of job ${id}`).toHaveLength(1);
      expect(expand(j.nodes).sort(), `nodes of job ${id}`).toEqual([...mine[0]!.nodes].sort());
      // Slurm's start_time is whole seconds
      expect(j.start_time, `start of job ${id}`).toBeGreaterThanOrEqual(Math.floor(mine[0]!.t));
      expect(j.start_time - mine[0]!.t, `start of job ${id} after its decision`).toBeLessThanOrEqual(lag);
    }
  };

  it('job_submit.lua holds new jobs; sjf schedules them; simulate on the record gives the same decision order', async () => {
    const ids = [submit(2, 3, 1, false), submit(1, 1, 3), submit(4, 2, 2), submit(3, 1, 1), submit(2, 2, 4), submit(1, 2, 2)];
    const q0 = queue(ids);
    // submitted without --hold: held by job_submit.lua (priority 0)
    expect(q0.get(ids[0]!)!.state_reason).toMatch(/^JobHeld/);
    for (const id of ids) expect(q0.get(id)!.priority, `job ${id} held`).toBe(0);
    const rec = join(dir, 'rec-sjf');
    const dec = join(dir, 'dec-sjf.jsonl');
    const a = agent(['--policy', 'sjf', '--exit-when-idle', '--decisions', dec, '--record', rec]);
    expect(await exited(a), a.out.join('')).toBe(0);
    const ds = decisions(dec);
    expect(ds.map((d) => d.job_id).sort()).toEqual([...ids].sort());
    checkFollowed(ids, ds);
    // the first round at t = 0: sjf by time limit (1 min first, submission order among equals) while they fit
    expect(ds.slice(0, 2).map((d) => d.job_id)).toEqual([ids[0], ids[3]]);
    // simulate on the record: the same order of starts
    const out = join(dir, 'sim-sjf');
    const r = spawnSync(
      process.execPath,
      [CLI, 'simulate', '--platform', join(rec, 'platform.json'), '--workload', join(rec, 'workload.swf'), '--policy', 'sjf', '--out', out],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const cmp = JSON.parse(readFileSync(join(rec, 'sim-to-real.json'), 'utf8')) as {
      sim_order: string[];
      live_order: string[];
      swaps_beyond_poll: unknown[];
      max_abs_difference: number;
    };
    expect(cmp.live_order).toEqual(ds.map((d) => d.job_id));
    expect(cmp.swaps_beyond_poll).toEqual([]);
    const rows = readFileSync(join(out, 'jobs.csv'), 'utf8').trim().split('\n');
    const head = rows[0]!.split(',');
    const simStart = new Map(rows.slice(1).map((l) => [l.split(',')[head.indexOf('job_id')]!, Number(l.split(',')[head.indexOf('start')])]));
    expect(new Set(simStart.keys())).toEqual(new Set(ids));
    // the live decision order is simulate's start order (equal simulated starts in either order)
    for (let i = 1; i < ds.length; i++)
      expect(simStart.get(ds[i]!.job_id)!, `job ${ds[i]!.job_id} after ${ds[i - 1]!.job_id}`).toBeGreaterThanOrEqual(simStart.get(ds[i - 1]!.job_id)!);
    expect(a.out.join('')).toMatch(/decision order: the same/);
  }, 90_000);

  it('a shipped model (data/models/lublin256, Job-v0) schedules a held workload', async () => {
    const ids = [submit(2, 1, 2), submit(3, 2, 1), submit(8, 1, 3), submit(1, 1, 1)];
    const dec = join(dir, 'dec-model.jsonl');
    const a = agent(['--model', join(ROOT, 'data/models/lublin256'), '--exit-when-idle', '--decisions', dec]);
    expect(await exited(a), a.out.join('')).toBe(0);
    const ds = decisions(dec);
    expect(ds.map((d) => d.job_id).sort()).toEqual([...ids].sort());
    checkFollowed(ids, ds);
  }, 90_000);

  it('SIGTERM mid-run releases the held jobs and every job completes under Slurm', async () => {
    const ids = [submit(8, 2, 1), submit(8, 2, 1), submit(8, 2, 1), submit(8, 2, 1)];
    const dec = join(dir, 'dec-term.jsonl');
    const a = agent(['--policy', 'fcfs', '--decisions', dec]);
    await waitFor('the first decision', () => decisions(dec).length >= 1, 30_000);
    a.kill('SIGTERM');
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(a.out.join('')).toMatch(/released \d+ held job/);
    const q = queue(ids);
    for (const id of ids) expect(q.get(id)!.priority, `job ${id} not held`).toBeGreaterThan(0);
    await waitFor('every job completed', allDone(ids), 40_000);
  }, 90_000);

  it('--keep-held: SIGTERM leaves the held jobs held', async () => {
    const ids = [submit(8, 2, 1), submit(8, 1, 1)];
    const dec = join(dir, 'dec-keep.jsonl');
    const a = agent(['--policy', 'fcfs', '--keep-held', '--decisions', dec]);
    await waitFor('the first decision released', () => decisions(dec).length >= 1 && queue([ids[0]!]).get(ids[0]!)!.priority > 0, 30_000);
    a.kill('SIGTERM');
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(a.out.join('')).not.toMatch(/released \d+ held job/);
    expect(queue([ids[1]!]).get(ids[1]!)!.priority).toBe(0);
    sh('scontrol', ['release', ids[1]!]);
    await waitFor('every job completed', allDone(ids), 30_000);
  }, 60_000);

  it('after SIGKILL a restarted agent takes up the queue, with a job submitted while it was down', async () => {
    const ids = [submit(8, 2, 1), submit(4, 2, 1), submit(8, 1, 1)];
    const dec1 = join(dir, 'dec-kill1.jsonl');
    const a = agent(['--policy', 'fcfs', '--decisions', dec1]);
    // killed once its first decision reached Slurm (released), between two polls
    await waitFor(
      'the first decision released',
      () => decisions(dec1).length >= 1 && queue([decisions(dec1)[0]!.job_id]).get(decisions(dec1)[0]!.job_id)!.priority > 0,
      30_000,
    );
    a.kill('SIGKILL');
    await exited(a);
    const late = submit(2, 1, 1);
    expect(queue([late]).get(late)!.priority).toBe(0);
    const dec2 = join(dir, 'dec-kill2.jsonl');
    const b = agent(['--policy', 'fcfs', '--exit-when-idle', '--decisions', dec2]);
    expect(await exited(b), b.out.join('')).toBe(0);
    const all = [...ids, late];
    const ds = [...decisions(dec1), ...decisions(dec2)];
    checkFollowed(all, ds);
    expect(decisions(dec2).some((d) => d.job_id === late)).toBe(true);
  }, 90_000);

  const PY = '/usr/bin/python3';
  const HAVE_PYZMQ = spawnSync(PY, ['-c', 'import zmq, msgpack, numpy'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!HAVE_PYZMQ)(
    '--bridge: a Python policy (clustergym.policy_server) gets the env observation and mask, its actions are applied',
    async () => {
      // the policy picks the LAST valid job (not what any heuristic would) and logs what it received
      const script = join(dir, 'last_policy.py');
      writeFileSync(
        script,
        [
          'import json, sys',
          'import numpy as np',
          `sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python-client'))})`,
          'from clustergym.policy_server import serve_policy',
          'seen = []',
          'def policy(obs, info):',
          '    mask = info["action_mask"]',
          '    seen.append({k: [list(v.shape), str(v.dtype)] for k, v in obs.items()} | {"mask": int(mask.size), "present": obs["jobs"][:, 0].tolist(), "can_start": obs["jobs"][:, 7].tolist(), "valid": mask[:-1].tolist()})',
          '    return int(np.flatnonzero(mask[:-1])[-1])',
          'n = serve_policy(policy, sys.argv[1])',
          'json.dump({"actions": n, "seen": seen}, open(sys.argv[2], "w"))',
        ].join('\n'),
      );
      const log = join(dir, 'policy.json');
      const py = spawn(PY, [script, 'tcp://127.0.0.1:0', log], { stdio: ['ignore', 'pipe', 'inherit'] });
      const endpoint = await new Promise<string>((resolve) => py.stdout!.once('data', (b: Buffer) => resolve(b.toString().trim())));
      const ids = [submit(1, 1, 1), submit(1, 1, 1), submit(1, 1, 1)];
      const dec = join(dir, 'dec-bridge.jsonl');
      const a = agent(['--bridge', endpoint, '--exit-when-idle', '--decisions', dec]);
      expect(await exited(a), a.out.join('')).toBe(0);
      expect(await exited(py)).toBe(0);
      const ds = decisions(dec);
      expect(ds.map((d) => d.job_id)).toEqual([...ids].reverse());
      checkFollowed(ids, ds);
      const got = JSON.parse(readFileSync(log, 'utf8')) as { actions: number; seen: Record<string, unknown>[] };
      expect(got.actions).toBe(3);
      // Job-v0 with the default K = 32 on 4 nodes: the env's dict observation, float32, and its mask of K + 1
      expect(got.seen[0]).toMatchObject({ jobs: [[32, 8], 'float32'], nodes: [[4, 7], 'float32'], global: [[5], 'float32'], mask: 33 });
      expect((got.seen[0]!.present as number[]).slice(0, 4)).toEqual([1, 1, 1, 0]);
      expect((got.seen[0]!.can_start as number[]).slice(0, 4)).toEqual([1, 1, 1, 0]);
      expect((got.seen[2]!.valid as number[]).slice(0, 2)).toEqual([1, 0]);
    },
    60_000,
  );

  it('slurmctld down mid-run: the agent retries with backoff (no tight loop) and finishes the queue when it returns', async () => {
    const ids = [submit(8, 2, 1), submit(8, 2, 1), submit(8, 1, 1)];
    const dec = join(dir, 'dec-down.jsonl');
    const a = agent(['--policy', 'fcfs', '--exit-when-idle', '--decisions', dec]);
    await waitFor(
      'the first decision released',
      () => decisions(dec).length >= 1 && queue([decisions(dec)[0]!.job_id]).get(decisions(dec)[0]!.job_id)!.priority > 0,
      30_000,
    );
    const pid = Number(readFileSync(join(cluster, 'slurmctld.pid'), 'utf8'));
    process.kill(pid, 'SIGTERM');
    await waitFor('slurmctld gone', () => !existsSync(`/proc/${pid}`), 20_000);
    // longer than squeue's own wait for the controller (about 10 s), so that the agent sees failures
    await new Promise((r) => setTimeout(r, 14_000));
    const polls = a.out.join('').match(/Slurm reports: [^\n]*retry/g) ?? [];
    // restarted with its saved state (no -c): the jobs are still there
    sh('slurmctld', ['-f', join(cluster, 'slurm.conf')]);
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(polls.length, a.out.join('')).toBeGreaterThanOrEqual(1);
    // backoff: a handful of tries in 14 s, not a tight loop
    expect(polls.length).toBeLessThanOrEqual(6);
    // a job released just before the outage starts when slurmctld is back
    checkFollowed(ids, decisions(dec), 40);
  }, 120_000);

  it('--env jobnode with --platform FILE: node types name the Slurm nodes (here in reverse order)', async () => {
    const proc = { cores: 2, clock_rate: 1, dpflops_per_cycle: 1, static_power: 0, dynamic_power: 0, min_power: 0 };
    const platform = join(dir, 'reversed.json');
    writeFileSync(
      platform,
      JSON.stringify({
        name: 'reversed',
        clusters: [{ nodes: ['n4', 'n3', 'n2', 'n1'].map((type) => ({ count: 1, type, memory_gb: 1, processors: [proc] })) }],
      }),
    );
    const ids = [submit(1, 1, 1), submit(2, 1, 1)];
    const dec = join(dir, 'dec-jobnode.jsonl');
    const a = agent(['--policy', 'fcfs', '--env', 'jobnode', '--platform', platform, '--exit-when-idle', '--decisions', dec]);
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(a.out.join('')).toMatch(/on clustergym\/JobNode-v0/);
    const ds = decisions(dec);
    // first fit over the platform's nodes: platform node 0 is Slurm's n4, node 1 is n3; the 2-CPU job
    // (tasks anywhere) takes the free CPU of n4 and one of n3
    expect(ds.map((d) => [d.job_id, d.nodes])).toEqual([
      [ids[0], ['n4']],
      [ids[1], ['n4', 'n3']],
    ]);
    checkFollowed(ids, ds);
  }, 60_000);

  it('--dry-run decides and changes nothing', async () => {
    const ids = [submit(2, 1, 1), submit(2, 1, 1)];
    const dec = join(dir, 'dec-dry.jsonl');
    const a = agent(['--policy', 'fcfs', '--dry-run', '--exit-when-idle', '--decisions', dec]);
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(decisions(dec).map((d) => d.job_id)).toEqual(ids);
    expect(a.out.join('')).toMatch(/\(dry run\) would start job/);
    const q = queue(ids);
    for (const id of ids) {
      expect(q.get(id)!.job_state).toBe('PENDING');
      expect(q.get(id)!.priority).toBe(0);
      expect(q.get(id)!.required_nodes).toBe('');
    }
    sh('scancel', ids);
  }, 60_000);
});
