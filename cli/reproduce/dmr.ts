/**
 * `clustergym reproduce dmr`: seed 002's throughput evaluation (§7.5, Table 4, Figures 4-6), fixed
 * vs malleable workloads of 50, 100, 200 and 400 jobs on 64 nodes (src/malleable/experiment.ts).
 * `--json` prints the report (with `runs: [{jobs, rigid: {...}, malleable: {...}}]`) on stdout;
 * `--out DIR` writes dmr.json, per-size jobs.csv / resizes.csv and the report page (index.html with
 * the Figure 4, 5 and 6 charts).
 */
import { z } from 'zod';
import { runDmrExperiment } from '../../src/malleable/experiment.js';
import { defineFlags, formatTable, num } from '../common.js';
import { TABLE1_COST } from '../../src/malleable/model.js';
import { defineExperiment, REPRODUCE_FLAGS } from './define.js';

const sizes = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'expected comma-separated job counts, such as 50,100,200,400')
  .transform((s) => s.split(',').map(Number))
  .refine(
    (v) => v.every((n) => n >= 50 && n <= 10_000),
    "each job count must be between 50 (the paper's smallest workload: below it the queue does not saturate and Table 4's changes are not expected) and 10000 (about 8 s)",
  );

/** The `dmr` experiment. */
export const reproduceCommand = defineExperiment(
  defineFlags({
    ...REPRODUCE_FLAGS,
    jobs: { value: 'N,N,...', schema: sizes, default: [50, 100, 200, 400], help: 'workload sizes (jobs per workload)' },
    'expand-cost': { value: 'S', schema: num({ gte: 0 }), default: TABLE1_COST.expand, help: 'seconds an expand costs (Table 1, synchronous average)' },
    'shrink-cost': { value: 'S', schema: num({ gte: 0 }), default: TABLE1_COST.shrink, help: 'seconds a shrink costs (Table 1, synchronous average)' },
  }),
  {
    summary: 'seed 002 (DMR): fixed vs malleable workloads on 64 nodes, Table 4',
    run: (v, out, log) => runDmrExperiment({ seed: v.seed, sizes: v.jobs, out, cost: { expand: v['expand-cost'], shrink: v['shrink-cost'] } }, log),
    tables: (report) => {
      const rows = (report.tables.table4 ?? []).map((r) => [
        r.jobs!,
        r.version!,
        `${r.allocation_pct}% (${r.paper_allocation_pct}%)`,
        `${r.wait_s} (${r.paper_wait_s})`,
        `${r.execution_s} (${r.paper_execution_s})`,
        `${r.completion_s} (${r.paper_completion_s})`,
        r.makespan_s!,
      ]);
      const t4 = formatTable(['jobs', 'version', 'allocation (paper)', 'wait s (paper)', 'execution s (paper)', 'completion s (paper)', 'makespan s'], rows);
      const ch = (report.tables.changes ?? []).map((r) => [
        r.jobs!,
        `${r.wait_pct}%`,
        `${r.execution_pct}%`,
        `${r.completion_pct}%`,
        `${r.makespan_pct}%`,
        r.expands!,
        r.shrinks!,
        r.invalid_resizes!,
      ]);
      const pa = (report.tables.per_app ?? []).map((r) => [
        r.jobs!,
        r.app!,
        r.count!,
        `${r.fixed_execution_s} -> ${r.malleable_execution_s}`,
        `${r.fixed_wait_s} -> ${r.malleable_wait_s}`,
      ]);
      return `Table 4 (this run, paper in parentheses)\n${t4}\n\nChanges fixed -> malleable\n${formatTable(['jobs', 'wait', 'execution', 'completion', 'makespan', 'expands', 'shrinks', 'invalid'], ch)}\n\nPer application (Figure 7), fixed -> malleable\n${formatTable(['jobs', 'app', 'count', 'execution s', 'wait s'], pa)}\n`;
    },
  },
);
