/**
 * IRMaSim options files (what `irmasim options.json` runs), read unchanged and turned into a run on
 * clustergym's engine with IRMaSim's semantics (`clustergym simulate --irmasim FILE`).
 *
 * ```json
 * { "seed": 1995, "platform_file": "platform.json", "platform_name": "the_platform",
 *   "workload_file": "workload.json", "output_dir": "out",
 *   "workload_manager": { "type": "Heuristic", "job_selection": "shortest", "resource_selection": "low_power" } }
 * ```
 *
 * - `platform_file` (IRMaSim's group format) and, when given, the library files of
 *   `platform_library_path` (`platforms.json`, `node_types.json`, `processor_types.json`, merged under the
 *   file's own definitions as IRMaSim merges them); `platform_name` picks the platform. Only modelV1.
 * - `workload_file`: JSON (IRMaSim's format, every job form) or CSV (one job per row, IRMaSim's
 *   `load_csv_workload`: a header of field names, numbers where they parse).
 * - `trajectory_origin` (index or `random`) and `trajectory_length` (count, `0` for all, or `random`) cut
 *   the jobs in FILE order, as IRMaSim does, drawing from the seeded Python generator when random;
 *   `nbtrajectories` must be 1 (IRMaSim chains several trajectories in one simulation; run them apart).
 * - Times are rebased to the trajectory's first job IN FILE ORDER, as IRMaSim rebases them: when a later
 *   line submits earlier, time starts below 0 and the makespan is the last end (IRMaSim's "simulation
 *   time").
 * - `seed` (default 0) seeds the `PythonRandom` that the managers' random choices draw from.
 * - `output_dir`: where `summary.json` and `jobs.csv` go (`--out` overrides it).
 * - `workload_manager`: see `index.ts`.
 *
 * Relative paths are taken from the options file's folder, or else from the working directory
 * (where IRMaSim looks for them). Keys IRMaSim does not read are reported as warnings, with the key
 * they look like; a key IRMaSim reads but clustergym does not honour is an error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InputError, unknownKeys } from '../../core/errors.js';
import { PythonRandom } from '../../core/rng.js';
import type { SimulatorOptions } from '../../execution/simulator.js';
import { readJsonFile } from '../../core/json.js';
import { parsePlatform } from '../../platform/loader.js';
import type { Platform } from '../../platform/platform.js';
import { sortBySubmission, type Job } from '../../workload/job.js';
import { parseNativeWorkload } from '../../workload/nativeJson.js';
import { makeIrmasimManager, type IrmasimManager } from './index.js';

/** Top-level keys of IRMaSim's options (its `cmd.py`, `Simulator.py` and managers read these). */
const OPTION_KEYS = [
  'seed',
  'platform_file',
  'platform_name',
  'platform_library_path',
  'workload_file',
  'output_dir',
  'workload_manager',
  'nbtrajectories',
  'trajectory_origin',
  'trajectory_length',
  'log_level',
  'log_resource_type',
  'env',
] as const;

/** A run prepared from an options file. */
export interface IrmasimRun {
  /** The options file. */
  file: string;
  platform: Platform;
  /** The trajectory's jobs, sorted by submission, shaped for the manager. */
  jobs: Job[];
  manager: IrmasimManager;
  seed: number;
  /** Where outputs go (`output_dir`, resolved), or undefined when the file names none. */
  outputDir: string | undefined;
  /** Engine options of IRMaSim's semantics (no memory limit, whole-job release, its event order). */
  simulator: SimulatorOptions;
  /** Keys IRMaSim ignores, with suggestions. */
  warnings: string[];
  /** `origin`/`length` of the trajectory in the workload file. */
  trajectory: { origin: number; length: number; total: number };
  workloadFile: string;
}

/** A path from the options file: its folder first, else the working directory. */
function inputPath(base: string, p: string): string {
  if (isAbsolute(p)) return p;
  const near = join(base, p);
  return existsSync(near) || !existsSync(p) ? near : resolve(p);
}

/** IRMaSim's `load_csv_workload`: rows of a CSV with a header, numbers where they parse. */
export function parseCsvWorkload(text: string): { jobs: Record<string, unknown>[] } {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const split = (l: string) => l.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const header = split(lines[0] ?? '');
  const jobs = lines.slice(1).map((l) => {
    const cells = split(l);
    const o: Record<string, unknown> = {};
    header.forEach((h, i) => {
      const c = cells[i] ?? '';
      if (c === '') return;
      const n = Number(c);
      o[h] = Number.isFinite(n) ? n : c;
    });
    return o;
  });
  return { jobs };
}

function str(o: Record<string, unknown>, k: string, where: string): string | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new InputError(`$.${k}: expected a file or name (string), found ${JSON.stringify(v)}`, where);
  return v;
}

/** `"12"`, `12` or `"random"` (IRMaSim keeps trajectory options as strings). */
function countOrRandom(o: Record<string, unknown>, k: string, where: string): number | 'random' {
  const v = o[k] ?? '0';
  if (v === 'random') return 'random';
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0) throw new InputError(`$.${k}: expected a non-negative integer or "random", found ${JSON.stringify(v)}`, where);
  return n;
}

/** The platform groups of `platform_file` over the library's, as IRMaSim's `_build_library` merges them. */
function platformGroups(base: string, opts: Record<string, unknown>, where: string): { data: Record<string, Record<string, unknown>>; file: string } {
  const groups: Record<string, Record<string, unknown>> = { platform: {}, network: {}, node: {}, processor: {} };
  const lib = str(opts, 'platform_library_path', where);
  if (lib !== undefined) {
    const dir = inputPath(base, lib);
    for (const [g, f] of [
      ['platform', 'platforms.json'],
      ['network', 'network_types.json'],
      ['node', 'node_types.json'],
      ['processor', 'processor_types.json'],
    ] as const) {
      const path = join(dir, f);
      if (existsSync(path)) groups[g] = readJsonFile(path) as Record<string, unknown>;
    }
  }
  const pf = str(opts, 'platform_file', where);
  if (pf === undefined && lib === undefined)
    throw new InputError('$.platform_file: missing; IRMaSim needs the platform definitions (platform_file or platform_library_path)', where);
  let file = lib ?? where;
  if (pf !== undefined) {
    file = inputPath(base, pf);
    const data = readJsonFile(file);
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new InputError('expected an object of groups (platform, node, processor)', file);
    for (const [g, defs] of Object.entries(data as Record<string, unknown>)) groups[g] = { ...(groups[g] ?? {}), ...(defs as Record<string, unknown>) };
  }
  return { data: groups, file };
}

/** Reads an IRMaSim options file and prepares the run (`out` overrides `output_dir`). */
export function prepareIrmasimRun(file: string, out?: string): IrmasimRun {
  const raw = readJsonFile(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InputError('expected an IRMaSim options object', file);
  const opts = raw as Record<string, unknown>;
  const base = dirname(file);
  const warnings = unknownKeys(opts, OPTION_KEYS).map((u) => `$.${u.key}: IRMaSim does not read this key, and neither does this run: ${u.message}`);

  const seedRaw = opts['seed'] ?? 0;
  if (typeof seedRaw !== 'number' || !Number.isInteger(seedRaw)) throw new InputError(`$.seed: expected an integer, found ${JSON.stringify(seedRaw)}`, file);
  const rng = new PythonRandom(seedRaw);
  const nbt = countOrRandom(opts, 'nbtrajectories', file);
  if (nbt !== 0 && nbt !== 1 && opts['nbtrajectories'] !== undefined)
    throw new InputError(
      `$.nbtrajectories: clustergym runs one trajectory per options file (IRMaSim chains ${String(nbt)} in one simulation); run each trajectory with its own trajectory_origin`,
      file,
    );

  // platform
  const name = str(opts, 'platform_name', file);
  if (name === undefined) throw new InputError('$.platform_name: missing; IRMaSim needs the platform to simulate', file);
  const { data, file: pfile } = platformGroups(base, opts, file);
  const plat = data['platform']?.[name] as Record<string, unknown> | undefined;
  if (plat && plat['model_name'] !== undefined && plat['model_name'] !== 'modelV1')
    throw new InputError(`$.platform.${name}.model_name: ${JSON.stringify(plat['model_name'])} is not modelled; clustergym runs IRMaSim's modelV1`, pfile);
  const platform = parsePlatform(data, pfile, { platformName: name });

  // workload, in file order, then the trajectory
  const wfRel = str(opts, 'workload_file', file);
  if (wfRel === undefined) throw new InputError('$.workload_file: missing; IRMaSim needs the workload to simulate', file);
  const wf = inputPath(base, wfRel);
  let wdata: unknown;
  if (wf.toLowerCase().endsWith('.json')) wdata = readJsonFile(wf);
  else if (wf.toLowerCase().endsWith('.csv')) {
    if (!existsSync(wf) || !statSync(wf).isFile()) throw new InputError('cannot read file (not found)', wf);
    wdata = parseCsvWorkload(readFileSync(wf, 'utf8'));
  } else throw new InputError(`$.workload_file: unsupported workload file extension (IRMaSim reads .json and .csv): ${JSON.stringify(wfRel)}`, file);
  const all = parseNativeWorkload(wdata, wf, wf, { sort: false }).jobs;
  if (all.length === 0) throw new InputError('the workload has no jobs', wf);
  const lengthOpt = countOrRandom(opts, 'trajectory_length', file);
  const length0 = lengthOpt === 'random' ? rng.randint(1, all.length) : lengthOpt;
  const originOpt = countOrRandom(opts, 'trajectory_origin', file);
  const origin = originOpt === 'random' ? rng.randint(0, all.length - Math.max(1, length0)) : originOpt;
  const length = length0 === 0 ? all.length - origin : length0;
  if (origin >= all.length || origin + length > all.length)
    throw new InputError(`$.trajectory_origin/trajectory_length: jobs ${origin}..${origin + length - 1} of a workload of ${all.length}`, file);

  const manager = makeIrmasimManager((opts['workload_manager'] ?? {}) as Record<string, unknown>, rng, file);
  const trajectory = all.slice(origin, origin + length);
  const jobs = sortBySubmission(trajectory).map(manager.shape);
  const od = out ?? str(opts, 'output_dir', file);
  return {
    file,
    platform,
    jobs,
    manager,
    seed: seedRaw,
    outputDir: od === undefined ? undefined : out !== undefined ? out : isAbsolute(od) ? od : join(base, od),
    // IRMaSim rebases to the trajectory's first job in file order (not always the earliest)
    simulator: { semantics: 'irmasim', enforceMemory: false, workloadName: wf, timeOrigin: trajectory[0]!.subtime },
    warnings: [...warnings, ...manager.warnings],
    trajectory: { origin, length, total: all.length },
    workloadFile: wf,
  };
}
