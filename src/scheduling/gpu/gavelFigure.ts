/**
 * Gavel's Figure 9 on the one engine (docs/gavel-reproduction.md): mean job completion time (JCT)
 * against the input job rate on 36 V100 + 36 P100 + 36 K80 GPUs (one GPU per server, Gavel's default),
 * heterogeneity-agnostic max-min fairness ("LAS") against the heterogeneity-aware one ("Gavel"), on
 * Gavel's generator (multi-GPU jobs, `src/workload/gavel.ts`) and throughput table, rounds of 360 s.
 *
 * One point: a policy, an input rate and a seed. Jobs stream from the generator (Poisson arrivals at
 * the rate, seeded as Gavel seeds them); the metric is the mean JCT (end minus arrival) of the jobs
 * with ids in `[from, to)` (Gavel's `-s 4000 -e 5000`); the run stops once they have all ended (the
 * jobs before them warm the cluster up, those after keep it loaded), or at `maxHours` of simulated time
 * after the window's last arrival, when the point is reported unfinished (`jct` NaN), as Gavel's
 * notebook leaves 3.0 jobs/h out.
 *
 * As in Gavel's simulator, DL jobs run at the table's one-server rate whatever their servers
 * (`DlProgress` with `spreadRates: false`), and the round mechanism is `GavelRounds` (`rounds.ts`).
 */
import { DlProgress } from '../../execution/dlProgress.js';
import type { Finding, ReproduceReport } from '../../report/findings.js';
import { learningCurveSvg } from '../../report/learningCurve.js';
import { ClusterSimulator } from '../../execution/simulator.js';
import type { Platform } from '../../platform/platform.js';
import { platformFromNodeGroups } from '../../platform/views.js';
import type { ThroughputTable } from '../../workload/dlThroughput.js';
import { gavelJobs } from '../../workload/gavel.js';
import { GavelRounds } from './rounds.js';

/** The figure's two policies: Gavel's names (the paper's "LAS" and "Gavel"). */
export const FIGURE_POLICIES = ['max_min_fairness', 'max_min_fairness_perf'] as const;
/** One of them. */
export type FigurePolicy = (typeof FIGURE_POLICIES)[number];

/**
 * The target: the mean JCT (hours) of jobs 4000-4999 for seed 0 printed by Gavel's notebook
 * (`continuous_jobs_multigpu.ipynb`, commit c4fa400), per input rate (jobs/h): [LAS, Gavel].
 */
export const PAPER_SEED0_JCT: Readonly<Record<string, readonly [number, number]>> = {
  '0.2': [25.93, 18.55],
  '0.4': [25.92, 18.58],
  '0.6': [25.88, 18.59],
  '0.8': [26.08, 18.51],
  '1.0': [26.1, 18.54],
  '1.2': [26.1, 18.49],
  '1.4': [26.23, 18.55],
  '1.6': [26.51, 19.12],
  '1.8': [27.29, 20.35],
  '2.0': [28.91, 21.9],
  '2.2': [30.82, 24.61],
  '2.4': [38.71, 30.03],
  '2.6': [70.54, 36.44],
  '2.8': [169.93, 55.78],
};

/** Gavel's evaluation cluster: `perType` servers of one GPU of each of V100, P100, K80 (8 cores each). */
export function gavelCluster(perType = 36): Platform {
  return platformFromNodeGroups({
    groups: ['v100', 'p100', 'k80'].map((type) => ({ name: type, count: perType, cores: 8, gpus: { count: 1, type } })),
  });
}

/** One point of the figure. */
export interface FigurePoint {
  policy: FigurePolicy;
  rate: number;
  seed: number;
  /** Mean JCT of the window's jobs, hours (NaN when unfinished). */
  jct: number;
  /** Window jobs that ended. */
  ended: number;
  /** Simulated hours, allocations computed, preemptions, wall seconds. */
  hours: number;
  allocations: number;
  preemptions: number;
  seconds: number;
}

/** Options of a point. */
export interface PointOptions {
  /** The window of job ids `[from, to)` (4000, 5000). */
  from: number;
  to: number;
  /** Round length, s (360). */
  round?: number;
  /** GPUs of each type (36). */
  perType?: number;
  /** Give up this many simulated hours after the window's last arrival (default 2,000). */
  maxHours?: number;
}

/** Runs one point (see the module comment). */
export function runFigurePoint(table: ThroughputTable, policy: FigurePolicy, rate: number, seed: number, o: PointOptions): FigurePoint {
  const t0 = performance.now();
  const round = o.round ?? 360;
  const platform = gavelCluster(o.perType ?? 36);
  const dl = new DlProgress(table, { spreadRates: false });
  // jobs beyond the window keep coming until the window is done (Gavel generates them on the fly)
  const jobs = gavelJobs({ jobs: 10_000_000, arrivalsPerHour: rate }, seed, table);
  const sim = new ClusterSimulator(platform, jobs, { progress: [dl], passClock: { every: round }, workloadName: `gavel(rate=${rate}, seed=${seed})` });
  const scheduler = new GavelRounds(policy, dl, { round, seed });
  sim.setScheduler(scheduler);
  let sum = 0;
  let ended = 0;
  let lastArrival = Number.NaN;
  let preemptions = 0;
  sim.addListener({
    onSubmit: (_s, job) => {
      if (Number(job.id) === o.to - 1) lastArrival = job.subtime;
    },
    onRequeue: () => void preemptions++,
    onEnd: (_s, rec) => {
      const id = Number(rec.job.id);
      if (id >= o.from && id < o.to) {
        sum += rec.finish - rec.submit;
        ended++;
      }
    },
  });
  const want = o.to - o.from;
  const cap = (o.maxHours ?? 2000) * 3600;
  // a day at a time until the window's jobs have all ended, or the cap
  while (ended < want && !sim.done) {
    if (!Number.isNaN(lastArrival) && sim.now > lastArrival + cap) break;
    sim.runUntil(sim.now + 86_400);
  }
  return {
    policy,
    rate,
    seed,
    jct: ended === want ? sum / want / 3600 : Number.NaN,
    ended,
    hours: sim.now / 3600,
    allocations: scheduler.allocations,
    preemptions,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** Options of the reproduction. */
export interface GavelFigureOptions extends PointOptions {
  /** The throughput table (Gavel's). */
  table: ThroughputTable;
  /** Input job rates, jobs/h (the figure: 0.2 to 3.0 by 0.2). */
  rates: readonly number[];
  /** Seeds (the figure's line: 0, 1, 2). */
  seeds: readonly number[];
}

/** The figure's input rates: 0.2 to 3.0 jobs/h by 0.2. */
export const FIGURE_RATES: readonly number[] = Array.from({ length: 15 }, (_, i) => Math.round((i + 1) * 2) / 10);

const key = (rate: number) => rate.toFixed(1);

/** The paper's seed-0 JCT of `policy` at `rate` (hours), or NaN when it printed none. */
export function paperJct(policy: FigurePolicy, rate: number): number {
  const row = PAPER_SEED0_JCT[key(rate)];
  return row === undefined ? Number.NaN : row[policy === 'max_min_fairness' ? 0 : 1];
}

/** Runs every point of `o` (rates x policies x seeds), logging each. */
export function runFigure(o: GavelFigureOptions, log: (line: string) => void = () => {}): FigurePoint[] {
  const out: FigurePoint[] = [];
  for (const seed of o.seeds)
    for (const rate of o.rates)
      for (const policy of FIGURE_POLICIES) {
        const p = runFigurePoint(o.table, policy, rate, seed, o);
        log(
          `${policy} rate ${key(rate)} seed ${seed}: mean JCT ${Number.isNaN(p.jct) ? `unfinished (${p.ended} of ${o.to - o.from} ended)` : `${p.jct.toFixed(2)} h`} (${p.seconds.toFixed(1)} s)`,
        );
        out.push(p);
      }
  return out;
}

/** One line of the figure's table: a rate, both policies' JCT (seed 0 or a mean over seeds), the paper's. */
export interface FigureRow {
  rate: number;
  agnostic: number;
  aware: number;
  paperAgnostic: number;
  paperAware: number;
}

/** The rows of `points` for seed `seed`, or the mean over all seeds (`seed` undefined; NaN when any seed is unfinished). */
export function figureRows(points: readonly FigurePoint[], rates: readonly number[], seed?: number): FigureRow[] {
  const mean = (policy: FigurePolicy, rate: number) => {
    const ps = points.filter((p) => p.policy === policy && p.rate === rate && (seed === undefined || p.seed === seed));
    return ps.length === 0 ? Number.NaN : ps.reduce((s, p) => s + p.jct, 0) / ps.length;
  };
  return rates.map((rate) => ({
    rate,
    agnostic: mean('max_min_fairness', rate),
    aware: mean('max_min_fairness_perf', rate),
    paperAgnostic: paperJct('max_min_fairness', rate),
    paperAware: paperJct('max_min_fairness_perf', rate),
  }));
}

/** The lowest rate at which a JCT series exceeds twice its value at 0.4 jobs/h (or is unfinished), or NaN. */
export function saturationRate(rows: readonly FigureRow[], which: 'agnostic' | 'aware'): number {
  const base = rows.find((r) => key(r.rate) === '0.4')?.[which];
  if (base === undefined || Number.isNaN(base)) return Number.NaN;
  for (const r of rows) if (r.rate > 0.4 && (Number.isNaN(r[which]) || r[which] > 2 * base)) return r.rate;
  return Number.NaN;
}

/** The figure's load ranges (docs/gavel-reproduction.md, the band fixed before any run). */
const LOW = (r: number) => r <= 1.6 + 1e-9;
const RISING = (r: number) => r > 1.6 + 1e-9 && r <= 2.4 + 1e-9;

const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
const hours = (v: number) => (Number.isNaN(v) ? 'unfinished' : `${v.toFixed(2)} h`);

/** The band's findings on `rows` (one seed, or the mean over seeds: `what` says which). */
export function figureFindings(rows: readonly FigureRow[], what: string): Finding[] {
  const out: Finding[] = [];
  const low = rows.filter((r) => LOW(r.rate) && !Number.isNaN(r.paperAware));
  const rising = rows.filter((r) => RISING(r.rate));
  if (low.length > 0) {
    for (const [which, paper, name] of [
      ['aware', 'paperAware', 'Gavel (heterogeneity-aware)'],
      ['agnostic', 'paperAgnostic', 'LAS (heterogeneity-agnostic)'],
    ] as const) {
      const dev = low.map((r) => r[which] / r[paper] - 1);
      const worst = dev.reduce((w, d, i) => (Math.abs(d) > Math.abs(dev[w]!) || Number.isNaN(d) ? i : w), 0);
      out.push({
        id: `low-load-${which}-${what}`,
        claim: `at low load (0.2-1.6 jobs/h) the mean JCT of ${name} is the figure's within 15 % (${what})`,
        paper: `${low.map((r) => r[paper].toFixed(1)).join(', ')} h`,
        measured: `${low.map((r) => r[which].toFixed(1)).join(', ')} h (worst ${pct(dev[worst]!)} at ${low[worst]!.rate} jobs/h)`,
        holds: dev.every((d) => Math.abs(d) <= 0.15),
      });
    }
    const margins = low.map((r) => r.agnostic / r.aware - r.paperAgnostic / r.paperAware);
    out.push({
      id: `low-load-margin-${what}`,
      claim: `at low load the agnostic policy's JCT over the aware one's is the figure's within 0.15 (${what})`,
      paper: low.map((r) => (r.paperAgnostic / r.paperAware).toFixed(2)).join(', '),
      measured: low.map((r) => (r.agnostic / r.aware).toFixed(2)).join(', '),
      holds: margins.every((d) => Math.abs(d) <= 0.15),
    });
  }
  if (rising.length > 0) {
    out.push({
      id: `rising-load-${what}`,
      claim: `at rising load (1.8-2.4 jobs/h) the aware policy's mean JCT is below the agnostic one's and their ratio is the figure's within 0.25 (${what})`,
      paper: rising.map((r) => `${r.rate}: ${(r.paperAgnostic / r.paperAware).toFixed(2)}`).join(', '),
      measured: rising.map((r) => `${r.rate}: ${(r.agnostic / r.aware).toFixed(2)}`).join(', '),
      holds: rising.every((r) => r.aware < r.agnostic && Math.abs(r.agnostic / r.aware - r.paperAgnostic / r.paperAware) <= 0.25),
    });
  }
  const hasBase = rows.some((r) => key(r.rate) === '0.4');
  const sAgn = saturationRate(rows, 'agnostic');
  if (hasBase && !Number.isNaN(sAgn)) {
    const sAware = saturationRate(rows, 'aware');
    const top = rows[rows.length - 1]!.rate;
    out.push({
      id: `saturation-${what}`,
      claim: `the agnostic policy saturates first, at least 0.2 jobs/h before the aware one (the lowest rate whose JCT exceeds twice the one at 0.4 jobs/h) (${what})`,
      paper: 'LAS 2.6, Gavel 2.8 jobs/h',
      measured: `agnostic ${sAgn}, aware ${Number.isNaN(sAware) ? `above ${top}` : sAware} jobs/h`,
      holds: Number.isNaN(sAware) ? top >= sAgn + 0.2 - 1e-9 : sAware >= sAgn + 0.2 - 1e-9,
    });
  }
  return out;
}

/** Runs the reproduction: the report (tables `seed<S>`, `mean` and `points`, the findings) and the chart. */
export function reproduceGavelFigure(
  o: GavelFigureOptions,
  log: (line: string) => void = () => {},
): { report: ReproduceReport; files: Record<string, string> } {
  const t0 = performance.now();
  const points = runFigure(o, log);
  const first = o.seeds[0]!;
  const bySeed = figureRows(points, o.rates, first);
  const findings = figureFindings(bySeed, `seed ${first}`);
  const tables: ReproduceReport['tables'] = {
    [`seed${first}`]: bySeed.map((r) => ({ ...r })),
    points: points.map((p) => ({ ...p })),
  };
  let mean: FigureRow[] | undefined;
  if (o.seeds.length > 1) {
    mean = figureRows(points, o.rates);
    findings.push(...figureFindings(mean, `mean of seeds ${o.seeds.join(', ')}`));
    tables.mean = mean.map((r) => ({ ...r }));
  }
  const shown = mean ?? bySeed;
  const line = (name: string, pick: (r: FigureRow) => number) => ({
    name,
    points: shown.filter((r) => !Number.isNaN(pick(r))).map((r) => ({ x: r.rate, y: pick(r) })),
  });
  const svg = learningCurveSvg(
    [
      line('LAS (agnostic), this run', (r) => r.agnostic),
      line('Gavel (aware), this run', (r) => r.aware),
      line("LAS, Gavel's notebook (seed 0)", (r) => r.paperAgnostic),
      line("Gavel, Gavel's notebook (seed 0)", (r) => r.paperAware),
    ],
    {
      title: `Mean JCT of jobs ${o.from}-${o.to - 1} vs input rate (Gavel, Figure 9)`,
      xLabel: 'input job rate (jobs/h)',
      yLabel: 'mean JCT (h)',
      idPrefix: 'gavel-fig9',
    },
  );
  return {
    report: {
      name: 'gavel',
      source: 'Narayanan et al., OSDI 2020, Figure 9 (github.com/stanford-futuredata/gavel, commit c4fa400; docs/gavel-reproduction.md)',
      seed: first,
      parameters: { rates: o.rates, seeds: o.seeds, from: o.from, to: o.to, round: o.round ?? 360, perType: o.perType ?? 36, maxHours: o.maxHours ?? 2000 },
      tables,
      findings,
      seconds: (performance.now() - t0) / 1000,
    },
    files: { 'gavel-figure9.svg': svg },
  };
}

/** The figure's table as text rows (rate, both policies, the paper's, the ratio). */
export function figureTableRows(rows: readonly Record<string, number | string>[]): string[][] {
  return rows.map((r) => {
    const a = Number(r.agnostic);
    const g = Number(r.aware);
    return [
      Number(r.rate).toFixed(1),
      hours(a),
      hours(g),
      (a / g).toFixed(2),
      Number.isNaN(Number(r.paperAgnostic)) ? '-' : `${Number(r.paperAgnostic).toFixed(2)} / ${Number(r.paperAware).toFixed(2)}`,
      Number.isNaN(Number(r.paperAgnostic)) ? '-' : (Number(r.paperAgnostic) / Number(r.paperAware)).toFixed(2),
    ];
  });
}
