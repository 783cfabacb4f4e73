/**
 * `clustergym reproduce cosched`: seed 003's simulations (§2.3.1 Figs. 2.3-2.5, §2.3.2 Fig. 2.8, §3.6
 * Figs. 3.11-3.12) on the time-sharing engine (src/timesharing/experiment.ts): the MPL_TOTAL sweep
 * (rr, dyn, impli, csc at L = 50 %), the L sweep at MPL_TOTAL 3 (DYN(L) and CSC) and the
 * high-memory sweep (rr, dyn, dyn_mod, csc). `--json` prints the report on stdout; `--out DIR` writes
 * cosched.json, one CSV per table and the figures as SVG.
 */
import { z } from 'zod';
import { coschedReport, writeCoschedOutputs } from '../../src/timesharing/experiment.js';
import { defineFlags, formatTable, int } from '../common.js';
import { defineExperiment, REPRODUCE_FLAGS } from './define.js';

const list = (what: string, lo: number, hi: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, `expected comma-separated ${what}`)
    .transform((s) => s.split(',').map(Number))
    .refine((v) => v.every((x) => x >= lo && x <= hi), `each value must be between ${lo} and ${hi}`);

/** The `cosched` experiment. */
export const reproduceCommand = defineExperiment(
  defineFlags({
    ...REPRODUCE_FLAGS,
    jobs: { value: 'N', schema: int({ gte: 10, lte: 1_000_000 }), default: 10000, help: 'jobs per run (n_jobs; 10,000 in the thesis)' },
    mpl: { value: 'M,M,...', schema: list('MPL_TOTAL values', 1, 64), default: [1, 2, 3, 4, 5], help: 'MPL_TOTAL values of the sweeps' },
    L: { value: 'L,L,...', schema: list('shares in (0, 1]', 0.01, 1), default: [0.25, 0.5, 0.75, 1], help: 'L values of the L sweep (fractions)' },
  }),
  {
    summary: 'seed 003 (CSC thesis): RR/DYN/IMPLI/DYN_MOD/CSC time sharing, MPL, L and memory sweeps',
    run: (v, out, log) => {
      const { report, result } = coschedReport({ seed: v.seed, jobs: v.jobs, mpls: v.mpl, Ls: v.L, log });
      if (out !== undefined) writeCoschedOutputs(out, report, result);
      return report;
    },
    tables: (report) => {
      const t = (name: string, keys: string[]) => {
        const rows = report.tables[name] ?? [];
        return `${name}\n${formatTable(
          keys,
          rows.map((r) => keys.map((k) => (typeof r[k] === 'number' ? Number(r[k]).toFixed(2) : String(r[k] ?? '')))),
        )}`;
      };
      const kinds = ['parallel_slowdown', 'parallel_overhead', 'parallel_correlation', 'local_slowdown', 'local_overhead'];
      return [
        t('mpl_sweep', ['policy', 'mpl', ...kinds]),
        t('L_sweep', ['policy', 'L', ...kinds]),
        t('mem_sweep', ['policy', 'mpl', 'mem_load', 'parallel_slowdown', 'parallel_page_faults', 'local_slowdown', 'local_page_faults']),
        '',
      ].join('\n\n');
    },
  },
);
