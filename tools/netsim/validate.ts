/**
 * Validates clustergym's flow model against SimGrid (Debian's python3-simgrid, SimGrid 3.32): for every
 * topology case (`scenarios.ts`), `--flows N` transfers with staggered starts run in SimGrid
 * (`simgrid_flows.py`) and in `clustergym netsim` (both as processes, timed), and every completion time is
 * compared. Prints one line per case (max relative error, both wall times) or `--json`; exits 1 when an
 * error exceeds `--tolerance` (default 1e-6).
 *
 *     node dist/tools/netsim/validate.js [--flows 150] [--seed 1] [--model cm02|lv08|both] [--scale 1]
 *                                         [--cases flat,torus,...] [--tolerance 1e-6] [--keep DIR] [--json]
 *
 * `--keep DIR` leaves the platforms, flows and both outputs there. SimGrid runs with `/usr/bin/python3`
 * (override with `SIMGRID_PYTHON`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FlowResult, type FlowSpec, simulateFlows } from '../../src/platform/flowScenario.js';
import { flowModel } from '../../src/platform/flows.js';
import { Platform } from '../../src/platform/platform.js';
import { RoutedNetwork } from '../../src/platform/routing.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';
import { randomFlows, topologyCases } from './scenarios.js';

/** The repository root (the nearest folder with a package.json: this file runs from tools/ or dist/tools/). */
const ROOT = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json')) && dirname(d) !== d) d = dirname(d);
  return d;
})();
/** The SimGrid runner (a Python file, read from the source tree). */
export const SIMGRID_RUNNER = join(ROOT, 'tools/netsim/simgrid_flows.py');
const CLI = join(ROOT, 'dist/cli/main.js');
const PYTHON = process.env.SIMGRID_PYTHON ?? '/usr/bin/python3';

/** Whether SimGrid's Python bindings can be imported. */
export function simgridAvailable(): boolean {
  const r = spawnSync(PYTHON, ['-c', 'import simgrid'], { encoding: 'utf8' });
  return r.status === 0;
}

/** One engine's run of a scenario: completion times and the whole process's wall time. */
interface EngineRun {
  flows: FlowResult[];
  seconds: number;
}

function runProcess(cmd: string, args: string[]): EngineRun {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { flows: (JSON.parse(r.stdout) as { flows: FlowResult[] }).flows, seconds };
}

/**
 * Runs the flows in SimGrid (whole process), driven by one actor per flow (`actors`) or by one actor that
 * starts every transfer (`driver`, the benchmark's fast way; simgrid_flows.py).
 */
export function runSimGrid(platform: string, flowsFile: string, model: 'cm02' | 'lv08', driver: 'actors' | 'driver' = 'actors'): EngineRun {
  return runProcess(PYTHON, [SIMGRID_RUNNER, platform, flowsFile, model, driver]);
}

/** The SimGrid route dumper (a Python file, read from the source tree). */
export const SIMGRID_ROUTES = join(ROOT, 'tools/netsim/simgrid_routes.py');

/** Route comparison of one platform: every ordered pair of hosts, link names and latency. */
export interface RouteCheck {
  case: string;
  pairs: number;
  /** Pairs whose links or latency differ from SimGrid's, and the first one. */
  mismatches: number;
  first_mismatch: string;
}

/** Compares every route of a platform with the one SimGrid computes. */
export function compareRoutes(dir: string, name: string, xml: string): RouteCheck {
  const platform = join(dir, `${name}.xml`);
  writeFileSync(platform, xml);
  const r = spawnSync(PYTHON, [SIMGRID_ROUTES, platform], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${SIMGRID_ROUTES} ${platform} failed (${r.status}): ${r.stderr}`);
  const sg = JSON.parse(r.stdout) as { routes: [string, string, string[], number][] };
  const net = new RoutedNetwork(parseSimGridPlatform(xml, platform).network!, platform);
  let mismatches = 0;
  let first = '';
  for (const [a, b, links, latency] of sg.routes) {
    const ours = net.route(net.host(a), net.host(b));
    const names = Array.from(ours.links, (l) => net.linkName[l]!);
    if (names.join(' ') !== links.join(' ') || ours.latency !== latency) {
      mismatches++;
      if (!first) first = `${a} -> ${b}: SimGrid [${links.join(', ')}] ${latency} s, clustergym [${names.join(', ')}] ${ours.latency} s`;
    }
  }
  return { case: name, pairs: sg.routes.length, mismatches, first_mismatch: first };
}

/** Runs the flows in clustergym's flow model in this process (timed). */
export function runInProcess(platform: string, xml: string, flows: FlowSpec[], model: 'cm02' | 'lv08'): EngineRun {
  const t0 = performance.now();
  const p = Platform.fromDescription(parseSimGridPlatform(xml, platform));
  const out = simulateFlows(new RoutedNetwork(p.description.network!, platform), flowModel(model), flows);
  return { flows: out, seconds: (performance.now() - t0) / 1000 };
}

/** Runs the flows in `clustergym netsim` (whole process). */
export function runClustergym(platform: string, flowsFile: string, model: 'cm02' | 'lv08'): EngineRun {
  return runProcess(process.execPath, [CLI, 'netsim', '--platform', platform, '--flows', flowsFile, '--model', model, '--json']);
}

/** The comparison of one case. */
export interface CaseResult {
  case: string;
  model: 'cm02' | 'lv08';
  flows: number;
  /** Largest `|ours - simgrid| / simgrid` over the completion times, and the flow it is reached on. */
  max_rel_error: number;
  worst_flow: string;
  /** Most transfers in progress at once (from SimGrid's start and finish times). */
  max_concurrent: number;
  simgrid_seconds: number;
  clustergym_seconds: number;
}

function maxConcurrent(flows: FlowResult[]): number {
  const ev: [number, number][] = [];
  for (const f of flows) ev.push([f.start, 1], [f.finish, -1]);
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let best = 0;
  for (const [, d] of ev) {
    cur += d;
    best = Math.max(best, cur);
  }
  return best;
}

/** Runs one case with both engines and compares every completion time. */
export function compareCase(dir: string, name: string, xml: string, flows: FlowSpec[], model: 'cm02' | 'lv08', inProcess = false): CaseResult {
  const platform = join(dir, `${name}.xml`);
  const flowsFile = join(dir, `${name}.flows.json`);
  writeFileSync(platform, xml);
  writeFileSync(flowsFile, JSON.stringify(flows));
  const sg = runSimGrid(platform, flowsFile, model);
  const cg = inProcess ? runInProcess(platform, xml, flows, model) : runClustergym(platform, flowsFile, model);
  writeFileSync(join(dir, `${name}.${model}.simgrid.json`), JSON.stringify(sg.flows));
  writeFileSync(join(dir, `${name}.${model}.clustergym.json`), JSON.stringify(cg.flows));
  let worst = 0;
  let worstFlow = '';
  sg.flows.forEach((f, i) => {
    const ours = cg.flows[i]!;
    if (String(ours.id) !== String(f.id)) throw new Error(`${name}: flow ${i} is ${ours.id} in clustergym, ${f.id} in SimGrid`);
    const err = Math.abs(ours.finish - f.finish) / Math.abs(f.finish);
    if (err > worst || Number.isNaN(err)) {
      worst = Number.isNaN(err) ? Infinity : err;
      worstFlow = String(f.id);
    }
  });
  return {
    case: name,
    model,
    flows: flows.length,
    max_rel_error: worst,
    worst_flow: worstFlow,
    max_concurrent: maxConcurrent(sg.flows),
    simgrid_seconds: sg.seconds,
    clustergym_seconds: cg.seconds,
  };
}

/** Options of a validation run. */
export interface ValidateOptions {
  flows: number;
  seed: number;
  models: ('cm02' | 'lv08')[];
  scale: number;
  cases?: string[] | undefined;
  /** Starts spread over [0, span] s. */
  span: number;
  keep?: string | undefined;
  /** Run clustergym in this process rather than as `clustergym netsim` (faster; no process timing). */
  inProcess?: boolean;
}

/** Runs every case with every model; with `routes`, also compares every route of every case. */
export function validate(o: ValidateOptions): { results: CaseResult[]; routes: RouteCheck[] } {
  const dir = o.keep ?? mkdtempSync(join(tmpdir(), 'cg-netsim-'));
  mkdirSync(dir, { recursive: true });
  try {
    const results: CaseResult[] = [];
    const routes: RouteCheck[] = [];
    const cases = topologyCases(o.scale).filter((c) => !o.cases || o.cases.includes(c.name));
    cases.forEach((c, ci) => {
      routes.push(compareRoutes(dir, c.name, c.xml));
      const flows = randomFlows(c.hosts, o.flows, o.seed * 1000 + ci, o.span, c.name.includes('loopback'));
      for (const m of o.models) results.push(compareCase(dir, c.name, c.xml, flows, m, o.inProcess));
    });
    return { results, routes };
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv: string[]): number {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && i + 1 < argv.length ? argv[i + 1]! : fallback;
  };
  if (!simgridAvailable()) {
    console.error(`SimGrid's Python bindings are not importable by ${PYTHON} (Debian: apt-get install python3-simgrid)`);
    return 2;
  }
  const model = arg('model', 'both');
  const tolerance = Number(arg('tolerance', '1e-6'));
  const { results, routes } = validate({
    flows: Number(arg('flows', '150')),
    seed: Number(arg('seed', '1')),
    models: model === 'both' ? ['cm02', 'lv08'] : [model as 'cm02' | 'lv08'],
    scale: Number(arg('scale', '1')),
    cases: argv.includes('--cases') ? arg('cases', '').split(',') : undefined,
    span: Number(arg('span', '1')),
    keep: argv.includes('--keep') ? arg('keep', '') : undefined,
  });
  const ok = results.every((r) => r.max_rel_error <= tolerance) && routes.every((r) => r.mismatches === 0);
  if (argv.includes('--json')) console.log(JSON.stringify({ tolerance, ok, routes, results }, null, 2));
  else {
    for (const r of routes)
      console.log(
        `${r.mismatches === 0 ? 'ok  ' : 'FAIL'} ${r.case.padEnd(32)} routes: ${r.pairs} host pairs, ${r.mismatches} differ from SimGrid's${r.first_mismatch ? ` (${r.first_mismatch})` : ''}`,
      );
    for (const r of results)
      console.log(
        `${r.max_rel_error <= tolerance ? 'ok  ' : 'FAIL'} ${r.case.padEnd(32)} ${r.model}  ${r.flows} flows (max ${r.max_concurrent} concurrent)  max rel error ${r.max_rel_error.toExponential(2)}${r.max_rel_error > 0 ? ` (${r.worst_flow})` : ''}  simgrid ${r.simgrid_seconds.toFixed(2)} s  clustergym ${r.clustergym_seconds.toFixed(2)} s`,
      );
  }
  return ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
