/**
 * The experiment of the `flow` communication model (docs/model.md): MPI jobs on a 4:1 oversubscribed
 * fat-tree (64 nodes of 4 cores under 8 leaf switches with 2 uplinks each, 125 MB/s links), placed by
 * first-fit (`first`, IRMaSim's node-id order; and `platform`, the platform's order) or by the
 * topology-aware `few_switches`, under FCFS with EASY backfilling; mean bounded slowdown, wait and
 * makespan over several seeds.
 *
 *     node dist/tools/netsim/placementExperiment.js [--jobs 200] [--seeds 5] [--json]
 *
 * Jobs: Poisson arrivals (mean 25 s), 8, 16 or 32 tasks placed anywhere (`type: mpi`), nominal duration
 * 50-500 s at 1 Gflop/s per core, `comm_vol = 2e6 * duration` bytes per pair of tasks on different nodes,
 * `t_compute = 0.5`, requested time 1.5 x the nominal duration.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../../src/core/rng.js';

const ROOT = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json')) && dirname(d) !== d) d = dirname(d);
  return d;
})();
const CLI = join(ROOT, 'dist/cli/main.js');

/** The fat-tree platform, SimGrid XML. */
export const FAT_TREE_XML = `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="ft" prefix="n" suffix="" radical="0-63" speed="1Gf" core="4" bw="125MBps" lat="10us"
             topology="FAT_TREE" topo_parameters="2;8,8;1,2;1,1"/>
  </zone>
</platform>
`;

/** The workload of one seed (native JSON). */
export function mpiWorkload(jobs: number, seed: number): Record<string, unknown> {
  const rng = new Rng(seed);
  let t = 0;
  const list = [];
  for (let j = 0; j < jobs; j++) {
    t += rng.exponential(1 / 25);
    const ntasks = [8, 16, 32][rng.int(3)]!;
    const duration = Math.round(rng.uniform(50, 500));
    list.push({
      id: `j${j}`,
      subtime: Math.round(t * 1000) / 1000,
      type: 'mpi',
      ntasks,
      req_ops: duration * 1e9,
      req_time: Math.round(duration * 1.5),
      comm_vol: 2e6 * duration,
      t_compute: 0.5,
    });
  }
  return { jobs: list };
}

/** Figures of one run. */
export interface RunFigures {
  selection: string;
  seed: number;
  mean_bsld: number;
  mean_wait: number;
  makespan: number;
}

/** Runs every selection on every seed. */
export function placementExperiment(jobs: number, seeds: number, selections = ['first', 'platform', 'few_switches']): RunFigures[] {
  const dir = mkdtempSync(join(tmpdir(), 'cg-placement-'));
  try {
    const platform = join(dir, 'fat-tree.xml');
    writeFileSync(platform, FAT_TREE_XML);
    const out: RunFigures[] = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const workload = join(dir, `w${seed}.json`);
      writeFileSync(workload, JSON.stringify(mpiWorkload(jobs, seed)));
      for (const sel of selections) {
        const r = spawnSync(
          process.execPath,
          [
            CLI,
            'simulate',
            '--platform',
            platform,
            '--workload',
            workload,
            '--policy',
            `fcfs:${sel}+easy`,
            '--comm-model',
            'flow',
            '--memory-model',
            'none',
            '--json',
          ],
          { encoding: 'utf8', maxBuffer: 1 << 28 },
        );
        if (r.status !== 0) throw new Error(`simulate ${sel} failed: ${r.stderr}`);
        const s = JSON.parse(r.stdout) as Record<string, number>;
        out.push({ selection: sel, seed, mean_bsld: s.mean_bsld!, mean_wait: s.mean_wait!, makespan: s.makespan! });
      }
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv: string[]): void {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && i + 1 < argv.length ? argv[i + 1]! : fallback;
  };
  const runs = placementExperiment(Number(arg('jobs', '200')), Number(arg('seeds', '5')));
  if (argv.includes('--json')) {
    console.log(JSON.stringify(runs, null, 2));
    return;
  }
  const sels = [...new Set(runs.map((r) => r.selection))];
  for (const sel of sels) {
    const rs = runs.filter((r) => r.selection === sel);
    const mean = (k: 'mean_bsld' | 'mean_wait' | 'makespan') => rs.reduce((a, r) => a + r[k], 0) / rs.length;
    console.log(
      `${sel.padEnd(14)} mean bsld ${mean('mean_bsld').toFixed(3)}  mean wait ${mean('mean_wait').toFixed(1)} s  makespan ${mean('makespan').toFixed(0)} s  per seed bsld ${rs.map((r) => r.mean_bsld.toFixed(2)).join(' ')}`,
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
