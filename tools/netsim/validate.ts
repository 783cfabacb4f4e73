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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowResult, FlowSpec } from '../../src/platform/flows.js';
import { randomFlows, topologyCases } from './scenarios.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root (this file runs from dist/tools/netsim/). */
const ROOT = resolve(HERE, '../../..');
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

/** Runs the flows in SimGrid (whole process). */
export function runSimGrid(platform: string, flowsFile: string, model: 'cm02' | 'lv08'): EngineRun {
  return runProcess(PYTHON, [SIMGRID_RUNNER, platform, flowsFile, model]);
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
export function compareCase(dir: string, name: string, xml: string, flows: FlowSpec[], model: 'cm02' | 'lv08'): CaseResult {
  const platform = join(dir, `${name}.xml`);
  const flowsFile = join(dir, `${name}.flows.json`);
  writeFileSync(platform, xml);
  writeFileSync(flowsFile, JSON.stringify(flows));
  const sg = runSimGrid(platform, flowsFile, model);
  const cg = runClustergym(platform, flowsFile, model);
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
}

/** Runs every case with every model. */
export function validate(o: ValidateOptions): CaseResult[] {
  const dir = o.keep ?? mkdtempSync(join(tmpdir(), 'cg-netsim-'));
  mkdirSync(dir, { recursive: true });
  try {
    const out: CaseResult[] = [];
    const cases = topologyCases(o.scale).filter((c) => !o.cases || o.cases.includes(c.name));
    cases.forEach((c, ci) => {
      const flows = randomFlows(c.hosts, o.flows, o.seed * 1000 + ci, o.span, c.name.includes('loopback'));
      for (const m of o.models) out.push(compareCase(dir, c.name, c.xml, flows, m));
    });
    return out;
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
  const results = validate({
    flows: Number(arg('flows', '150')),
    seed: Number(arg('seed', '1')),
    models: model === 'both' ? ['cm02', 'lv08'] : [model as 'cm02' | 'lv08'],
    scale: Number(arg('scale', '1')),
    cases: argv.includes('--cases') ? arg('cases', '').split(',') : undefined,
    span: Number(arg('span', '1')),
    keep: argv.includes('--keep') ? arg('keep', '') : undefined,
  });
  const ok = results.every((r) => r.max_rel_error <= tolerance);
  if (argv.includes('--json')) console.log(JSON.stringify({ tolerance, ok, results }, null, 2));
  else
    for (const r of results)
      console.log(
        `${r.max_rel_error <= tolerance ? 'ok  ' : 'FAIL'} ${r.case.padEnd(32)} ${r.model}  ${r.flows} flows (max ${r.max_concurrent} concurrent)  max rel error ${r.max_rel_error.toExponential(2)}${r.max_rel_error > 0 ? ` (${r.worst_flow})` : ''}  simgrid ${r.simgrid_seconds.toFixed(2)} s  clustergym ${r.clustergym_seconds.toFixed(2)} s`,
      );
  return ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
