/**
 * What an experiment of `clustergym reproduce` is (`ReproduceCommand`), how one is defined
 * (`defineExperiment`) and the flags every experiment has (`REPRODUCE_FLAGS`). Experiment modules
 * (`cli/reproduce/NAME.ts`) import these from here, not from the dispatcher `cli/reproduce.ts`
 * (which re-exports them), so that the dispatcher's lazy imports of the experiments make no cycle.
 */
import type { ReproduceReport } from '../../src/report/findings.js';
import { type FlagSet, type FlagValues, int, text } from '../common.js';

/** An experiment of `clustergym reproduce`. */
export interface ReproduceCommand<T> {
  /** One line for `clustergym reproduce --help`. */
  summary: string;
  /** Its flags: must include `seed`, `json` and `out` (use `REPRODUCE_FLAGS`). */
  flags: FlagSet<T>;
  /**
   * Runs the experiment. `out` is the output directory (created) or undefined; the experiment
   * writes its own CSV/SVG files there. `log` prints progress on stderr.
   */
  run(values: FlagValues<T>, out: string | undefined, log: (line: string) => void): ReproduceReport | Promise<ReproduceReport>;
  /** The human-readable tables printed before the findings (without `--json`). */
  tables?(report: ReproduceReport): string;
}

/** An experiment from its flags (the values' types follow from them) and what it does. */
export function defineExperiment<T>(flags: FlagSet<T>, experiment: Omit<ReproduceCommand<T>, 'flags'>): ReproduceCommand<T> {
  return { ...experiment, flags };
}

/** The flags every experiment has (spread them into its `defineFlags`). */
export const REPRODUCE_FLAGS = {
  seed: { value: 'N', schema: int({ gte: 0 }), default: 1, help: 'seed of the workloads and of every random draw of the run' },
  json: { help: 'print the report (tables and findings) as JSON on stdout instead of the tables' },
  out: { value: 'DIR', schema: text(true), help: 'write NAME.json and the CSV/SVG files of the run there' },
} as const;
