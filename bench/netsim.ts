/**
 * The flow model against SimGrid at scale: 10,000 transfers with staggered starts on a 128-host fat-tree
 * (tools/netsim/scenarios.ts: `2;32,4;1,2;1,2`, 125 MB/s links), in two scenarios: `random` (independent
 * transfers between random hosts, sizes 0.1-10 MB, starts uniform over 100 s) and `mpi` (the all-to-all
 * exchanges of MPI jobs of 4-32 hosts packed on aligned host blocks, 1-10 MB per pair, jobs starting
 * uniform over 100 s: many flows start together and share links), run by `clustergym netsim` and by
 * SimGrid 3.32's Python bindings (tools/netsim/simgrid_flows.py) driven two ways: `actors` (one actor per
 * flow, SimGrid's usual style; the bindings give each actor a thread) and `driver` (one actor starts every
 * transfer with Comm.sendto_async: the fastest we found). Each run is a whole process (start-up, platform
 * loading and output included); the three are interleaved over `rounds` rounds, CM02, and each figure is
 * the median over the rounds of the wall time and of the CPU time (user + system, /usr/bin/time). Reports
 * the ratios of the medians and the largest relative difference between the completion times. Skips
 * SimGrid, saying so, where `python3 -c "import simgrid"` fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../src/core/paths.js';
import type { FlowResult, FlowSpec } from '../src/platform/flowScenario.js';
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

/** Median of a non-empty list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
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

/** The section's figures: each scenario, clustergym and both SimGrid drivers, interleaved over `rounds` rounds. */
export function benchNetsim(flows = 10_000, rounds = 3): Record<string, unknown> {
  const c = topologyCases(4).find((x) => x.name === 'fat-tree')!;
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const loadBefore = load();
  const out: Record<string, unknown> = {
    random: benchScenario(
      c.xml,
      randomFlows(c.hosts, flows, 7, 100, false, [1e5, 1e7]),
      `${flows} independent transfers between random hosts (sizes uniform 0.1-10 MB, starts uniform over 100 s), fat-tree 2;32,4;1,2;1,2 (128 hosts, 125 MB/s), CM02`,
      rounds,
    ),
    mpi: benchScenario(
      c.xml,
      mpiJobFlows(c.hosts, flows, 7, 100),
      `${flows} flows of MPI jobs' all-to-all exchanges (jobs of 4/8/16/32 hosts on aligned host blocks, 1-10 MB per pair, all of a job's flows starting at its start, jobs uniform over 100 s), same fat-tree, CM02`,
      rounds,
    ),
  };
  return { machine_load_before: loadBefore, machine_load_after: load(), rounds, ...out };
}

/** Median wall and CPU times of an engine's runs. */
function medians(runs: Timed[]): { wall_s: number; cpu_s: number | null } {
  const cpus = runs.map((r) => r.cpu_s).filter((x): x is number => x !== null);
  return {
    wall_s: Number(median(runs.map((r) => r.wall_s)).toFixed(3)),
    cpu_s: cpus.length === runs.length ? Number(median(cpus).toFixed(3)) : null,
  };
}

/** The largest relative difference between two runs' completion times. */
function maxRelDiff(a: readonly FlowResult[], b: readonly FlowResult[]): number {
  let worst = 0;
  b.forEach((f, i) => {
    worst = Math.max(worst, Math.abs(a[i]!.finish - f.finish) / f.finish);
  });
  return worst;
}

function benchScenario(xml: string, specs: FlowSpec[], description: string, rounds: number): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-netsim-'));
  try {
    const platform = join(dir, 'fat-tree.xml');
    const flowsFile = join(dir, 'flows.json');
    writeFileSync(platform, xml);
    writeFileSync(flowsFile, JSON.stringify(specs));
    const withSimGrid = simgridAvailable();
    const cg: Timed[] = [];
    const sg: Record<'driver' | 'actors', Timed[]> = { driver: [], actors: [] };
    for (let r = 0; r < rounds; r++) {
      cg.push(timed(process.execPath, [CLI, 'netsim', '--platform', platform, '--flows', flowsFile, '--model', 'cm02', '--json'], join(dir, 'cg')));
      if (!withSimGrid) continue;
      for (const driver of ['driver', 'actors'] as const)
        sg[driver].push(timed('/usr/bin/python3', [RUNNER, platform, flowsFile, 'cm02', driver], join(dir, 'sg')));
    }
    const mine = medians(cg);
    const out: Record<string, unknown> = { scenario: description, concurrency: concurrency(cg[0]!.flows), clustergym: mine };
    if (!withSimGrid) {
      out.simgrid = 'skipped: python3 cannot import simgrid (apt-get install python3-simgrid)';
      return out;
    }
    for (const driver of ['driver', 'actors'] as const) {
      const theirs = medians(sg[driver]);
      out[`simgrid_${driver}`] = {
        ...theirs,
        speedup_wall: Number((theirs.wall_s / mine.wall_s).toFixed(1)),
        speedup_cpu: theirs.cpu_s !== null && mine.cpu_s ? Number((theirs.cpu_s / mine.cpu_s).toFixed(1)) : null,
        max_rel_error: Math.max(...sg[driver].map((run) => maxRelDiff(cg[0]!.flows, run.flows))),
      };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
