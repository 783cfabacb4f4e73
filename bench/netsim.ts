/**
 * The flow model against SimGrid at scale: 10,000 transfers with staggered starts on a 128-host fat-tree
 * (tools/netsim/scenarios.ts: `2;32,4;1,2;1,2`, 125 MB/s links, sizes 0.1-10 MB over 100 s), run by
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
import type { FlowResult } from '../src/platform/flows.js';
import { randomFlows, topologyCases } from '../tools/netsim/scenarios.js';
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

/** The section's figures. */
export function benchNetsim(flows = 10_000): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-netsim-'));
  try {
    const c = topologyCases(4).find((x) => x.name === 'fat-tree')!;
    const platform = join(dir, 'fat-tree.xml');
    const flowsFile = join(dir, 'flows.json');
    writeFileSync(platform, c.xml);
    writeFileSync(flowsFile, JSON.stringify(randomFlows(c.hosts, flows, 7, 100, false, [1e5, 1e7])));
    const runs = [0, 1, 2].map(() =>
      timed(process.execPath, [CLI, 'netsim', '--platform', platform, '--flows', flowsFile, '--model', 'cm02', '--json'], join(dir, 'cg')),
    );
    const best = runs.reduce((a, b) => (b.wall_s < a.wall_s ? b : a));
    const out: Record<string, unknown> = {
      scenario: `${flows} flows, fat-tree 2;32,4;1,2;1,2 (128 hosts), CM02`,
      clustergym_wall_s: Number(best.wall_s.toFixed(3)),
      clustergym_cpu_s: best.cpu_s,
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
      simgrid_cpu_s: sg.cpu_s,
      speedup_wall: Number((sg.wall_s / best.wall_s).toFixed(1)),
      speedup_cpu: sg.cpu_s !== null && best.cpu_s ? Number((sg.cpu_s / best.cpu_s).toFixed(1)) : null,
      max_rel_error: worst,
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
