/**
 * Node ranges (`-N MIN-MAX`) and CPUs per task (`-c`) on a live slurmctld against the Slurm preset's select
 * plugin (src/scheduling/nodeSelection.ts: `evalNodes`, `distTasks`; docs/slurm.md "Node ranges and CPUs per
 * task"): 4 emulated nodes of 4 CPUs (deploy/slurm/local-cluster.sh, `select/cons_tres`, `CR_CPU`). Each
 * scenario starts from an idle cluster and submits its jobs in order (`sbatch -o /dev/null SHAPE --wrap
 * 'sleep S'`), each once the previous one runs (or once the short ones ended); the live allocation (`scontrol
 * show job -d`: its nodes and the CPU_IDs on each) or the refusal at submission ("Requested node configuration
 * is not available") is compared with the preset's for the same jobs in the same order. The cluster is
 * always stopped. Skipped, with a message, where slurmctld is not installed or the test does not run as root.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobShape, SlurmJobInput } from '../../src/slurm/config.js';
import { runSlurmPreset } from '../../src/slurm/preset.js';
import { HAVE_SLURM, TestCluster, testPort, waitFor } from '../slurmCluster.js';

const WHY = HAVE_SLURM ? '' : '(skipped: needs root and Debian slurm-wlm + munge: apt-get install slurm-wlm munge)';
const NODES = 4;
const CPUS = 4;

/**
 * One job of a scenario: its sbatch options, the engine's shape and cores, how long it runs (a short job: 5 s),
 * and whether it is submitted once the short jobs before it ended (else as soon as the one before runs).
 */
interface Step {
  sbatch: string[];
  cores: number;
  shape: JobShape;
  seconds: number;
  afterShort: boolean;
}

const step = (sbatch: string, cores: number, shape: JobShape, seconds = 300, afterShort = false): Step => ({
  sbatch: sbatch.split(' '),
  cores,
  shape,
  seconds,
  afterShort,
});

const SCENARIOS: [string, Step[]][] = [
  ['-N 2-4 -n 6 on idle nodes', [step('-N 2-4 -n 6', 6, { minNodes: 2, maxNodes: 4 })]],
  ['-N 2-3 -n 5 on idle nodes', [step('-N 2-3 -n 5', 5, { minNodes: 2, maxNodes: 3 })]],
  ['-N 2 -n 2 -c 2 on idle nodes', [step('-N 2 -n 2 -c 2', 4, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 })]],
  ['-N 2-4 -n 3 -c 2 on idle nodes', [step('-N 2-4 -n 3 -c 2', 6, { minNodes: 2, maxNodes: 4, cpusPerTask: 2 })]],
  ['-N 1-2 -n 3 -c 2 on idle nodes', [step('-N 1-2 -n 3 -c 2', 6, { minNodes: 1, maxNodes: 2, cpusPerTask: 2 })]],
  ['-n 5 -c 3 on idle nodes (Slurm oversubscribes: 13 CPUs)', [step('-n 5 -c 3', 15, { cpusPerTask: 3 })]],
  ['-N 1 -n 3 -c 2 (refused at submission)', [step('-N 1 -n 3 -c 2', 6, { minNodes: 1, maxNodes: 1, cpusPerTask: 2 })]],
  [
    'a CPU taken on every node, then -N 2 -n 3 -c 2 (oversubscribed: 5 CPUs), -N 2-4 -n 3, -N 1-2 -n 2 -c 2',
    [
      step('-N 4 -n 4', 4, { minNodes: 4, maxNodes: 4 }),
      step('-N 2 -n 3 -c 2', 6, { minNodes: 2, maxNodes: 2, cpusPerTask: 2 }),
      step('-N 2-4 -n 3', 3, { minNodes: 2, maxNodes: 4 }),
      step('-N 1-2 -n 2 -c 2', 4, { minNodes: 1, maxNodes: 2, cpusPerTask: 2 }),
    ],
  ],
  [
    // free CPUs 3, 4, 0, 4 at the last job: were node 1 (3 free) usable, n1-n2 would be one run of 7 CPUs and
    // the shortest sufficient run n4's alone; it is not (min_cpus_per_node), so n2 and n4 are equal runs: n2
    '-N 1 -n 4 beside a node with 3 CPUs free: that node is unusable (it does not join the next in a run)',
    [
      step('-n 1', 1, {}),
      step('-N 1 -n 4', 4, { minNodes: 1, maxNodes: 1 }, 5),
      step('-N 1 -n 4', 4, { minNodes: 1, maxNodes: 1 }),
      step('-N 1 -n 4', 4, { minNodes: 1, maxNodes: 1 }, 300, true),
    ],
  ],
];

/** An allocation: node name -> CPUs; null: refused at submission. */
type Held = Map<string, number> | null;

/** The CPUs of a `CPU_IDs=0-1,3` list. */
function cpuCount(ids: string): number {
  return ids.split(',').reduce((a, r) => {
    const [x, y] = r.split('-').map(Number);
    return a + (y === undefined ? 1 : y - x! + 1);
  }, 0);
}

/** What the engine gives the scenario's jobs (each 1 s after the one before, or 10 s after it when `afterShort`; each running its seconds). */
function engineHeld(steps: Step[]): Held[] {
  const out: Held[] = steps.map(() => new Map());
  let t = 0;
  const jobs: SlurmJobInput[] = steps.map((st, id) => {
    t += id === 0 ? 0 : st.afterShort ? 10 : 1;
    return { id, submit: t, cores: st.cores, runTime: st.seconds, timeLimit: 1000, user: 0, shape: st.shape };
  });
  runSlurmPreset(
    { groups: [{ name: 'n', count: NODES, cores: CPUS }], partitions: [{ name: 'debug', groups: ['n'] }] },
    jobs,
    { nodeSelect: true, bfWillRun: true, backfill: false, schedOnSubmit: true, users: 1 },
    [
      {
        // the CPUs it holds on each of its nodes
        onStart: (sim, rj) => {
          const held = new Map<string, number>();
          for (const c of rj.cores) {
            const node = `n${sim.platform.coreNode[c]! + 1}`;
            held.set(node, (held.get(node) ?? 0) + 1);
          }
          out[Number(rj.job.id)] = held;
        },
        onReject: (_s, r) => {
          out[Number(r.job.id)] = null;
        },
      },
    ],
    undefined,
    undefined,
    t + 1,
  );
  return out;
}

describe.skipIf(!HAVE_SLURM)(`node ranges and -c on a live slurmctld and on the Slurm preset ${WHY}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-ranges-'));
  const live = new TestCluster(join(dir, 'cluster'));
  live.hooks(
    () => live.start({ NODES: String(NODES), CPUS: String(CPUS), PORT_BASE: testPort(7957) }),
    () => rmSync(dir, { recursive: true, force: true }),
  );

  /** Submits the scenario's jobs live, in order; what each got. */
  async function liveHeld(steps: Step[]): Promise<Held[]> {
    const out: Held[] = [];
    const ids: string[] = [];
    for (const st of steps) {
      // the short jobs before this one have ended
      const short = st.afterShort ? ids.filter((id, k) => id !== '' && steps[k]!.seconds < 60) : [];
      await waitFor(
        'the short jobs to end',
        () => short.every((id) => live.sh('squeue', ['-h', '-t', 'all', '-j', id, '-o', '%T']).trim() === 'COMPLETED'),
        60_000,
      );
      const r = spawnSync('sbatch', ['--parsable', '-o', '/dev/null', ...st.sbatch, '--wrap', `sleep ${st.seconds}`], { encoding: 'utf8', env: live.env });
      if (r.status !== 0) {
        expect(r.stderr).toMatch(/Requested node configuration is not available/);
        ids.push('');
        out.push(null);
        continue;
      }
      const id = r.stdout.trim();
      ids.push(id);
      await waitFor(`job ${id} to run`, () => live.sh('squeue', ['-h', '-j', id, '-o', '%T']).trim() === 'RUNNING', 30_000);
      const show = live.sh('scontrol', ['show', 'job', '-d', id]);
      const held = new Map<string, number>();
      for (const m of show.matchAll(/^\s+Nodes=(\S+) CPU_IDs=(\S+)/gm)) for (const n of live.expand(m[1]!)) held.set(n, cpuCount(m[2]!));
      const cpus = Number(/NumCPUs=(\d+)/.exec(show)![1]);
      expect(
        [...held.values()].reduce((a, b) => a + b, 0),
        show,
      ).toBe(cpus);
      out.push(held);
    }
    return out;
  }

  for (const [name, steps] of SCENARIOS)
    it(`${name}: the engine's nodes and CPUs on each are the live Slurm's`, async () => {
      const got = await liveHeld(steps);
      const want = engineHeld(steps);
      console.log(`${name}: live ${JSON.stringify(got.map((h) => (h === null ? 'refused' : Object.fromEntries(h))))}`);
      expect(want).toEqual(got);
    }, 120_000);
});
