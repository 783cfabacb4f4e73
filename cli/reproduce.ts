/**
 * `clustergym reproduce NAME [flags]`: reruns a source document's published experiments and checks
 * its findings on this run (src/report/findings.ts). Every experiment takes `--seed N`, `--json`
 * (the report as JSON on stdout instead of the tables) and `--out DIR` (the report as
 * `DIR/NAME.json` plus the experiment's CSV and SVG files); its own flags set the sizes.
 *
 * Exit codes: 0 when every finding holds, 1 when one does not (the table says which), 2 on bad input.
 *
 * Each experiment is a subcommand module in `cli/reproduce/NAME.ts` exporting `reproduceCommand`
 * (a `ReproduceCommand`), listed once in `EXPERIMENTS` below.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../src/core/errors.js';
import { failedFindings, type ReproduceReport } from '../src/report/findings.js';
import { type CliCommandModule, defineCommand, type FlagValues, formatTable } from './common.js';
import type { ReproduceCommand } from './reproduce/define.js';

// The experiment definition helpers live in reproduce/define.ts so that experiment modules import
// them without importing this dispatcher (which imports the experiments: a cycle otherwise).
export { defineExperiment, REPRODUCE_FLAGS, type ReproduceCommand } from './reproduce/define.js';

/** The experiments, by name: one line of help, and the module (loaded only when it runs). */
// biome-ignore lint/suspicious/noExplicitAny: each experiment has its own flags
const EXPERIMENTS: Record<string, { summary: string; load: () => Promise<ReproduceCommand<any>> }> = {
  fairness: {
    summary: 'seed 001 (DSLab cluster simulator): DRF and Tetris(f) on Table 5.1, the f sweep, 200,000-task speed run',
    load: async () => (await import('./reproduce/fairness.js')).reproduceCommand,
  },
  dmr: {
    summary: 'seed 002 (DMR): fixed vs malleable workloads on 64 nodes, Table 4',
    load: async () => (await import('./reproduce/dmr.js')).reproduceCommand,
  },
  cosched: {
    summary: 'seed 003 (CSC thesis): RR/DYN/IMPLI/DYN_MOD/CSC time sharing, MPL, L and memory sweeps',
    load: async () => (await import('./reproduce/cosched.js')).reproduceCommand,
  },
  gavel: {
    summary: "Gavel (OSDI'20) Figure 9: mean JCT vs input rate, heterogeneity-agnostic vs aware max-min fairness on 36 V100/P100/K80",
    load: async () => (await import('./reproduce/gavel.js')).reproduceCommand,
  },
  raijin: {
    summary: 'seed 004 (Slurm on Raijin): 57,600 cores, runworkload shrink sweep, calcmets, Tables 4.1/4.2',
    load: async () => (await import('./reproduce/raijin.js')).reproduceCommand,
  },
};

/** Prints a report's findings as a table; returns the exit code. */
export function printFindings(report: ReproduceReport): number {
  const rows = report.findings.map((f) => [f.holds ? 'holds' : 'FAILS', f.id, f.paper, f.measured]);
  console.log(formatTable(['', 'finding', 'paper', 'this run'], rows));
  const failed = failedFindings(report);
  console.log(
    failed.length === 0
      ? `\nall ${report.findings.length} findings hold (seed ${report.seed}, ${report.seconds.toFixed(1)} s)`
      : `\n${failed.length} of ${report.findings.length} findings do not hold: ${failed.map((f) => f.id).join(', ')}`,
  );
  return failed.length === 0 ? 0 : 1;
}

/** Runs one experiment with its validated flags: outputs, table or JSON, exit code. */
async function runExperiment<T>(name: string, exp: ReproduceCommand<T>, values: FlagValues<T>): Promise<number> {
  const v = values as FlagValues<T> & { json?: boolean; out?: string };
  if (v.out !== undefined) mkdirSync(v.out, { recursive: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report = await exp.run(values, v.out, log);
  if (v.out !== undefined) writeFileSync(join(v.out, `${name}.json`), `${JSON.stringify(report, null, 1)}\n`);
  if (v.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return failedFindings(report).length === 0 ? 0 : 1;
  }
  if (exp.tables) console.log(exp.tables(report));
  return printFindings(report);
}

/** `clustergym reproduce <experiment>`. */
export const command: CliCommandModule = {
  configure(cmd, done) {
    cmd.usage('<experiment> [flags]');
    const names = Object.keys(EXPERIMENTS);
    for (const [n, e] of Object.entries(EXPERIMENTS)) cmd.command(n).description(e.summary).usage('[flags]').optionsGroup('Flags:');
    // only the experiment that runs is loaded (its module brings its system's simulator); its flags
    // are added before commander parses the subcommand's line (and shows its --help)
    cmd.hook('preSubcommand', async (_self, sub) => {
      const entry = EXPERIMENTS[sub.name()];
      if (!entry) return;
      const exp = await entry.load();
      defineCommand(exp.flags, (values) => runExperiment(sub.name(), exp, values)).configure(sub, done);
    });
    cmd.allowExcessArguments().action((_options: unknown, self: Command) => {
      const sub = self.args[0];
      throw new InputError(
        `${sub === undefined ? 'missing experiment' : `unknown experiment ${JSON.stringify(sub)}`}; expected one of ${names.join(', ') || '(none yet)'}`,
      );
    });
  },
};
