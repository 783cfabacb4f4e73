/**
 * `clustergym slurm-agent` on jobs as sites submit them (issue 43): a live Slurm of 4 emulated nodes of 4 CPUs
 * and 4,000 MB (`CR_CPU_Memory`, `DefMemPerCPU=500`), two partitions (`all` = n[1-4], `half` = n[3-4]) and
 * features (`a` on n1-n2, `b` on n3-n4). Workloads of whole-node jobs (`-N K --exclusive`), of tasks
 * (`-n T`), and a mix with memory (`--mem`), tasks per node, partitions (`-p half`, `-p all,half`), a constraint (`-C b`), a
 * dependency and a job no node of its partition can run: every job runs on exactly the nodes of its one
 * decision, as many as it asked for, starts within the documented bound of its decision (slurmctld's log,
 * milliseconds), none starts without a decision, the unrunnable one is reported and left held, and the
 * record replayed under the same rules (the closing note) starts the jobs in the decision order. Skipped
 * with a message when slurmctld is not installed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/core/rng.js';
import { HAVE_SLURM, TestCluster, decisions, exited, testPort, waitFor } from '../slurmCluster.js';

/**
 * The documented bound on decision-to-start (docs/slurm-agent.md, "Decision to start"): the release queues a
 * main pass that slurmctld's background thread runs on its 1 s tick at least `batch_sched_delay` (3 s) after
 * its previous one, plus the two `scontrol` commands (3 + 1 + 1 s), and once one more such pass when the
 * first finds a node of the decision still busy in its own view: 2 x (3 + 1) s.
 */
const START_BOUND = 8;

/** The workloads' seed: fresh for every run (printed), or `CLUSTERGYM_SLURM_TEST_SEED`. */
const SEED = Number(process.env.CLUSTERGYM_SLURM_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
if (HAVE_SLURM) console.log(`slurm-agent requests: workloads of seed ${SEED} (CLUSTERGYM_SLURM_TEST_SEED=${SEED} draws them again)`);

describe.skipIf(!HAVE_SLURM)('slurm-agent: node counts, exclusive nodes, tasks, memory, partitions, features, dependencies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-slurm-req-'));
  const port = testPort(9917);
  const c = new TestCluster(join(dir, 'cluster'));
  c.hooks(
    () => {
      const p = Number(port);
      const feature = (k: number) => (k <= 2 ? 'a' : 'b');
      const nodes = [1, 2, 3, 4].map(
        (k) => `NodeName=n${k} NodeHostname=localhost NodeAddr=127.0.0.1 Port=${p + k} CPUs=4 RealMemory=4000 Features=${feature(k)} State=UNKNOWN`,
      );
      writeFileSync(
        join(dir, 'extra.conf'),
        [
          'SelectTypeParameters=CR_CPU_Memory',
          'DefMemPerCPU=500',
          'MinJobAge=600',
          ...nodes,
          'PartitionName=all Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP',
          'PartitionName=half Nodes=n[3-4] MaxTime=INFINITE State=UP',
          '',
        ].join('\n'),
      );
      c.start({ NODES: '4', CPUS: '4', MEMORY: '4000', PORT_BASE: port, SLURM_CONF_EXTRA: join(dir, 'extra.conf') });
    },
    () => {
      rmSync(dir, { recursive: true, force: true });
    },
  );

  /**
   * Runs `fcfs` (or `policy`) until idle on the held jobs `ids`; checks that every job but `leftHeld`
   * completed on exactly the nodes of its one decision (`nodes[id]` of them when given), started within
   * START_BOUND s of it (slurmctld's log), that no job started without a decision, and that the record
   * replayed under the same rules starts them in the decision order. Returns the start latencies (s).
   */
  const runAndCheck = async (name: string, ids: string[], nodes: Record<string, number>, leftHeld: string[] = [], policy = 'fcfs') => {
    const dec = join(dir, `dec-${name}.jsonl`);
    const rec = join(dir, `rec-${name}`);
    const a = c.agent(['--policy', policy, '--exit-when-idle', '--decisions', dec, '--record', rec]);
    expect(await exited(a), `seed ${SEED}: ${a.out.join('')}`).toBe(0);
    const out = a.out.join('');
    expect(out, `seed ${SEED}`).not.toMatch(/without a decision|not on the decided/);
    const ds = decisions(dec);
    const q = c.queue(ids);
    const times = c.times();
    const latencies: number[] = [];
    for (const id of ids) {
      const j = q.get(id)!;
      const mine = ds.filter((d) => d.job_id === id);
      if (leftHeld.includes(id)) {
        expect(mine, `job ${id} is never decided`).toHaveLength(0);
        expect(j.job_state).toBe('PENDING');
        expect(j.priority, `job ${id} still held`).toBe(0);
        continue;
      }
      expect(j.job_state, `job ${id}`).toBe('COMPLETED');
      expect(mine, `decisions of job ${id}`).toHaveLength(1);
      const ran = c.expand(j.nodes).sort();
      expect(ran, `nodes of job ${id}`).toEqual([...mine[0]!.nodes].sort());
      if (nodes[id] !== undefined) expect(ran, `node count of job ${id}`).toHaveLength(nodes[id]!);
      const start = times.get(id)?.start as number;
      expect(start, `start of job ${id} in slurmctld's log`).toBeDefined();
      const lag = start - mine[0]!.t;
      expect(lag, `job ${id} started before its decision`).toBeGreaterThanOrEqual(0);
      expect(lag, `job ${id}: decision to start`).toBeLessThanOrEqual(START_BOUND);
      latencies.push(lag);
    }
    const cmp = JSON.parse(readFileSync(join(rec, 'sim-to-real.json'), 'utf8')) as { live_order: string[]; swaps_beyond_poll: unknown[] };
    expect(cmp.live_order).toEqual(ds.map((d) => d.job_id));
    expect(cmp.swaps_beyond_poll, out).toEqual([]);
    console.log(`slurm-agent ${name} (seed ${SEED}): decision to start ${latencies.map((x) => x.toFixed(2)).join(' ')} s`);
    return { out, latencies };
  };

  /** A workload's jobs (sbatch options and sleep) drawn from the test's seed. */
  const draw = (kind: 'nodes' | 'tasks' | 'mix', n: number): { args: string[]; sleep: number; nodes?: number }[] => {
    const rng = derive(SEED, `slurm-agent-${kind}`);
    return Array.from({ length: n }, () => {
      const sleep = 2 + rng.int(3);
      const t = ['-t', String(1 + rng.int(2))];
      const nodes = () => {
        const k = 1 + rng.int(3);
        return { args: ['-H', '-N', String(k), '--exclusive', ...t], sleep, nodes: k };
      };
      const tasks = () => ({ args: ['-H', '-n', String(1 + rng.int(6)), ...t], sleep });
      if (kind === 'nodes') return nodes();
      if (kind === 'tasks') return tasks();
      const u = rng.uniform(0, 1);
      if (u < 0.25) return nodes();
      const job = tasks();
      if (rng.uniform(0, 1) < 0.6) job.args.push(`--mem=${500 * (1 + rng.int(7))}`);
      const where = rng.int(4);
      // tasks per node (on partition all: at most 3 nodes), which Slurm rounds the tasks up to on every node
      if (where === 0 && rng.uniform(0, 1) < 0.5) job.args.push('--ntasks-per-node', String(2 + rng.int(2)));
      if (where === 1) job.args.push('-p', 'half');
      else if (where === 2) job.args.push('-p', 'all,half');
      else if (where === 3) job.args.push('-C', 'b');
      return job;
    });
  };
  const submitAll = (jobs: { args: string[]; sleep: number }[]) => jobs.map((j) => c.sbatch(j.args, j.sleep));

  it('whole nodes: -N K --exclusive runs on exactly its decided nodes, K of them', async () => {
    const jobs = draw('nodes', 7);
    const ids = submitAll(jobs);
    await runAndCheck('nodes', ids, Object.fromEntries(ids.map((id, i) => [id, jobs[i]!.nodes!])));
  }, 120_000);

  it('tasks: -n 1..6 on shared nodes (500 MB per CPU by default)', async () => {
    const ids = submitAll(draw('tasks', 8));
    await runAndCheck('tasks', ids, {});
  }, 120_000);

  it('a mix with memory, partitions, a constraint, a dependency and a job no node can run', async () => {
    const jobs = draw('mix', 6);
    const ids = submitAll(jobs);
    const first = ids[0]!;
    const dep = c.sbatch(['-H', '-n', '2', '-t', '1', `--dependency=afterok:${first}`], 2);
    const never = c.sbatch(['-H', '-n', '1', '-p', 'half', '-C', 'a', '-t', '1'], 1);
    const all = [...ids, dep, never];
    const { out } = await runAndCheck('mix', all, Object.fromEntries(ids.flatMap((id, i) => (jobs[i]!.nodes ? [[id, jobs[i]!.nodes!]] : []))), [never]);
    expect(out).toMatch(new RegExp(`job ${never} is left held: no node of partition half has what it asks`));
    const ds = decisions(join(dir, 'dec-mix.jsonl'));
    const at = (id: string) => ds.find((d) => d.job_id === id)!;
    // where the request allows: -p half and -C b on n3-n4
    for (const [i, id] of ids.entries()) {
      const a = jobs[i]!.args;
      if (a.includes('half') && !a.includes('all,half')) for (const n of at(id).nodes) expect(['n3', 'n4'], `job ${id} (-p half) on ${n}`).toContain(n);
      if (a.includes('b')) for (const n of at(id).nodes) expect(['n3', 'n4'], `job ${id} (-C b) on ${n}`).toContain(n);
    }
    // the dependent job is decided only once its dependency ended
    expect(at(dep).t).toBeGreaterThan(c.times().get(first)?.end as number);
  }, 120_000);

  it('tasks per node: Slurm runs P tasks on every node of the decision, as the mirror holds them', async () => {
    // (4 nodes of 4 CPUs) -n 3 --ntasks-per-node 2: 4 CPUs on 2 nodes; -n 3 -c 2 --ntasks-per-node 2: 8 on 2;
    // -n 5 --ntasks-per-node 3: 6 on 2; -n 2 --ntasks-per-node 3: 3 on 1 node; -n 1 --ntasks-per-node 2: 1
    const shapes: [string[], number, number][] = [
      [['-n', '3', '--ntasks-per-node', '2'], 4, 2],
      [['-n', '3', '-c', '2', '--ntasks-per-node', '2'], 8, 2],
      [['-n', '5', '--ntasks-per-node', '3'], 6, 2],
      [['-n', '2', '--ntasks-per-node', '3'], 3, 1],
      [['-n', '1', '--ntasks-per-node', '2'], 1, 1],
    ];
    const ids = shapes.map(([args], i) => c.sbatch(['-H', ...args, '-t', '1'], 2 + (i % 3)));
    await runAndCheck('per-node', ids, Object.fromEntries(ids.map((id, i) => [id, shapes[i]![2]])));
    const q = c.queue(ids);
    for (const [i, id] of ids.entries()) expect(q.get(id)!.cpus, `CPUs Slurm gave job ${id} (${shapes[i]![0].join(' ')})`).toBe(shapes[i]![1]);
    // the record holds the CPUs the mirror held, Slurm's
    const wl = JSON.parse(readFileSync(join(dir, 'rec-per-node', 'workload.json'), 'utf8')) as { jobs: { id: string; ntasks: number }[] };
    for (const [i, id] of ids.entries()) expect(wl.jobs.find((j) => j.id === id)?.ntasks, `mirror CPUs of job ${id}`).toBe(shapes[i]![1]);
  }, 120_000);

  it('SIGTERM releases every held job to Slurm; after SIGKILL held jobs stay held and a restarted agent finishes them: none lost', async () => {
    const ids = submitAll(draw('mix', 8));
    const dec = join(dir, 'dec-term.jsonl');
    const a = c.agent(['--policy', 'fcfs', '--decisions', dec]);
    await waitFor('a first decision', () => decisions(dec).length >= 1, 30_000);
    a.kill('SIGTERM');
    expect(await exited(a), a.out.join('')).toBe(0);
    expect(a.out.join('')).toMatch(/released \d+ held job/);
    for (const j of c.queue(ids).values()) expect(j.priority, `job ${j.job_id} not held`).toBeGreaterThan(0);
    await waitFor('every job completed', c.allDone(ids), 90_000);
    // SIGKILL: the held jobs stay held, the decided ones run; a restarted agent takes up the rest
    const more = submitAll(draw('mix', 8).map((j) => ({ ...j, sleep: j.sleep + 1 })));
    const dec1 = join(dir, 'dec-kill1.jsonl');
    const b = c.agent(['--policy', 'fcfs', '--decisions', dec1]);
    await waitFor('a first decision released', () => decisions(dec1).some((d) => c.queue([d.job_id]).get(d.job_id)!.priority > 0), 30_000);
    b.kill('SIGKILL');
    await exited(b);
    const q = c.queue(more);
    const decided = new Set(decisions(dec1).map((d) => d.job_id));
    for (const id of more) if (!decided.has(id) && q.get(id)!.job_state === 'PENDING') expect(q.get(id)!.priority, `job ${id} still held`).toBe(0);
    // a decision written but not yet released when the agent was killed leaves its job held: decided again
    const heldAtKill = new Set(more.filter((id) => q.get(id)!.job_state === 'PENDING' && q.get(id)!.priority === 0));
    const dec2 = join(dir, 'dec-kill2.jsonl');
    const r = c.agent(['--policy', 'fcfs', '--exit-when-idle', '--decisions', dec2]);
    expect(await exited(r), r.out.join('')).toBe(0);
    const final = c.queue(more);
    const ds = [...decisions(dec1), ...decisions(dec2)];
    for (const id of more) {
      expect(final.get(id)!.job_state, `job ${id}`).toBe('COMPLETED');
      const mine = ds.filter((d) => d.job_id === id);
      expect(mine.length, `decisions of job ${id}`).toBe(heldAtKill.has(id) && decided.has(id) ? 2 : 1);
      expect(c.expand(final.get(id)!.nodes).sort(), `nodes of job ${id}`).toEqual([...mine[mine.length - 1]!.nodes].sort());
    }
  }, 240_000);
});
