/**
 * The experiments of seed 003 reproduced (`clustergym reproduce cosched`, bench section
 * `timesharing`):
 *
 * - `mpl_sweep` (§2.3.1, Fig. 2.3 left and Fig. 2.4; CSC as in §3.6, Figs. 3.11-3.12 left): plt = 0.3,
 *   low memory (pms = 0, every node fits), MPL_TOTAL = 1..5, policies rr, dyn, impli and csc
 *   (L = 50 %, §3.6).
 * - `L_sweep` (§2.3.1, Fig. 2.5; chapter 3): MPL_TOTAL = 3, plt = 0.3, L = 25..100 %, with DYN(L)
 *   (the quantum of parallel tasks on nodes with a local user is DEF_QUANTUM x L, eq. 2.7) and CSC.
 * - `mem_sweep` (§2.3.2, Fig. 2.8 left and Fig. 2.10; §3.6 Fig. 3.11 right): pms = 1 (high memory),
 *   MPL_TOTAL = 1..5, policies rr, dyn, dyn_mod and csc (L = 50 %), with page faults and mem_load.
 *
 * The findings are those the issue lists from §2.3.1 and §3.6, plus DYN_MOD's page faults (§2.3.2)
 * and CSC's page faults and local slowdown under high memory demand (§3.6);
 * each is checked on the run (src/report/findings.ts). Everything here is a pure function of the
 * options and the seed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finding, type Finding, type ReproduceReport } from '../report/findings.js';
import { type CurveSeries, learningCurveSvg } from '../report/learningCurve.js';
import { DEFAULT_WAIT, type Policy, type TimeSharingConfigInput, timeSharingConfig } from './config.js';
import { type RunMetrics, runMetrics } from './metrics.js';
import { simulate } from './simulator.js';

/** Options of the reproduction. */
export interface CoschedOptions {
  seed: number;
  /** Jobs per run (10,000 in the thesis). */
  jobs: number;
  /** MPL_TOTAL values of the sweeps. */
  mpls?: number[];
  /** L values of the L sweep. */
  Ls?: number[];
  /** Extra configuration applied to every run (model constants). */
  base?: TimeSharingConfigInput;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** The metrics of one kind in a sweep row. */
export interface KindRow {
  slowdown: number;
  overhead: number;
  correlation: number;
  page_faults: number;
}

/** A row of the MPL (or memory) sweep. */
export interface MplRow {
  policy: Policy;
  mpl: number;
  mem_load: number;
  parallel: KindRow;
  local: KindRow;
}

/** A row of the L sweep. */
export interface LRow {
  policy: Policy;
  L: number;
  parallel: KindRow;
  local: KindRow;
}

/** What the reproduction measured. */
export interface CoschedResult {
  mpl_sweep: MplRow[];
  L_sweep: LRow[];
  mem_sweep: MplRow[];
  /** Events processed and simulated jobs over all runs. */
  events: number;
  runs: number;
}

const kindRow = (k: RunMetrics['parallel']): KindRow => ({
  slowdown: k.slowdown,
  overhead: k.overhead,
  correlation: k.correlation,
  page_faults: k.page_faults,
});

/** One run: the metrics of a configuration. */
export function runOnce(cfg: TimeSharingConfigInput): RunMetrics {
  return runMetrics(simulate(timeSharingConfig(cfg)));
}

/** Runs the three sweeps. */
export function runCosched(o: CoschedOptions): CoschedResult {
  const mpls = o.mpls ?? [1, 2, 3, 4, 5];
  const Ls = o.Ls ?? [0.25, 0.5, 0.75, 1];
  const base = { ...o.base, seed: o.seed, n_jobs: o.jobs, plt: 0.3 };
  let events = 0;
  let runs = 0;
  const run = (cfg: TimeSharingConfigInput): RunMetrics => {
    const m = runOnce({ ...base, ...cfg });
    events += m.events;
    runs++;
    return m;
  };
  const mpl_sweep: MplRow[] = [];
  for (const policy of ['rr', 'dyn', 'impli', 'csc'] as const) {
    for (const mpl of mpls) {
      const m = run({ policy, MPL_TOTAL: mpl, pms: 0, L: policy === 'csc' ? 0.5 : 1 });
      mpl_sweep.push({ policy, mpl, mem_load: m.mem_load, parallel: kindRow(m.parallel), local: kindRow(m.local) });
      o.log?.(`mpl_sweep ${policy} MPL ${mpl}: parallel slowdown ${m.parallel.slowdown.toFixed(2)}, local slowdown ${m.local.slowdown.toFixed(2)}`);
    }
  }
  const L_sweep: LRow[] = [];
  for (const policy of ['dyn', 'csc'] as const) {
    for (const L of Ls) {
      const m = run({ policy, MPL_TOTAL: 3, pms: 0, L });
      L_sweep.push({ policy, L, parallel: kindRow(m.parallel), local: kindRow(m.local) });
      o.log?.(`L_sweep ${policy} L ${L}: parallel slowdown ${m.parallel.slowdown.toFixed(2)}, local slowdown ${m.local.slowdown.toFixed(2)}`);
    }
  }
  const mem_sweep: MplRow[] = [];
  for (const policy of ['rr', 'dyn', 'dyn_mod', 'csc'] as const) {
    for (const mpl of mpls) {
      const m = run({ policy, MPL_TOTAL: mpl, pms: 1, L: policy === 'csc' ? 0.5 : 1 });
      mem_sweep.push({ policy, mpl, mem_load: m.mem_load, parallel: kindRow(m.parallel), local: kindRow(m.local) });
      o.log?.(`mem_sweep ${policy} MPL ${mpl}: page faults ${m.page_faults.toFixed(1)}, mem_load ${m.mem_load.toFixed(2)}`);
    }
  }
  return { mpl_sweep, L_sweep, mem_sweep, events, runs };
}

const get = (rows: MplRow[], policy: Policy, mpl: number): MplRow | undefined => rows.find((r) => r.policy === policy && r.mpl === mpl);
const fmt2 = (v: number) => v.toFixed(2);

/** The findings checked on a result (only those whose MPL values were run). */
export function coschedFindings(r: CoschedResult): Finding[] {
  const f: Finding[] = [];
  const mid = [2, 3, 4].filter((m) => get(r.mpl_sweep, 'dyn', m));
  if (mid.length > 0) {
    // DYN the lowest parallel slowdown at MPL 2-4: the largest margin of DYN under the best other
    let worst = Infinity;
    for (const m of mid) {
      const d = get(r.mpl_sweep, 'dyn', m)!.parallel.slowdown;
      const other = Math.min(get(r.mpl_sweep, 'rr', m)!.parallel.slowdown, get(r.mpl_sweep, 'impli', m)!.parallel.slowdown);
      worst = Math.min(worst, other - d);
    }
    f.push(
      finding(
        'dyn-lowest-parallel-slowdown',
        'DYN gives parallel jobs the lowest slowdown of RR, DYN and IMPLI at MPL_TOTAL 2-4',
        'Fig. 2.3 (left), §2.3.1: DYN best',
        worst,
        (v) => v > 0,
        (v) => `smallest margin of DYN below min(RR, IMPLI): ${fmt2(v)}`,
      ),
    );
    let gap = 0;
    for (const m of mid) gap += get(r.mpl_sweep, 'rr', m)!.parallel.slowdown - get(r.mpl_sweep, 'impli', m)!.parallel.slowdown;
    f.push(
      finding(
        'rr-no-better-than-impli',
        'RR, without any coordination, is no better than IMPLI for parallel jobs (MPL_TOTAL 2-4, mean)',
        'Fig. 2.3 (left), §2.3.1: IMPLI close to RR in some cases, RR very poor',
        gap / mid.length,
        (v) => v >= 0,
        (v) => `mean slowdown RR - IMPLI: ${fmt2(v)}`,
      ),
    );
  }
  if (get(r.mpl_sweep, 'dyn', 5)) {
    const low = Math.min(...(['rr', 'dyn', 'impli'] as const).map((p) => get(r.mpl_sweep, p, 5)!.parallel.slowdown));
    f.push(
      finding(
        'slowdown-above-mpl-at-5',
        'At MPL_TOTAL = 5 every policy gives parallel jobs a slowdown above the MPL (5)',
        '§2.3.1: slowdown > MPL_TOTAL = 5 for the three policies',
        low,
        (v) => v > 5,
        (v) => `lowest parallel slowdown at MPL 5: ${fmt2(v)}`,
      ),
    );
  }
  const hi = [2, 3, 4, 5].filter((m) => get(r.mpl_sweep, 'dyn', m));
  if (hi.length > 0) {
    const mean = (p: Policy, k: 'slowdown' | 'overhead') => hi.reduce((a, m) => a + get(r.mpl_sweep, p, m)!.local[k], 0) / hi.length;
    const cost = Math.min(mean('dyn', 'slowdown') - mean('rr', 'slowdown'), mean('impli', 'slowdown') - mean('rr', 'slowdown'));
    f.push(
      finding(
        'coscheduling-costs-locals',
        'DYN and IMPLI inflict a higher slowdown on local tasks than RR (MPL_TOTAL 2-5, mean)',
        'Fig. 2.4, §2.3.1: DYN and IMPLI above RR',
        cost,
        (v) => v > 0,
        (v) => `min(DYN, IMPLI) - RR local slowdown: ${fmt2(v)}`,
      ),
    );
    let margin = Infinity;
    for (const m of hi) margin = Math.min(margin, get(r.mpl_sweep, 'impli', m)!.local.overhead - get(r.mpl_sweep, 'dyn', m)!.local.overhead);
    f.push(
      finding(
        'dyn-local-overhead-below-impli',
        "DYN's local overhead is always below IMPLI's (MNO = 2 bounds the overtakes)",
        'Fig. 2.4, §2.3.1: DYN overhead always below IMPLI',
        margin,
        (v) => v > 0,
        (v) => `smallest IMPLI - DYN local overhead: ${fmt2(v)} u.t.`,
      ),
    );
  }
  const csc = r.L_sweep.filter((x) => x.policy === 'csc').sort((a, b) => a.L - b.L);
  if (csc.length > 1) {
    let rise = Infinity;
    for (let i = 1; i < csc.length; i++) rise = Math.min(rise, csc[i]!.local.slowdown - csc[i - 1]!.local.slowdown);
    f.push(
      finding(
        'csc-local-slowdown-rises-with-L',
        'With CSC the slowdown of local tasks rises with the share L of the parallel tasks (MPL_TOTAL 3)',
        'Fig. 2.5 and §3.2-3.4: local slowdown falls as L is lowered',
        rise,
        (v) => v >= 0,
        (v) => `smallest step of local slowdown between consecutive L: ${fmt2(v)}`,
      ),
    );
  }
  const memMpls = [3, 4, 5].filter((m) => get(r.mem_sweep, 'dyn_mod', m));
  if (memMpls.length > 0) {
    const pf = (p: Policy) => memMpls.reduce((a, m) => a + get(r.mem_sweep, p, m)!.parallel.page_faults, 0);
    f.push(
      finding(
        'dyn-mod-fewer-page-faults',
        'With high memory demand, DYN_MOD (fewest page faults first) has fewer page faults than DYN (MPL_TOTAL 3-5)',
        'Fig. 2.8 (left), §2.3.2',
        pf('dyn_mod') / Math.max(pf('dyn'), 1e-9),
        (v) => v < 1,
        (v) => `DYN_MOD / DYN parallel page faults: ${fmt2(v)}`,
      ),
    );
  }
  const cscMpls = [3, 4, 5].filter((m) => get(r.mem_sweep, 'csc', m));
  if (cscMpls.length > 0) {
    const pf = (p: Policy) => cscMpls.reduce((a, m) => a + get(r.mem_sweep, p, m)!.parallel.page_faults, 0);
    f.push(
      finding(
        'csc-fewer-page-faults',
        'With high memory demand, CSC has far fewer page faults than DYN and RR (MPL_TOTAL 3-5)',
        'Fig. 3.11 (right), §3.6: CSC much smaller page-fault rate',
        pf('csc') / Math.max(Math.min(pf('dyn'), pf('rr')), 1e-9),
        (v) => v < 1,
        (v) => `CSC / min(DYN, RR) parallel page faults: ${fmt2(v)}`,
      ),
    );
  }
  const below5 = [1, 2, 3, 4].filter((m) => get(r.mem_sweep, 'csc', m));
  if (below5.length > 0) {
    f.push(
      finding(
        'csc-local-slowdown-below-2.5',
        'With high memory demand, CSC keeps the slowdown of local tasks below 2.5 for MPL_TOTAL < 5',
        'Fig. 3.12 (right), §3.6: below 2.5',
        Math.max(...below5.map((m) => get(r.mem_sweep, 'csc', m)!.local.slowdown)),
        (v) => v < 2.5,
        (v) => `largest CSC local slowdown at MPL < 5: ${fmt2(v)}`,
      ),
    );
  }
  return f;
}

/** The base keys the runs really used: runCosched sets seed, n_jobs and plt itself (reported apart). */
function usedBase(base: TimeSharingConfigInput | undefined): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...base };
  delete rest.seed;
  delete rest.n_jobs;
  delete rest.plt;
  return rest;
}

/** The reproduction as a ReproduceReport (tables flattened for the CLI). */
export function coschedReport(o: CoschedOptions): { report: ReproduceReport; result: CoschedResult } {
  const t0 = performance.now();
  const result = runCosched(o);
  const flat = (rows: (MplRow | LRow)[]) =>
    rows.map((r) => {
      const head: Record<string, number | string> = 'mpl' in r ? { policy: r.policy, mpl: r.mpl, mem_load: round(r.mem_load) } : { policy: r.policy, L: r.L };
      for (const kind of ['parallel', 'local'] as const) {
        for (const [k, v] of Object.entries(r[kind])) if (!(kind === 'local' && k === 'correlation')) head[`${kind}_${k}`] = round(v);
      }
      return head;
    });
  const report: ReproduceReport = {
    name: 'cosched',
    source: '../shared/seeds/003_d89361b369c26e89.txt (§2.2, §2.3.1-2.3.2, §3.6)',
    seed: o.seed,
    parameters: {
      wait: o.base?.wait ?? DEFAULT_WAIT,
      ...usedBase(o.base),
      jobs: o.jobs,
      mpls: o.mpls ?? [1, 2, 3, 4, 5],
      Ls: o.Ls ?? [0.25, 0.5, 0.75, 1],
      plt: 0.3,
    },
    tables: { mpl_sweep: flat(result.mpl_sweep), L_sweep: flat(result.L_sweep), mem_sweep: flat(result.mem_sweep) },
    findings: coschedFindings(result),
    seconds: (performance.now() - t0) / 1000,
  };
  return { report, result };
}

function round(v: number): number {
  return Number.isFinite(v) ? Math.round(v * 1000) / 1000 : Number.NaN;
}

/** CSV of a flattened table (rows with the same keys). */
export function tableCsv(rows: readonly Record<string, number | string>[]): string {
  if (rows.length === 0) return '';
  const keys = Object.keys(rows[0]!);
  const cell = (v: number | string | undefined) => (typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : String(v ?? ''));
  return `${[keys.join(','), ...rows.map((r) => keys.map((k) => cell(r[k])).join(','))].join('\n')}\n`;
}

/** One line per policy of `value` against `x`. */
function series<R extends { policy: Policy }>(rows: readonly R[], x: (r: R) => number, value: (r: R) => number): CurveSeries[] {
  const out = new Map<string, CurveSeries>();
  for (const r of rows) {
    let s = out.get(r.policy);
    if (!s) {
      s = { name: r.policy.toUpperCase(), points: [] };
      out.set(r.policy, s);
    }
    s.points.push({ x: x(r), y: value(r) });
  }
  return [...out.values()];
}

/**
 * Writes the tables as CSV (mpl_sweep.csv, L_sweep.csv, mem_sweep.csv) and the figures as SVG:
 * fig2_3_parallel_slowdown.svg, fig2_3_correlation.svg, fig2_4_local_slowdown.svg,
 * fig2_4_local_overhead.svg, fig2_5_L.svg (local and parallel slowdown against L) and
 * fig2_8_page_faults.svg.
 */
export function writeCoschedOutputs(out: string, report: ReproduceReport, r: CoschedResult): string[] {
  mkdirSync(out, { recursive: true });
  const files: string[] = [];
  const put = (name: string, text: string) => {
    writeFileSync(join(out, name), text);
    files.push(name);
  };
  for (const [name, rows] of Object.entries(report.tables)) put(`${name}.csv`, tableCsv(rows));
  const mpl = (x: MplRow) => x.mpl;
  const fig = (name: string, title: string, yLabel: string, s: CurveSeries[], xLabel = 'MPL_TOTAL') =>
    put(name, learningCurveSvg(s, { title, xLabel, yLabel, idPrefix: name.replace(/\W/g, '') }));
  fig(
    'fig2_3_parallel_slowdown.svg',
    'Parallel slowdown (cf. Fig. 2.3 left, Fig. 3.11)',
    'slowdown',
    series(r.mpl_sweep, mpl, (x) => x.parallel.slowdown),
  );
  fig(
    'fig2_3_correlation.svg',
    'Parallel correlation % (cf. Fig. 2.3 left)',
    'correlation',
    series(r.mpl_sweep, mpl, (x) => x.parallel.correlation),
  );
  fig(
    'fig2_4_local_slowdown.svg',
    'Local slowdown (cf. Fig. 2.4, Fig. 3.12 left)',
    'slowdown',
    series(r.mpl_sweep, mpl, (x) => x.local.slowdown),
  );
  fig(
    'fig2_4_local_overhead.svg',
    'Local overhead u.t. (cf. Fig. 2.4)',
    'overhead',
    series(r.mpl_sweep, mpl, (x) => x.local.overhead),
  );
  const lSeries: CurveSeries[] = [];
  for (const p of ['dyn', 'csc'] as const) {
    const rows = r.L_sweep.filter((x) => x.policy === p);
    lSeries.push({ name: `${p.toUpperCase()}(L) local`, points: rows.map((x) => ({ x: x.L * 100, y: x.local.slowdown })) });
    lSeries.push({ name: `${p.toUpperCase()}(L) parallel`, points: rows.map((x) => ({ x: x.L * 100, y: x.parallel.slowdown })) });
  }
  fig('fig2_5_L.svg', 'Slowdown against L at MPL_TOTAL 3 (cf. Fig. 2.5)', 'slowdown', lSeries, 'L (%)');
  fig(
    'fig2_8_page_faults.svg',
    'Page faults per task, high memory (cf. Fig. 2.8, Fig. 3.11 right)',
    'page faults',
    series(r.mem_sweep, mpl, (x) => x.parallel.page_faults),
  );
  return files;
}
