/**
 * Monitoring of the fairness preset (seed 001, §4.6 "Выходные данные симуляции"), a listener of the
 * engine (`attach`): the component
 * "собирает данные о мгновенной загрузке серверов и размере очереди, и агрегирует их, считая
 * среднее значение на заданных временных промежутках", plus the dominant share of each user over
 * time (§5.2, Figures 5.3 and 5.4).
 *
 * Every signal is piecewise constant between events, so its average over an interval
 * `[a, b)` is its time integral divided by `b - a`. Each signal is integrated lazily: it carries the
 * time of its last change, and only a change (`set`) or the end of an interval touches it. A task
 * start or end therefore costs O(1) per changed signal (cluster load, its host, its user, the
 * queue), never a walk over all hosts or users; the walk happens once per interval.
 *
 * Rows (one per interval, `time` = the interval's start):
 * - `load`: `time, cpu, memory, queue` — cluster-wide used/capacity per resource and the mean
 *   number of waiting tasks;
 * - `shares`: `time, <user>...` — each user's mean dominant share `max(cpu_u / C, mem_u / M)`;
 * - `hosts` (optional, `hostLoad: true`): `time, <host>.cpu, <host>.memory...`.
 */
import { csvField } from '../core/csv.js';
import type { MultiResourcePasses } from '../scheduling/multiResource.js';
import type { RunningJob } from '../execution/simulator.js';

/** Piecewise-constant signals integrated lazily over the current interval. */
export class LazyIntegrator {
  private value: number[] = [];
  private last: number[] = [];
  private acc: number[] = [];

  constructor(private start: number) {}

  /** Number of signals. */
  get count(): number {
    return this.value.length;
  }

  /** Signal `i` takes value `v` from time `t` on (signals are created at 0 on first use). */
  set(i: number, t: number, v: number): void {
    while (this.value.length <= i) {
      this.value.push(0);
      this.last.push(this.start);
      this.acc.push(0);
    }
    this.acc[i]! += this.value[i]! * (t - this.last[i]!);
    this.last[i] = t;
    this.value[i] = v;
  }

  /** The averages over `[start, end)`; starts the next interval at `end`. */
  flush(end: number): number[] {
    const len = end - this.start;
    const out = new Array<number>(this.value.length);
    for (let i = 0; i < this.value.length; i++) {
      const a = this.acc[i]! + this.value[i]! * (end - this.last[i]!);
      out[i] = len > 0 ? a / len : this.value[i]!;
      this.acc[i] = 0;
      this.last[i] = end;
    }
    this.start = end;
    return out;
  }
}

/** One interval's averages. */
export interface MonitorRow {
  /** Start of the interval. */
  time: number;
  /** Cluster CPU load (used / total). */
  cpu: number;
  /** Cluster memory load. */
  memory: number;
  /** Mean queue length. */
  queue: number;
  /** Mean dominant share per user index (users that appeared so far). */
  shares: number[];
  /** Per host: [cpu load, memory load] of each host (only with `hostLoad`). */
  hosts?: number[];
}

/** Options of the monitor. */
export interface MonitorOptions {
  /** Interval length (> 0, the thesis's `host_load_compression_time_interval`). */
  interval: number;
  /** Also average each host's load per resource. */
  hostLoad?: boolean;
  /** Where rows go (default: kept in `rows`). */
  sink?: (row: MonitorRow) => void;
}

/**
 * The monitor: `advance(t)` before the state changes at time `t`, then the signals that change; `attach`
 * makes it a listener of the preset's engine, which does both.
 */
export class Monitor {
  /** Rows kept when no sink is given. */
  readonly rows: MonitorRow[] = [];
  private readonly cluster: LazyIntegrator;
  private readonly shares: LazyIntegrator;
  private readonly hostsI: LazyIntegrator | null;
  private nextBoundary: number;
  private readonly interval: number;

  constructor(
    private readonly options: MonitorOptions,
    start = 0,
  ) {
    if (!(options.interval > 0 && Number.isFinite(options.interval))) throw new RangeError(`monitor interval must be > 0, found ${options.interval}`);
    this.interval = options.interval;
    this.cluster = new LazyIntegrator(start);
    this.shares = new LazyIntegrator(start);
    this.hostsI = options.hostLoad ? new LazyIntegrator(start) : null;
    this.nextBoundary = start + options.interval;
  }

  /**
   * Listens to the engine of `passes` (attach before the run starts, after the passes): every host and
   * every user known so far has a signal (0) from time 0, so that rows have a column for each; a user
   * first named later gets its signal (0) when it first arrives. Then the clock's moves close intervals,
   * and each start or end sets its host's load, its user's dominant share and the cluster's loads and
   * queue, each arrival the cluster's.
   */
  attach(passes: MultiResourcePasses): void {
    const { sim, hosts, users, waiting } = passes;
    let known = users.count;
    for (let u = 0; u < known; u++) this.share(u, 0, 0);
    for (let h = 0; h < hosts.count; h++) this.host(h, 0, 0, 0);
    const cluster = () => this.cluster3(sim.now, hosts.usedCpu / hosts.totalCpu, hosts.usedMem / hosts.totalMem, waiting.size);
    const observe = (rj: RunningJob) => {
      const h = rj.nodes[0]!;
      const u = passes.userOf(rj);
      this.host(h, sim.now, 1 - hosts.freeCpu[h]! / hosts.cpuCap[h]!, 1 - hosts.freeMem[h]! / hosts.memCap[h]!);
      this.share(u, sim.now, users.dominantShare(u));
      cluster();
    };
    const arrive = () => {
      for (let u = known; u < users.count; u++) this.share(u, sim.now, 0);
      known = users.count;
      cluster();
    };
    sim.addListener({
      onAdvance: (_s, _from, to) => this.advance(to),
      onSubmit: arrive,
      onReject: arrive,
      onStart: (_s, rj) => observe(rj),
      onEnd: (_s, _rec, rj) => observe(rj!),
    });
  }

  /** Closes every interval that ends at or before `t`. */
  advance(t: number): void {
    while (t >= this.nextBoundary) this.emit(this.nextBoundary);
  }

  /** Cluster load and queue changed at `t` (fractions of the totals). */
  cluster3(t: number, cpu: number, memory: number, queue: number): void {
    this.cluster.set(0, t, cpu);
    this.cluster.set(1, t, memory);
    this.cluster.set(2, t, queue);
  }

  /** User `u`'s dominant share changed at `t`. */
  share(u: number, t: number, share: number): void {
    this.shares.set(u, t, share);
  }

  /** Host `h`'s load changed at `t`. */
  host(h: number, t: number, cpu: number, memory: number): void {
    if (this.hostsI === null) return;
    this.hostsI.set(2 * h, t, cpu);
    this.hostsI.set(2 * h + 1, t, memory);
  }

  /** Closes the last, possibly partial, interval at `end` (the end of the run). */
  finish(end: number): void {
    this.advance(end);
    const start = this.nextBoundary - this.interval;
    if (end > start) this.emit(end);
  }

  private emit(end: number): void {
    const start = this.nextBoundary - this.interval;
    const c = this.cluster.flush(end);
    const row: MonitorRow = { time: start, cpu: c[0] ?? 0, memory: c[1] ?? 0, queue: c[2] ?? 0, shares: this.shares.flush(end) };
    if (this.hostsI) row.hosts = this.hostsI.flush(end);
    if (this.options.sink) this.options.sink(row);
    else this.rows.push(row);
    this.nextBoundary = end + this.interval;
  }
}

/** `time,cpu,memory,queue` CSV of monitor rows. */
export function loadCsv(rows: readonly MonitorRow[]): string {
  const lines = ['time,cpu,memory,queue'];
  for (const r of rows) lines.push(`${r.time},${r.cpu},${r.memory},${r.queue}`);
  return `${lines.join('\n')}\n`;
}

/** `time,<user>...` CSV of the mean dominant shares (0 for users not yet seen). */
export function sharesCsv(rows: readonly MonitorRow[], userNames: readonly string[]): string {
  const lines = [['time', ...userNames.map(csvField)].join(',')];
  for (const r of rows) lines.push([r.time, ...userNames.map((_, u) => r.shares[u] ?? 0)].join(','));
  return `${lines.join('\n')}\n`;
}

/** `time,<host>.cpu,<host>.memory...` CSV of per-host loads (rows from a monitor with `hostLoad`). */
export function hostsCsv(rows: readonly MonitorRow[], hostNames: readonly string[]): string {
  const lines = [['time', ...hostNames.flatMap((h) => [csvField(`${h}.cpu`), csvField(`${h}.memory`)])].join(',')];
  for (const r of rows) lines.push([r.time, ...hostNames.flatMap((_, h) => [r.hosts?.[2 * h] ?? 0, r.hosts?.[2 * h + 1] ?? 0])].join(','));
  return `${lines.join('\n')}\n`;
}
