/**
 * `clustergym slurm-agent` on jobs as sites submit them (issue 43): a live Slurm of 4 emulated nodes of 4 CPUs
 * and 4,000 MB (`CR_CPU_Memory`, `DefMemPerCPU=500`), two partitions (`all` = n[1-4], `half` = n[3-4]) and
 * features (`a` on n1-n2, `b` on n3-n4). Workloads of whole-node jobs (`-N K --exclusive`), of tasks
 * (`-n T`), and a mix with memory (`--mem`), partitions (`-p half`, `-p all,half`), a constraint (`-C b`), a
 * dependency and a job no node of its partition can run: every job runs on exactly the nodes of its one
 * decision, as many as it asked for, starts within the documented bound of its decision (slurmctld's log,
 * milliseconds), none starts without a decision, the unrunnable one is reported and left held, and the
 * record replayed under the same rules (the closing note) starts the jobs in the decision order. Skipped
 * with a message when slurmctld is not installed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_SLURM, TestCluster, decisions, exited, testPort } from '../slurmCluster.js';

/**
 * The documented bound on decision-to-start (docs/slurm-agent.md, "Decision to start"): the release queues a
 * main pass that slurmctld's background thread runs on its 1 s tick at least `batch_sched_delay` (3 s) after
 * its previous one, plus the two `scontrol` commands: 3 + 1 + 1 s.
 */
const START_BOUND = 5;

describe.skipIf(!HAVE_SLURM)('slurm-agent: node counts, exclusive nodes, tasks, memory, partitions, features, dependencies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-slurm-req-'));
  const port = testPort(9917);
  const c = new TestCluster(join(dir, 'cluster'));
  const onExit = () => c.stop();

  beforeAll(() => {
    process.on('exit', onExit);
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
  }, 120_000);

  afterEach(() => c.clear(), 60_000);

  afterAll(() => {
    c.stop();
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

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
    expect(await exited(a), a.out.join('')).toBe(0);
    const out = a.out.join('');
    expect(out).not.toMatch(/without a decision|not on the decided/);
    const ds = decisions(dec);
    const q = c.queue(ids);
    const starts = c.startTimes();
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
      const start = starts.get(id)!;
      expect(start, `start of job ${id} in slurmctld's log`).toBeDefined();
      const lag = start - mine[0]!.t;
      expect(lag, `job ${id} started before its decision`).toBeGreaterThanOrEqual(0);
      expect(lag, `job ${id}: decision to start`).toBeLessThanOrEqual(START_BOUND);
      latencies.push(lag);
    }
    const cmp = JSON.parse(readFileSync(join(rec, 'sim-to-real.json'), 'utf8')) as { live_order: string[]; swaps_beyond_poll: unknown[] };
    expect(cmp.live_order).toEqual(ds.map((d) => d.job_id));
    expect(cmp.swaps_beyond_poll, out).toEqual([]);
    console.log(`slurm-agent ${name}: decision to start ${latencies.map((x) => x.toFixed(2)).join(' ')} s`);
    return { out, latencies };
  };

  it('whole nodes: -N 1..3 --exclusive runs on exactly its decided nodes, that many', async () => {
    const shapes = [2, 1, 3, 1, 2, 3, 1];
    const ids = shapes.map((n, i) => c.sbatch(['-H', '-N', String(n), '--exclusive', '-t', String(1 + (i % 2))], 2 + (i % 3)));
    await runAndCheck('nodes', ids, Object.fromEntries(ids.map((id, i) => [id, shapes[i]!])));
  }, 120_000);

  it('tasks: -n 1..6 on shared nodes (500 MB per CPU by default)', async () => {
    const tasks = [3, 6, 1, 4, 2, 5, 2, 3];
    const ids = tasks.map((n, i) => c.sbatch(['-H', '-n', String(n), '-t', '1'], 2 + (i % 3)));
    await runAndCheck('tasks', ids, {});
  }, 120_000);

  it('a mix with memory, partitions, a constraint, a dependency and a job no node can run', async () => {
    const x1 = c.sbatch(['-H', '-N', '2', '--exclusive', '-t', '1'], 3);
    const m1 = c.sbatch(['-H', '-n', '2', '--mem=3500', '-t', '1'], 3);
    const m2 = c.sbatch(['-H', '-n', '2', '--mem=3000', '-p', 'half', '-t', '1'], 2);
    const m3 = c.sbatch(['-H', '-n', '3', '-p', 'all,half', '-t', '1'], 2);
    const f1 = c.sbatch(['-H', '-n', '1', '-C', 'b', '-t', '1'], 2);
    const x2 = c.sbatch(['-H', '-N', '1', '--exclusive', '-p', 'half', '-t', '2'], 2);
    const dep = c.sbatch(['-H', '-n', '4', '-t', '1', `--dependency=afterok:${m1}`], 2);
    const never = c.sbatch(['-H', '-n', '1', '-p', 'half', '-C', 'a', '-t', '1'], 1);
    const ids = [x1, m1, m2, m3, f1, x2, dep, never];
    const { out } = await runAndCheck('mix', ids, { [x1]: 2, [x2]: 1 }, [never]);
    expect(out).toMatch(new RegExp(`job ${never} is left held: no node of partition half has what it asks`));
    const ds = decisions(join(dir, 'dec-mix.jsonl'));
    const at = (id: string) => ds.find((d) => d.job_id === id)!;
    // where the request allows: half and -C b on n3-n4; the dependent job decided only after m1 ended
    for (const id of [m2, f1, x2]) for (const n of at(id).nodes) expect(['n3', 'n4'], `job ${id} on ${n}`).toContain(n);
    const m1End = c.queue([m1]).get(m1)!;
    expect(m1End.job_state).toBe('COMPLETED');
    expect(at(dep).t).toBeGreaterThan(at(m1).t);
  }, 120_000);
});
