/**
 * The seed's throughput evaluation (seed 002 §7.5, Table 4, Figures 4-6) rerun: for each workload
 * size, the paper's workload (workload.ts) fixed (every job rigid at `max`, no reconfiguration
 * point) and malleable (policy `dmr`), on 64 nodes (the one engine's DMR preset, preset.ts), and the changes from the first to the second
 * checked against the published ones (`findings`). `clustergym reproduce dmr` prints it; bench
 * times it.
 */
import { join } from 'node:path';
import { comparisonBarsSvg } from '../report/comparisonBars.js';
import { type Finding, finding, formatPercent, percentChange, type ReproduceReport } from '../report/findings.js';
import { writeReport } from '../report/html.js';
import { utilisationSvg } from '../report/utilisation.js';
import { type MRunResult, simulate } from './preset.js';
import { type ResizeCost, TABLE1_COST, TABLE4 } from './model.js';
import { writeMalleableJobsCsv, writeResizesCsv } from './output.js';
import { dmrPolicy, neverPolicy } from './policy.js';
import { paperWorkload, rigidVersion } from './workload.js';

/** Measures of one version of one workload (allocation as a fraction). */
export interface VersionMeasures {
  mean_wait: number;
  mean_execution: number;
  mean_completion: number;
  makespan: number;
  allocation: number;
}

/** One workload size: fixed and malleable. */
export interface DmrRun {
  jobs: number;
  rigid: VersionMeasures;
  malleable: VersionMeasures & { expands: number; shrinks: number; no_actions: number; invalid_resizes: number; resize_time: number };
}

/** The report of `reproduce dmr`: the common report plus the runs. */
export interface DmrReport extends ReproduceReport {
  runs: DmrRun[];
}

/** Options of the experiment. */
export interface DmrExperimentOptions {
  seed: number;
  /** Workload sizes (default 50, 100, 200, 400). */
  sizes?: readonly number[];
  /** Output directory for CSV files and the report page, or undefined. */
  out?: string | undefined;
  /** Resize costs (default Table 1: expand 0.423 s, shrink 0.425 s). */
  cost?: ResizeCost;
}

const measures = (r: MRunResult): VersionMeasures => ({
  mean_wait: r.meanWait,
  mean_execution: r.meanExecution,
  mean_completion: r.meanCompletion,
  makespan: r.makespan,
  allocation: r.allocation,
});

/** The published Table 4 row of `jobs` (or undefined for another size). */
function paperRow(jobs: number): { rigid: VersionMeasures; malleable: VersionMeasures } | undefined {
  const i = (TABLE4.jobs as readonly number[]).indexOf(jobs);
  if (i < 0) return undefined;
  const v = (t: (typeof TABLE4)['rigid'] | (typeof TABLE4)['malleable'], mk: number): VersionMeasures => ({
    mean_wait: t.wait[i]!,
    mean_execution: t.execution[i]!,
    mean_completion: t.completion[i]!,
    makespan: mk,
    allocation: t.allocation[i]! / 100,
  });
  return { rigid: v(TABLE4.rigid, Number.NaN), malleable: v(TABLE4.malleable, Number.NaN) };
}

/** Range of published changes over Table 4's rows, as text (`-69% to -57%`). */
function paperRange(f: (i: number) => number): string {
  const v = TABLE4.jobs.map((_, i) => f(i));
  return `${formatPercent(Math.min(...v))} to ${formatPercent(Math.max(...v))}`;
}

function rangeText(v: readonly number[], fmt: (x: number) => string): string {
  return `${fmt(Math.min(...v))} to ${fmt(Math.max(...v))}`;
}

/** The findings checked on `runs` (each must hold at every size). */
export function dmrFindings(runs: readonly DmrRun[]): Finding[] {
  const ch = (f: (r: DmrRun) => [number, number]) => runs.map((r) => percentChange(...f(r)));
  const all = (v: number[], ok: (x: number) => boolean) => v.length > 0 && v.every((x) => Number.isFinite(x) && ok(x));
  const pc = (v: number) => `${(v * 100).toFixed(1)}%`;
  const make = (id: string, claim: string, paper: string, v: number[], ok: (x: number) => boolean, fmt = formatPercent): Finding => ({
    id,
    claim,
    paper,
    measured: rangeText(v, fmt),
    holds: all(v, ok),
  });
  const t = TABLE4;
  const wait = ch((r) => [r.rigid.mean_wait, r.malleable.mean_wait]);
  const comp = ch((r) => [r.rigid.mean_completion, r.malleable.mean_completion]);
  const mk = ch((r) => [r.rigid.makespan, r.malleable.makespan]);
  const exec = ch((r) => [r.rigid.mean_execution, r.malleable.mean_execution]);
  const invalid = runs.reduce((a, r) => a + r.malleable.invalid_resizes, 0);
  return [
    make(
      'wait-down',
      'malleability cuts the mean job waiting time by well over half (allowed: -85% to -45%)',
      `Table 4: ${paperRange((i) => percentChange(t.rigid.wait[i]!, t.malleable.wait[i]!))}`,
      wait,
      (x) => x >= -85 && x <= -45,
    ),
    make(
      'completion-down',
      'and the mean job completion time by about half or more (allowed: -80% to -40%)',
      `Table 4: ${paperRange((i) => percentChange(t.rigid.completion[i]!, t.malleable.completion[i]!))}`,
      comp,
      (x) => x >= -80 && x <= -40,
    ),
    make(
      'makespan-down',
      'the workload completion time falls by a third or more (allowed: -70% to -33%)',
      `Figure 4: ${paperRange((i) => -t.makespanGain[i]!)}`,
      mk,
      (x) => x >= -70 && x <= -33,
    ),
    make(
      'execution-up',
      'each job runs longer, shrunk to its preferred size (allowed: +20% to +75%)',
      `Table 4: ${paperRange((i) => percentChange(t.rigid.execution[i]!, t.malleable.execution[i]!))}`,
      exec,
      (x) => x >= 20 && x <= 75,
    ),
    make(
      'allocation-rigid',
      'the fixed workload keeps nearly every node allocated (allowed: >= 85%)',
      `Table 4: ${rangeText(
        t.rigid.allocation.map((x) => x / 100),
        pc,
      )}`,
      runs.map((r) => r.rigid.allocation),
      (x) => x >= 0.85,
      pc,
    ),
    make(
      'allocation-malleable',
      'the malleable workload allocates about 30% fewer nodes (allowed: 55% to 85%)',
      `Table 4: ${rangeText(
        t.malleable.allocation.map((x) => x / 100),
        pc,
      )}`,
      runs.map((r) => r.malleable.allocation),
      (x) => x >= 0.55 && x <= 0.85,
      pc,
    ),
    make(
      'shrinks-outnumber-expands',
      'with jobs queued, shrinks are more common than expands (shrinks / expands)',
      'Table 1 (synchronous, 400 jobs): 194 shrinks, 50 expands',
      runs.map((r) => r.malleable.shrinks / Math.max(1, r.malleable.expands)),
      (x) => x > 1,
      (x) => `${x.toFixed(1)}x`,
    ),
    finding(
      'no-invalid-resize',
      'every resize respects min, max, the factor and the free nodes',
      'by construction (§5.1)',
      invalid,
      (x) => x === 0,
      (x) => `${x} invalid`,
    ),
  ];
}

/** Runs fixed and malleable for every size; writes CSVs and the report page to `out`. */
export function runDmrExperiment(o: DmrExperimentOptions, log: (line: string) => void = () => {}): DmrReport {
  const t0 = performance.now();
  const sizes = o.sizes ?? TABLE4.jobs;
  const runs: DmrRun[] = [];
  const smallest: { rigid?: MRunResult; malleable?: MRunResult } = {};
  const perApp: Record<string, number | string>[] = [];
  for (const n of sizes) {
    const w = paperWorkload({ jobs: n, seed: o.seed });
    const wantTimeline = o.out !== undefined && n === Math.min(...sizes);
    const rigid = simulate(rigidVersion(w), neverPolicy, { timeline: wantTimeline });
    const mall = simulate(w, dmrPolicy, { timeline: wantTimeline, cost: o.cost ?? TABLE1_COST });
    if (wantTimeline) Object.assign(smallest, { rigid, malleable: mall });
    perApp.push(...perAppRows(n, rigid, mall));
    if (o.out !== undefined) {
      writeMalleableJobsCsv(join(o.out, `dmr-${n}-rigid-jobs.csv`), rigid);
      writeMalleableJobsCsv(join(o.out, `dmr-${n}-malleable-jobs.csv`), mall);
      writeResizesCsv(join(o.out, `dmr-${n}-malleable-resizes.csv`), mall);
    }
    runs.push({
      jobs: n,
      rigid: measures(rigid),
      malleable: {
        ...measures(mall),
        expands: mall.expands,
        shrinks: mall.shrinks,
        no_actions: mall.noActions,
        invalid_resizes: mall.invalidResizes,
        resize_time: mall.resizeTime,
      },
    });
    log(
      `${n} jobs: wait ${rigid.meanWait.toFixed(0)} -> ${mall.meanWait.toFixed(0)} s, makespan ${rigid.makespan.toFixed(0)} -> ${mall.makespan.toFixed(0)} s`,
    );
  }
  const table4: Record<string, number | string>[] = [];
  for (const r of runs) {
    const p = paperRow(r.jobs);
    for (const v of ['rigid', 'malleable'] as const) {
      const m = r[v];
      table4.push({
        jobs: r.jobs,
        version: v === 'rigid' ? 'fixed' : 'malleable',
        allocation_pct: round(m.allocation * 100, 2),
        paper_allocation_pct: p ? round(p[v].allocation * 100, 2) : '',
        wait_s: round(m.mean_wait, 1),
        paper_wait_s: p ? p[v].mean_wait : '',
        execution_s: round(m.mean_execution, 1),
        paper_execution_s: p ? p[v].mean_execution : '',
        completion_s: round(m.mean_completion, 1),
        paper_completion_s: p ? p[v].mean_completion : '',
        makespan_s: round(m.makespan, 0),
      });
    }
  }
  const changes = runs.map((r) => ({
    jobs: r.jobs,
    wait_pct: round(percentChange(r.rigid.mean_wait, r.malleable.mean_wait), 1),
    execution_pct: round(percentChange(r.rigid.mean_execution, r.malleable.mean_execution), 1),
    completion_pct: round(percentChange(r.rigid.mean_completion, r.malleable.mean_completion), 1),
    makespan_pct: round(percentChange(r.rigid.makespan, r.malleable.makespan), 1),
    expands: r.malleable.expands,
    shrinks: r.malleable.shrinks,
    invalid_resizes: r.malleable.invalid_resizes,
  }));
  if (o.out !== undefined) writePage(o.out, runs, smallest);
  return {
    name: 'dmr',
    source: '../shared/seeds/002_4f8a884d38052cfe.txt §4.2, §4.3, §5.1, Tables 1, 3, 4, Figures 4-6',
    seed: o.seed,
    parameters: {
      sizes: [...sizes],
      resize_cost_s: o.cost ?? TABLE1_COST,
      nodes: 64,
      inter_arrival_s: 10,
      policy: 'dmr (synchronous)',
      baseline: 'every job rigid at max',
      scheduler: 'FCFS + EASY',
    },
    tables: { table4, changes, per_app: perApp },
    findings: dmrFindings(runs),
    seconds: (performance.now() - t0) / 1000,
    runs,
  };
}

/** Figure 7 in numbers: mean execution and waiting time per application, fixed and malleable. */
function perAppRows(jobs: number, rigid: MRunResult, mall: MRunResult): Record<string, number | string>[] {
  const apps = [...new Set(rigid.jobs.map((j) => j.app))];
  const mean = (r: MRunResult, app: string, f: (j: MRunResult['jobs'][number]) => number) => {
    const js = r.jobs.filter((j) => j.app === app);
    return js.reduce((a, j) => a + f(j), 0) / Math.max(1, js.length);
  };
  return apps.map((app) => ({
    jobs,
    app,
    count: rigid.jobs.filter((j) => j.app === app).length,
    fixed_execution_s: round(
      mean(rigid, app, (j) => j.finish - j.start),
      1,
    ),
    malleable_execution_s: round(
      mean(mall, app, (j) => j.finish - j.start),
      1,
    ),
    fixed_wait_s: round(
      mean(rigid, app, (j) => j.start - j.submit),
      1,
    ),
    malleable_wait_s: round(
      mean(mall, app, (j) => j.start - j.submit),
      1,
    ),
  }));
}

function round(v: number, d: number): number {
  const f = 10 ** d;
  return Math.round(v * f) / f;
}

function writePage(out: string, runs: readonly DmrRun[], smallest: { rigid?: MRunResult; malleable?: MRunResult }): void {
  const rows = (key: 'makespan' | 'mean_wait') =>
    (['rigid', 'malleable'] as const).map((v) => ({
      name: v === 'rigid' ? 'fixed' : 'malleable',
      values: Object.fromEntries(runs.map((r) => [`${r.jobs} jobs`, r[v][key]])),
    }));
  const metrics = (label: string) => runs.map((r) => ({ key: `${r.jobs} jobs`, label: `${r.jobs} jobs: ${label}`, better: 'lower' as const }));
  const figures = [
    {
      file: 'dmr-figure4.svg',
      svg: comparisonBarsSvg(rows('makespan'), metrics('workload completion time (s)'), { title: 'Workload completion time' }),
      title: 'Figure 4: workload completion time',
      caption: 'Makespan of the fixed and malleable versions of each workload.',
    },
    {
      file: 'dmr-figure5.svg',
      svg: comparisonBarsSvg(rows('mean_wait'), metrics('mean wait (s)'), { title: 'Mean job waiting time' }),
      title: 'Figure 5: mean job waiting time',
      caption: 'Mean waiting time of the jobs of each workload.',
    },
  ];
  for (const v of ['rigid', 'malleable'] as const) {
    const r = smallest[v];
    if (!r) continue;
    figures.push({
      file: `dmr-figure6-${v}.svg`,
      svg: utilisationSvg(r.timeline, {
        panels: ['utilisation', 'queue'],
        title: `Allocated nodes and queued jobs, ${v === 'rigid' ? 'fixed' : 'malleable'}, ${r.jobs.length} jobs`,
      }),
      title: `Figure 6 (${v === 'rigid' ? 'fixed' : 'malleable'}): allocation over time`,
      caption: 'Fraction of the 64 nodes allocated (top) and jobs waiting (bottom) over time, smallest workload.',
    });
  }
  writeReport(out, {
    title: 'clustergym reproduce dmr',
    intro: 'Seed 002 (DMR API), §7.5: fixed vs malleable workloads on 64 nodes.',
    figures,
    tables: [
      {
        caption: 'Table 4 (this run)',
        columns: ['jobs', 'version', 'allocation', 'wait (s)', 'execution (s)', 'completion (s)', 'makespan (s)'],
        rows: runs.flatMap((r) =>
          (['rigid', 'malleable'] as const).map((v) => [
            r.jobs,
            v === 'rigid' ? 'fixed' : 'malleable',
            r[v].allocation,
            r[v].mean_wait,
            r[v].mean_execution,
            r[v].mean_completion,
            r[v].makespan,
          ]),
        ),
      },
    ],
  });
}
