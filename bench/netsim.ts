/**
 * The flow model against SimGrid at scale: 10,000 transfers with staggered starts on a 128-host fat-tree
 * (tools/netsim/scenarios.ts: `2;32,4;1,2;1,2`, 125 MB/s links), in two scenarios: `random` (independent
 * transfers between random hosts, sizes 0.1-10 MB, starts uniform over 100 s) and `mpi` (the all-to-all
 * exchanges of MPI jobs of 4-32 hosts packed on aligned host blocks, 1-10 MB per pair, jobs starting
 * uniform over 100 s: many flows start together and share links), run by
 * `clustergym netsim` and by SimGrid 3.32's Python bindings (tools/netsim/simgrid_flows.py), each as a
 * whole process (start-up, platform loading and output included), side by side, CM02. Reports both wall
 * times (and CPU times with /usr/bin/time), their ratio and the largest relative difference between the
 * completion times. Skips SimGrid, saying so, where `python3 -c "import simgrid"` fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import type { FlowResult, FlowSpec } from '../src/platform/flows.js';
import { mpiJobFlows, randomFlows, topologyCases } from '../tools/netsim/scenarios.js';
import { simgridAvailable } from '../tools/netsim/validate.js';

const CLI = resolve(PACKAGE_ROOT, 'dist/cli/main.js');
const RUNNER = resolve(PACKAGE_ROOT, 'tools/netsim/simgrid_flows.py');
const TIME = '/usr/bin/time';

interface Timed {
  wall_s: number;
  cpu_s: number | null;
  flows: FlowResult[];
}

/** Runs a command as a whole process, timing its wall clock (and CPU with /usr/bin/time when present). */
function timed(cmd: string, args: string[], outFile: string): Timed {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const r = useTime
    ? spawnSync(TIME, ['-f', 'CPU %U %S', '-o', `${outFile}.time`, cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  let cpu: number | null = null;
  if (useTime) {
    const m = /CPU ([\d.]+) ([\d.]+)/.exec(readFileSync(`${outFile}.time`, 'utf8'));
    if (m) cpu = Number(m[1]) + Number(m[2]);
  }
  return { wall_s: wall, cpu_s: cpu, flows: (JSON.parse(r.stdout) as { flows: FlowResult[] }).flows };
}

/** Concurrency of a run: the mean number of flows in progress over its span, and the largest. */
function concurrency(flows: readonly FlowResult[]): { mean: number; max: number } {
  const ev: [number, number][] = [];
  let busy = 0;
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const f of flows) {
    ev.push([f.start, 1], [f.finish, -1]);
    busy += f.finish - f.start;
    t0 = Math.min(t0, f.start);
    t1 = Math.max(t1, f.finish);
  }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of ev) {
    cur += d;
    max = Math.max(max, cur);
  }
  return { mean: Number((busy / (t1 - t0)).toFixed(1)), max };
}

/** The section's figures: each scenario, both engines, side by side. */
export function benchNetsim(flows = 10_000): Record<string, unknown> {
  const c = topologyCases(4).find((x) => x.name === 'fat-tree')!;
  return {
    machine_load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    random: benchScenario(
      c.xml,
      randomFlows(c.hosts, flows, 7, 100, false, [1e5, 1e7]),
      `${flows} independent transfers between random hosts (sizes uniform 0.1-10 MB, starts uniform over 100 s), fat-tree 2;32,4;1,2;1,2 (128 hosts, 125 MB/s), CM02`,
    ),
    mpi: benchScenario(
      c.xml,
      mpiJobFlows(c.hosts, flows, 7, 100),
      `${flows} flows of MPI jobs' all-to-all exchanges (jobs of 4/8/16/32 hosts on aligned host blocks, 1-10 MB per pair, all of a job's flows starting at its start, jobs uniform over 100 s), same fat-tree, CM02`,
    ),
  };
}

function benchScenario(xml: string, specs: FlowSpec[], description: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-netsim-'));
  try {
    const platform = join(dir, 'fat-tree.xml');
    const flowsFile = join(dir, 'flows.json');
    writeFileSync(platform, xml);
    writeFileSync(flowsFile, JSON.stringify(specs));
    const runs = [0, 1, 2].map(() =>
      timed(process.execPath, [CLI, 'netsim', '--platform', platform, '--flows', flowsFile, '--model', 'cm02', '--json'], join(dir, 'cg')),
    );
    const best = runs.reduce((a, b) => (b.wall_s < a.wall_s ? b : a));
    const out: Record<string, unknown> = {
      scenario: description,
      concurrency: concurrency(best.flows),
      clustergym_wall_s: Number(best.wall_s.toFixed(3)),
      clustergym_cpu_s: best.cpu_s === null ? null : Number(best.cpu_s.toFixed(3)),
      // the best of 3 is what the ratios use; the median says how much the load moved it
      clustergym_median_wall_s: Number(
        runs
          .map((r) => r.wall_s)
          .sort((a, b) => a - b)[1]!
          .toFixed(3),
      ),
    };
    if (!simgridAvailable()) {
      out.simgrid = 'skipped: python3 cannot import simgrid (apt-get install python3-simgrid)';
      return out;
    }
    const sg = timed('/usr/bin/python3', [RUNNER, platform, flowsFile, 'cm02'], join(dir, 'sg'));
    let worst = 0;
    sg.flows.forEach((f, i) => {
      worst = Math.max(worst, Math.abs(best.flows[i]!.finish - f.finish) / f.finish);
    });
    Object.assign(out, {
      simgrid_wall_s: Number(sg.wall_s.toFixed(3)),
      simgrid_cpu_s: sg.cpu_s === null ? null : Number(sg.cpu_s.toFixed(3)),
      speedup_wall: Number((sg.wall_s / best.wall_s).toFixed(1)),
      speedup_cpu: sg.cpu_s !== null && best.cpu_s ? Number((sg.cpu_s / best.cpu_s).toFixed(1)) : null,
      max_rel_error: worst,
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
