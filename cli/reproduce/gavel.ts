/**
 * `clustergym reproduce gavel`: Gavel's Figure 9 (OSDI'20: mean JCT against the input job rate on 36
 * V100 + 36 P100 + 36 K80 GPUs, heterogeneity-agnostic "LAS" against heterogeneity-aware max-min
 * fairness "Gavel"), src/scheduling/gpu/gavelFigure.ts doing the work; its target and band are in
 * docs/gavel-reproduction.md. The defaults are the figure's protocol (rates 0.2 to 3.0 by 0.2, seeds
 * 0-2, jobs 4000-4999, an hour or more of CPU: `npm run bench -- gavel`); CI runs a small window on a
 * few rates. `--json` prints the report; `--out DIR` writes gavel.json and gavel-figure9.svg.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { FIGURE_RATES, figureTableRows, reproduceGavelFigure } from '../../src/scheduling/gpu/gavelFigure.js';
import { GAVEL_THROUGHPUTS, loadThroughputTable } from '../../src/workload/dlThroughput.js';
import { defineFlags, formatTable, int, num, text } from '../common.js';
import { defineExperiment, REPRODUCE_FLAGS } from './define.js';

/** `a,b,c`: input rates (jobs/h), each in (0, 100], ascending. */
const rateList = z.string().transform((s, ctx) => {
  const out = s.split(',').map((x) => Number(x.trim()));
  if (out.some((x) => !(Number.isFinite(x) && x > 0 && x <= 100)) || out.some((x, i) => i > 0 && x <= out[i - 1]!)) {
    ctx.addIssue({ code: 'custom', message: `expected ascending comma-separated rates in (0, 100] jobs/h, found ${JSON.stringify(s)}` });
    return z.NEVER;
  }
  return out;
});

const TABLE_HEADER = ['rate (jobs/h)', 'LAS (agnostic)', 'Gavel (aware)', 'ratio', 'paper LAS / Gavel (seed 0)', 'paper ratio'];

/** The `gavel` experiment. */
export const reproduceCommand = defineExperiment(
  defineFlags({
    ...REPRODUCE_FLAGS,
    seed: { value: 'N', schema: int({ gte: 0, lte: 2 ** 31 }), default: 0, help: "the first seed (Gavel's generator's: seed 0 gives its seed-0 jobs)" },
    seeds: { value: 'N', schema: int({ gte: 1, lte: 20 }), default: 3, help: 'seeds, from --seed on (the figure: 0, 1, 2)' },
    rates: { value: 'R,R,...', schema: rateList, default: [...FIGURE_RATES], help: 'input job rates, jobs/h (the figure: 0.2 to 3.0 by 0.2)' },
    from: { value: 'N', schema: int({ gte: 0 }), default: 4000, help: 'first job id of the measured window' },
    to: { value: 'N', schema: int({ gte: 1 }), default: 5000, help: 'one past the last job id of the measured window' },
    'per-type': { value: 'N', schema: int({ gte: 8, lte: 10_000 }), default: 36, help: 'GPUs (one-GPU servers) of each of V100, P100, K80' },
    'max-hours': {
      value: 'H',
      schema: num({ gt: 0 }),
      default: 2000,
      help: "simulated hours after the window's last arrival before a point is given up (unfinished)",
    },
    throughputs: { value: 'FILE', schema: text(true), default: GAVEL_THROUGHPUTS, help: "Gavel's simulation_throughputs.json" },
  }),
  {
    summary: "Gavel (OSDI'20) Figure 9: mean JCT vs input rate, heterogeneity-agnostic vs aware max-min fairness on 36 V100/P100/K80",
    run: (v, out, log) => {
      const table = loadThroughputTable(v.throughputs);
      const seeds = Array.from({ length: v.seeds }, (_, i) => v.seed + i);
      const { report, files } = reproduceGavelFigure(
        { table, rates: v.rates, seeds, from: v.from, to: Math.max(v.to, v.from + 1), perType: v['per-type'], maxHours: v['max-hours'] },
        log,
      );
      if (out !== undefined) for (const [name, content] of Object.entries(files)) writeFileSync(join(out, name), content);
      return report;
    },
    tables: (report) => {
      const parts: string[] = [];
      for (const [name, rows] of Object.entries(report.tables)) {
        if (name === 'points') continue;
        const title = name === 'mean' ? `Mean JCT, mean over seeds ${(report.parameters.seeds as number[]).join(', ')}` : `Mean JCT, seed ${name.slice(4)}`;
        parts.push(`${title}\n${formatTable(TABLE_HEADER, figureTableRows(rows))}\n`);
      }
      return parts.join('\n');
    },
  },
);
