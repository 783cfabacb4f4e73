/**
 * Bench section `gavel` (issue 45): `clustergym reproduce gavel` at full size, Gavel's Figure 9 as its
 * protocol runs it (rates 0.2 to 3.0 jobs/h, seeds 0-2, jobs 4000-4999 on 36 V100 + 36 P100 + 36 K80,
 * docs/gavel-reproduction.md): the per-rate mean JCTs of both policies beside the paper's, the band's
 * findings, and the wall time. Needs Gavel's table in `../shared/data/gavel` (skipped without). Hours of
 * CPU: `npm run bench -- gavel`; `CLUSTERGYM_GAVEL_SEEDS=1` runs seed 0 only.
 */
import { existsSync } from 'node:fs';
import { reproduceGavelFigure, FIGURE_RATES } from '../src/scheduling/gpu/gavelFigure.js';
import { GAVEL_THROUGHPUTS, loadThroughputTable } from '../src/workload/dlThroughput.js';

export function benchGavel(): Record<string, unknown> {
  if (!existsSync(GAVEL_THROUGHPUTS)) return { skipped: `${GAVEL_THROUGHPUTS} is absent (Gavel's table lives in ../shared/data/gavel)` };
  const seeds = Array.from({ length: Number(process.env.CLUSTERGYM_GAVEL_SEEDS ?? 3) }, (_, i) => i);
  const { report } = reproduceGavelFigure({ table: loadThroughputTable(GAVEL_THROUGHPUTS), rates: [...FIGURE_RATES], seeds, from: 4000, to: 5000 }, (line) =>
    console.error(line),
  );
  const { points: _points, ...tables } = report.tables;
  return { seconds: report.seconds, parameters: report.parameters, tables, findings: report.findings };
}
