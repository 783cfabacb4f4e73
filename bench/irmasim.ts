/**
 * IRMaSim options files at IRMaSim's scale: a 1,500-job workload on a heterogeneous 20-node platform
 * (IRMaSim's group format, modelV1 contention, nodes of 1 or 2 processor types in two clusters; every
 * job form of IRMaSim), run as `clustergym simulate --irmasim` in a child process and timed as a whole
 * process (start-up, loading and writing included), for four workload managers.
 *
 * With `IRMASIM=/path/to/IRMaSim` (and Debian's python3-numpy and python3-sortedcontainers) it also
 * times IRMaSim itself on the same files through tools/irmasim-diff/run_irmasim.py, and checks that both
 * give the same makespan.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { derive } from '../src/core/rng.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';

const CLI = resolve(PACKAGE_ROOT, 'dist/cli/main.js');

/** The case: a platform of 20 nodes (2 clusters: 11 + 9) and `jobs` jobs, written to `dir`. */
export function writeIrmasimCase(dir: string, jobs = 1500, seed = 1): void {
  const rng = derive(seed, 'bench-irmasim');
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)]!;
  const processor: Record<string, unknown> = {};
  for (let i = 0; i < 4; i++)
    processor[`p${i}`] = {
      cores: pick([2, 4, 8]),
      clock_rate: pick([1.5, 2.0, 2.5, 3.0, 3.4]),
      dpflops_per_cycle: pick([1, 2, 4]),
      min_power: 0.05,
      static_power: 5 + rng.int(35),
      dynamic_power: 1 + rng.int(11),
      b: -1.85e-5,
      c: 32000,
      da: 1.75,
      db: pick([2000, 3500]),
      dc: pick([45000, 50000]),
      dd: pick([3000, 6000]),
    };
  const node: Record<string, unknown> = {};
  const coresOf: Record<string, number> = {};
  for (let i = 0; i < 4; i++) {
    const procs = [{ type: `p${i}`, number: 1 + rng.int(2) }];
    if (i % 2 === 1) procs.push({ type: `p${(i + 1) % 4}`, number: 1 });
    node[`n${i}`] = { processors: procs, memory: { type: 'DDR', capacity: 64 } };
    coresOf[`n${i}`] = procs.reduce((s, p) => s + (processor[p.type] as { cores: number }).cores * p.number, 0);
  }
  const clusters = [11, 9].map((n, k) => ({ id: `cluster${k}`, nodes: Array.from({ length: n }, (_, i) => ({ type: `n${(i + k) % 4}` })) }));
  const platform = { platform: { plat: { id: 'plat', model_name: 'modelV1', clusters } }, node, processor };
  const minCores = Math.min(...Object.values(coresOf));
  const list: Record<string, unknown>[] = [];
  let t = 0;
  for (let j = 0; j < jobs; j++) {
    t += rng.exponential(1 / 0.45);
    const seconds = rng.next() < 0.5 ? 1 + rng.uniform(0, 29) : 10 + rng.uniform(0, 190);
    const job: Record<string, unknown> = { id: `j${j}`, subtime: Math.round(t * 1000) / 1000 };
    const form = rng.next();
    if (form < 0.5) job['res'] = 1 + rng.int(Math.min(8, minCores));
    else if (form < 0.7) job['ntasks'] = 1 + rng.int(6);
    else if (form < 0.85) Object.assign(job, { nodes: 2, ntasks: 2 + rng.int(2 * Math.min(2, minCores) - 1) });
    else Object.assign(job, { nodes: 1 + rng.int(3), ntasks_per_node: 1 + rng.int(Math.min(2, minCores)) });
    Object.assign(job, {
      req_ops: Math.round(seconds * 2e9),
      ipc: pick([1, 1, 1.5, 2]),
      req_time: Math.round(seconds * (1 + rng.uniform(0, 2)) * 100) / 100,
      mem: pick([0, 100, 500, 1100]),
      mem_vol: pick([0, 19, 1e4, 1e5, 1e6]),
      req_energy: pick([0, 100, 500, 1000]),
    });
    list.push(job);
  }
  writeFileSync(join(dir, 'platform.json'), JSON.stringify(platform));
  writeFileSync(join(dir, 'workload.json'), JSON.stringify({ jobs: list }));
}

const MANAGERS: Record<string, Record<string, unknown>> = {
  heuristic_shortest_low_power: { type: 'Heuristic', job_selection: 'shortest', resource_selection: 'low_power' },
  heuristic_first_high_gflops: { type: 'Heuristic', job_selection: 'first', resource_selection: 'high_gflops' },
  backfill_first: { type: 'Backfill', resource_selection: 'first' },
  minimal: { type: 'Minimal' },
};

/** Seconds and makespan of one whole-process run of `cmd`. */
function timed(cmd: string, args: string[]): { seconds: number; makespan: number | null } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  let makespan: number | null = null;
  try {
    const j = JSON.parse(r.stdout) as { makespan?: number; time?: number };
    makespan = j.makespan ?? j.time ?? null;
  } catch {
    makespan = null;
  }
  return { seconds: Math.round(seconds * 1000) / 1000, makespan };
}

/** The section's figures. */
export function benchIrmasim(): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-irmasim-'));
  try {
    writeIrmasimCase(dir);
    const out: Record<string, unknown> = { jobs: 1500, nodes: 20 };
    const irmasim = process.env['IRMASIM'];
    for (const [name, wm] of Object.entries(MANAGERS)) {
      const opts = join(dir, `${name}.json`);
      writeFileSync(
        opts,
        JSON.stringify({ seed: 1, platform_file: 'platform.json', platform_name: 'plat', workload_file: 'workload.json', workload_manager: wm }),
      );
      const cg = timed(process.execPath, [CLI, 'simulate', '--irmasim', opts, '--json']);
      const entry: Record<string, unknown> = { clustergym_process_s: cg.seconds };
      if (irmasim) {
        const ir = timed('/usr/bin/python3', [resolve(PACKAGE_ROOT, 'tools/irmasim-diff/run_irmasim.py'), opts, join(dir, `out-${name}`)]);
        entry['irmasim_process_s'] = ir.seconds;
        entry['speedup'] = Math.round((ir.seconds / cg.seconds) * 10) / 10;
        entry['same_makespan'] = ir.makespan === cg.makespan;
      }
      out[name] = entry;
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
