/**
 * Loading the workload named on the command line: any workload format (native/IRMaSim JSON, Batsim
 * JSON, SWF). A trace without `--platform` runs on `homogeneousPlatform` (src/platform/homogeneous.ts).
 */
import { defaultPlatformFor } from '../src/platform/homogeneous.js';
import { loadPlatform } from '../src/platform/loader.js';
import type { ModelsConfig, Platform } from '../src/platform/platform.js';
import type { Workload } from '../src/workload/job.js';
import { loadWorkload, type LoadWorkloadOptions } from '../src/workload/index.js';
import { readJsonFile } from '../src/core/json.js';
import { parseJsonText } from '../src/core/json.js';
import { type EngineConfig, parseEngineConfig } from '../src/scheduling/engineConfig.js';

/**
 * The engine configuration `--engine` names (src/scheduling/engineConfig.ts): a JSON file, or the JSON
 * object itself (text starting with `{`); the documented model when absent.
 */
export function engineConfigArg(value: string | undefined, flag = '--engine'): EngineConfig {
  if (value === undefined) return parseEngineConfig({});
  const inline = value.trimStart().startsWith('{');
  const raw = inline ? parseJsonText(value, flag) : readJsonFile(value);
  return parseEngineConfig(raw, inline ? flag : `${flag} ${value}`);
}

/** Loads a workload file for a command (format detected). */
export function loadWorkloadFile(file: string, options: LoadWorkloadOptions = {}): Workload {
  return loadWorkload(file, options);
}

/** The platform flags a command takes. */
export interface PlatformChoice {
  /** `--platform FILE` (native or IRMaSim JSON). */
  platform?: string | undefined;
  /** `--platform-name`: which platform of an IRMaSim file with several. */
  platformName?: string | undefined;
  /** `--cores-per-node` of the homogeneous platform built for a trace. */
  coresPerNode?: number | undefined;
  /** `--memory-model`, `--comm-model`, `--comm-penalty` overrides. */
  models?: Partial<ModelsConfig> | undefined;
}

/**
 * The platform of a run: the file given with `--platform`; else, for a workload that knows its
 * machine's size (SWF `MaxProcs`/`MaxNodes`, Batsim `nb_res`, a converted trace's `max_procs`), a
 * homogeneous cluster of that many cores (`homogeneousPlatform`, one core per node unless
 * `--cores-per-node`); else the embedded default platform.
 */
export function resolvePlatform(choice: PlatformChoice, maxProcs: number | undefined): Platform {
  const models = choice.models ?? {};
  if (choice.platform) return loadPlatform(choice.platform, { models, ...(choice.platformName ? { platformName: choice.platformName } : {}) });
  return defaultPlatformFor(maxProcs, models, choice.coresPerNode ?? 1);
}
