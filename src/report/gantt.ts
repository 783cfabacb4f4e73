/**
 * Gantt chart of one trajectory: cores on the y axis (core 0 at the top), grouped by node with the
 * node names on the left and a line at every node boundary; time on the x axis. Every job is a
 * bar on each core it held, from its start until it released that core (its finish, or the end of
 * that core's task for `seq` jobs when per-core release times are given). The colour comes from a
 * stable hash of the job id, so a job keeps its colour across plots and runs.
 *
 * To keep the file small for thousands of jobs on hundreds of cores, the cores of a job are merged
 * into one rectangle per run of consecutive core ids on the same node with the same release time
 * (a 64-core job on one node is one `<rect>`). Runs are split at node boundaries on purpose: an MPI
 * job that spans several nodes shows its blocks on each node outlined and hatched (one hatch path
 * per job over all its blocks), joined by a thin vertical connector at the middle of its run time
 * with a dot on each node it uses, so a job spread over the machine is seen at once.
 * MPI jobs on a single node are outlined without hatching. Each job is a `<g>` with a `<title>`
 * (a tooltip when the SVG is opened on its own: id, type, tasks, nodes, start, finish, run time).
 *
 * Communication time: a job whose progress was limited by communication for `c` seconds (`commTime`,
 * the simulator's `S_comm < 1` time under the `step`, `shared` and `flow` models) gets a dark shade over
 * the last `c` seconds of each of its blocks (the length is the total; the intervals themselves are not
 * kept), and its tooltip says `communication-limited c s (p% of its run)`. The legend names the shade
 * only when some job has one.
 *
 * Geometry, with `left` the left margin, `W` the width, `R` the row height and `[t0, t1]` the time
 * range: the plot spans x in `[left, W - 16]` and y in `[60, 60 + coreCount * R]`; core `c` is the
 * row `y = 60 + c * R`; time `t` is at `x = left + (t - t0) / (t1 - t0) * (W - 16 - left)`. By
 * default `t0 = min(0, first start)` and `t1` is the last finish.
 */
import { type Axis, type PlotOptions, escapeXml, fmt, formatValue, hashColour, linear, niceAxis, svgDocument, text, xAxis } from './svg.js';

/** A node: a contiguous block of core ids. */
export interface GanttNode {
  name: string;
  firstCore: number;
  coreCount: number;
}

/** A job of the trajectory as it ran. */
export interface GanttJob {
  id: string;
  type: 'seq' | 'mpi';
  start: number;
  finish: number;
  /** Core ids it held (a job with no cores, e.g. rejected, is not drawn). */
  cores: ArrayLike<number>;
  /** Node ids it ran on (used when `GanttInput.nodes` does not cover its cores). */
  nodes: ArrayLike<number>;
  /** Number of tasks for the tooltip (default: the number of distinct cores). */
  ntasks?: number;
  /** Per entry of `cores`, the time that core was released (default: `finish` for every core). */
  releases?: ArrayLike<number>;
  /** Seconds of its run limited by communication (drawn as a dark shade at the end of its blocks; default 0). */
  commTime?: number;
}

/** Input of `ganttSvg`. */
export interface GanttInput {
  coreCount: number;
  nodes: GanttNode[];
  jobs: GanttJob[];
}

/** Options of `ganttSvg`. */
export interface GanttOptions extends PlotOptions {
  /** Height of one core row in px (default `clamp(640 / coreCount, 1.5, 14)`). */
  rowHeight?: number;
  /** Left margin in px (default: room for the node names, and core numbers when rows are 9 px or taller). */
  marginLeft?: number;
  /** Time window to draw (default: `[min(0, first start), last finish]`); bars are clipped to it. */
  timeRange?: [number, number];
  /** x axis title (default `time (s)`). */
  xLabel?: string;
}

/** Top of the plot area (below the heading and the legend). */
export const GANTT_TOP = 60;
/** Right margin of the plot area. */
export const GANTT_RIGHT = 16;

/** One rectangle of a job: cores `first..first+count-1` of node `node`, held until `end`. */
export interface GanttRun {
  first: number;
  count: number;
  node: number;
  end: number;
}

function nodeOfCores(input: GanttInput): Int32Array {
  const map = new Int32Array(input.coreCount).fill(-1);
  input.nodes.forEach((n, i) => {
    if (!Number.isInteger(n.firstCore) || !Number.isInteger(n.coreCount) || n.firstCore < 0 || n.coreCount < 0 || n.firstCore + n.coreCount > input.coreCount) {
      throw new RangeError(`ganttSvg: node ${i} (${n.name}) covers cores ${n.firstCore}..${n.firstCore + n.coreCount - 1}, outside 0..${input.coreCount - 1}`);
    }
    for (let c = n.firstCore; c < n.firstCore + n.coreCount; c++) map[c] = i;
  });
  return map;
}

/**
 * Splits a job's cores into runs of consecutive core ids on the same node released at the same
 * time, ascending by core id (duplicate core ids keep their latest release). Throws a `RangeError`
 * naming the job for a core outside `0..coreCount-1` or a release time that is not finite or
 * precedes the job's start.
 */
export function jobRuns(job: GanttJob, coreCount: number, coreNode?: Int32Array): GanttRun[] {
  const n = job.cores.length;
  const held = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const c = job.cores[i]!;
    if (!Number.isInteger(c) || c < 0 || c >= coreCount)
      throw new RangeError(`ganttSvg: job ${JSON.stringify(job.id)} holds core ${c}, outside 0..${coreCount - 1}`);
    const end = job.releases ? job.releases[i]! : job.finish;
    if (!(Number.isFinite(end) && end >= job.start))
      throw new RangeError(`ganttSvg: job ${JSON.stringify(job.id)} releases core ${c} at ${end}, before its start (${job.start}) or not finite`);
    const prev = held.get(c);
    held.set(c, prev === undefined ? end : Math.max(prev, end));
  }
  const cores = [...held.keys()].sort((a, b) => a - b);
  const runs: GanttRun[] = [];
  for (const c of cores) {
    const end = held.get(c)!;
    const node = coreNode ? coreNode[c]! : -1;
    const last = runs[runs.length - 1];
    if (last && last.first + last.count === c && last.node === node && last.end === end) last.count++;
    else runs.push({ first: c, count: 1, node, end });
  }
  return runs;
}

/**
 * The Gantt chart of one trajectory as a standalone SVG document (deterministic for the same
 * input). Throws a `RangeError` naming the job or node for a core outside the machine, a start,
 * finish or release time that is not finite or comes before the start, and a node outside
 * `0..coreCount-1`.
 *
 * Drawn back to front: node bands, the time axis and its grid, the jobs, then node boundaries and
 * labels over the bars, and the legend above the plot.
 */
export function ganttSvg(input: GanttInput, opts: GanttOptions = {}): string {
  const { coreCount } = input;
  if (!Number.isInteger(coreCount) || coreCount <= 0) throw new RangeError(`ganttSvg: coreCount must be a positive integer, got ${coreCount}`);
  const coreNode = nodeOfCores(input);
  checkJobTimes(input.jobs);
  const drawn = input.jobs.filter((j) => j.cores.length > 0);
  const f = ganttFrame(input, opts, drawn);
  const jobs = jobsLayer(input, drawn, coreNode, f);

  let body = nodeBands(input.nodes, f);
  body += xAxis(f.xa, f.sx, f.bottom, f.x0, f.x1, opts.xLabel ?? 'time (s)', { top: f.top });
  body += jobs.svg;
  body += nodeBoundaries(input.nodes, f);
  body += nodeLabels(input, f);
  body += legend(
    f,
    drawn.some((j) => (j.commTime ?? 0) > 0),
  );

  const desc =
    `Gantt chart of ${drawn.length} jobs (${jobs.seq} seq, ${jobs.mpi} MPI, ${jobs.multiNode} spanning several nodes) on ` +
    `${coreCount} cores in ${input.nodes.length} nodes, time ${formatValue(f.t0)} to ${formatValue(f.t1)} s.`;
  const title = opts.title ?? 'Schedule (Gantt chart)';
  return svgDocument({ width: f.width, height: f.height, title, desc, idPrefix: f.p }, hatchPattern(f.p), body);
}

/** The geometry of one chart: sizes, the plot area, core rows and the time scale (see the module comment). */
interface GanttFrame {
  coreCount: number;
  width: number;
  height: number;
  /** Height of one core row. */
  rowH: number;
  /** Whether rows are tall enough for core numbers. */
  coreLabels: boolean;
  /** Plot area: x in `[x0, x1]`, y in `[top, bottom]` (`bottom = top + plotH`). */
  x0: number;
  x1: number;
  top: number;
  plotH: number;
  bottom: number;
  /** Prefix of the document's ids. */
  p: string;
  /** The time axis and the drawn window `[t0, t1]` (the axis' domain). */
  xa: Axis;
  t0: number;
  t1: number;
  /** Time to x. */
  sx: (t: number) => number;
  /** Core to the y of the top of its row. */
  rowY: (c: number) => number;
}

/** Throws a `RangeError` naming the first job whose start or finish is not finite, or that finishes before it starts. */
function checkJobTimes(jobs: readonly GanttJob[]): void {
  for (const j of jobs) {
    if (!Number.isFinite(j.start) || !Number.isFinite(j.finish))
      throw new RangeError(`ganttSvg: job ${JSON.stringify(j.id)} has a non-finite start (${j.start}) or finish (${j.finish})`);
    if (!(j.finish >= j.start)) throw new RangeError(`ganttSvg: job ${JSON.stringify(j.id)} finishes (${j.finish}) before it starts (${j.start})`);
  }
}

/** Lays out the chart: margins from the node names, the row height, and the time axis over the drawn jobs (or `opts.timeRange`). */
function ganttFrame(input: GanttInput, opts: GanttOptions, drawn: readonly GanttJob[]): GanttFrame {
  const { coreCount } = input;
  const width = opts.width ?? 1100;
  const rowH = opts.rowHeight ?? Math.max(1.5, Math.min(14, 640 / coreCount));
  const coreLabels = rowH >= 9;
  const maxName = Math.max(0, ...input.nodes.map((n) => n.name.length));
  const x0 = opts.marginLeft ?? Math.max(70, Math.ceil(30 + maxName * 6.6 + (coreLabels ? 28 : 8)));
  const x1 = width - GANTT_RIGHT;
  const top = GANTT_TOP;
  const plotH = coreCount * rowH;
  const bottom = top + plotH;
  const [t0, t1] = opts.timeRange ?? defaultTimeRange(drawn);
  // The axis sanitises the window (a degenerate or unresolvable range is widened around its value).
  const xa = niceAxis(t0, t1 > t0 ? t1 : t0 + 1, Math.max(2, Math.round((x1 - x0) / 110)), false);
  return {
    coreCount,
    width,
    height: bottom + 52,
    rowH,
    coreLabels,
    x0,
    x1,
    top,
    plotH,
    bottom,
    p: opts.idPrefix ?? 'gantt',
    xa,
    t0: xa.min,
    t1: xa.max,
    sx: linear(xa.min, xa.max, x0, x1),
    rowY: (c: number) => top + c * rowH,
  };
}

/** `[min(0, first start), last release or finish]` of the drawn jobs. */
function defaultTimeRange(drawn: readonly GanttJob[]): [number, number] {
  let t0 = 0;
  let t1 = 0;
  for (const j of drawn) {
    t0 = Math.min(t0, j.start);
    const rel = j.releases ? Math.max(j.finish, ...Array.from(j.releases)) : j.finish;
    t1 = Math.max(t1, rel);
  }
  return [t0, t1];
}

/** The node bands: every other node shaded, behind everything else. */
function nodeBands(nodes: readonly GanttNode[], f: GanttFrame): string {
  let s = `<g class="nodes">\n`;
  nodes.forEach((n, i) => {
    if (i % 2 === 1)
      s += `<rect x="${fmt(f.x0)}" y="${fmt(f.rowY(n.firstCore))}" width="${fmt(f.x1 - f.x0)}" height="${fmt(n.coreCount * f.rowH)}" fill="#f3f4f6"/>\n`;
  });
  return `${s}</g>\n`;
}

/** The jobs' `<g>` layer, and how many of the drawn jobs are seq, MPI and spread over several nodes. */
function jobsLayer(
  input: GanttInput,
  drawn: readonly GanttJob[],
  coreNode: Int32Array,
  f: GanttFrame,
): { svg: string; seq: number; mpi: number; multiNode: number } {
  const counts = { seq: 0, mpi: 0, multiNode: 0 };
  let svg = `<g class="jobs">\n`;
  for (const j of drawn) {
    const runs = jobRuns(j, f.coreCount, coreNode);
    const nodeSet = new Set(runs.map((r) => r.node).filter((v) => v >= 0));
    const nodeIds = nodeSet.size > 0 ? [...nodeSet] : Array.from(j.nodes);
    if (j.type === 'mpi') counts.mpi++;
    else counts.seq++;
    if (nodeIds.length > 1) counts.multiNode++;
    svg += jobGroup(j, runs, nodeIds, input.nodes, f);
  }
  svg += `</g>\n`;
  return { svg, ...counts };
}

/**
 * One job as a `<g>` with its tooltip, its blocks, the hatch over its blocks and the connector
 * between its nodes (an MPI job across nodes); '' when none of its blocks falls in the time window.
 */
function jobGroup(j: GanttJob, runs: readonly GanttRun[], nodeIds: readonly number[], nodes: readonly GanttNode[], f: GanttFrame): string {
  const spans = nodeIds.length > 1;
  const blocks = jobBlocks(j, runs, spans && j.type === 'mpi', f);
  if (!blocks.rects) return '';
  let g = blocks.rects;
  // One hatch overlay per job: a single path over all its blocks.
  if (blocks.hatch) g += `<path d="${blocks.hatch}" fill="url(#${escapeXml(f.p)}-hatch)" stroke="none"/>\n`;
  if (blocks.comm) g += `<path class="comm" d="${blocks.comm}" fill="#000000" fill-opacity="0.4" stroke="none"/>\n`;
  if (spans && blocks.spansY.size > 1) g += connector(j, blocks.spansY, f);
  const cls = j.type === 'mpi' ? (spans ? 'job mpi multi-node' : 'job mpi') : 'job seq';
  const strokeW = Math.min(1.2, Math.max(0.4, f.rowH * 0.3));
  const attrs = j.type === 'mpi' ? ` stroke="#111111" stroke-width="${fmt(strokeW)}"` : f.rowH >= 4 ? ` stroke="#ffffff" stroke-width="0.5"` : '';
  const tip = jobTooltip(j, runs, nodeIds, nodes);
  return `<g class="${cls}" data-job="${escapeXml(j.id)}" fill="${hashColour(j.id)}"${attrs}>\n<title>${escapeXml(tip)}</title>\n${g}</g>\n`;
}

/** The tooltip of a job: id, type, tasks, nodes (named when at most 8), start, finish and run time. */
function jobTooltip(j: GanttJob, runs: readonly GanttRun[], nodeIds: readonly number[], nodes: readonly GanttNode[]): string {
  const nodeNames = nodeIds.map((k) => nodes[k]?.name ?? String(k));
  const ntasks = j.ntasks ?? runs.reduce((a, r) => a + r.count, 0);
  return (
    `job ${j.id} · ${j.type} · ${ntasks} task${ntasks === 1 ? '' : 's'} · ${nodeIds.length} node${nodeIds.length === 1 ? '' : 's'}` +
    (nodeNames.length <= 8 ? ` (${nodeNames.join(', ')})` : '') +
    `\nstart ${formatValue(j.start)} s · finish ${formatValue(j.finish)} s · run ${formatValue(j.finish - j.start)} s` +
    ((j.commTime ?? 0) > 0
      ? `\ncommunication-limited ${formatValue(j.commTime!)} s (${formatValue((100 * j.commTime!) / (j.finish - j.start))}% of its run)`
      : '')
  );
}

/**
 * A job's runs clipped to the time window: one `<rect>` each, the hatch path over them when `hatched`,
 * and per node the vertical extent of the job's blocks on it (for the connector's dots).
 */
function jobBlocks(
  j: GanttJob,
  runs: readonly GanttRun[],
  hatched: boolean,
  f: GanttFrame,
): { rects: string; hatch: string; comm: string; spansY: Map<number, { lo: number; hi: number }> } {
  let rects = '';
  let hatch = '';
  let comm = '';
  const c = j.commTime ?? 0;
  const spansY = new Map<number, { lo: number; hi: number }>();
  for (const r of runs) {
    if (r.end < f.t0 || j.start > f.t1) continue;
    const xs = f.sx(Math.max(j.start, f.t0));
    const xe = f.sx(Math.min(r.end, f.t1));
    const w = Math.max(xe - xs, 0.5);
    const y = f.rowY(r.first);
    const h = r.count * f.rowH;
    rects += `<rect x="${fmt(xs)}" y="${fmt(y)}" width="${fmt(w)}" height="${fmt(h)}"/>\n`;
    if (hatched) hatch += `M${fmt(xs)} ${fmt(y)}h${fmt(w)}v${fmt(h)}h${fmt(-w)}Z`;
    if (c > 0) {
      const cs = Math.max(r.end - c, j.start, f.t0);
      const ce = Math.min(r.end, f.t1);
      if (ce > cs) {
        const x = f.sx(cs);
        comm += `M${fmt(x)} ${fmt(y)}h${fmt(f.sx(ce) - x)}v${fmt(h)}h${fmt(x - f.sx(ce))}Z`;
      }
    }
    const e = spansY.get(r.node);
    if (e) {
      e.lo = Math.min(e.lo, y);
      e.hi = Math.max(e.hi, y + h);
    } else spansY.set(r.node, { lo: y, hi: y + h });
  }
  return { rects, hatch, comm, spansY };
}

/** The connector of a job across nodes: a vertical line at the middle of its run time with a dot on each node. */
function connector(j: GanttJob, spansY: ReadonlyMap<number, { lo: number; hi: number }>, f: GanttFrame): string {
  const mid = f.sx((Math.max(j.start, f.t0) + Math.min(j.finish, f.t1)) / 2);
  const ys = [...spansY.values()].map((e) => (e.lo + e.hi) / 2).sort((a, b) => a - b);
  let s = `<line class="connector" x1="${fmt(mid)}" y1="${fmt(ys[0]!)}" x2="${fmt(mid)}" y2="${fmt(ys[ys.length - 1]!)}" stroke="#111111" stroke-width="1.2"/>\n`;
  const dotR = Math.max(1.2, Math.min(3, f.rowH * 0.6));
  for (const y of ys) s += `<circle cx="${fmt(mid)}" cy="${fmt(y)}" r="${fmt(dotR)}" fill="#111111" stroke="none"/>\n`;
  return s;
}

/** Node boundaries (a line where each node but the first begins) and the plot's frame, over the bars. */
function nodeBoundaries(nodes: readonly GanttNode[], f: GanttFrame): string {
  let s = `<g class="node-boundaries" stroke="#444" stroke-width="1">\n`;
  for (const n of nodes) {
    if (n.firstCore > 0)
      s += `<line x1="${fmt(f.x0 - (f.coreLabels ? 26 : 6))}" y1="${fmt(f.rowY(n.firstCore))}" x2="${fmt(f.x1)}" y2="${fmt(f.rowY(n.firstCore))}"/>\n`;
  }
  s += `<rect x="${fmt(f.x0)}" y="${fmt(f.top)}" width="${fmt(f.x1 - f.x0)}" height="${fmt(f.plotH)}" fill="none"/>\n`;
  return `${s}</g>\n`;
}

/**
 * The y axis: node names centred on their group (a name that would overlap the previous one is
 * skipped: small nodes next to each other on a tall machine), core numbers when rows are tall
 * enough, and the rotated axis title (which says when names were omitted).
 */
function nodeLabels(input: GanttInput, f: GanttFrame): string {
  let s = `<g class="node-labels" fill="#222">\n`;
  const maxGroupH = Math.max(0, ...input.nodes.map((n) => n.coreCount * f.rowH));
  const fontSize = Math.max(7, Math.min(10.5, maxGroupH - 1));
  let lastBottom = -Infinity;
  let skipped = 0;
  for (const n of input.nodes) {
    const cy = f.rowY(n.firstCore) + (n.coreCount * f.rowH) / 2;
    if (cy - fontSize / 2 < lastBottom + 1) {
      skipped++;
      continue;
    }
    lastBottom = cy + fontSize / 2;
    s += `${text(f.x0 - (f.coreLabels ? 30 : 8), cy + fontSize * 0.35, n.name, `text-anchor="end" font-size="${fmt(fontSize)}"`)}\n`;
  }
  if (f.coreLabels) {
    const fs = Math.min(9, f.rowH - 2);
    for (let c = 0; c < f.coreCount; c++)
      s += `${text(f.x0 - 4, f.rowY(c) + f.rowH / 2 + fs * 0.35, String(c), `text-anchor="end" font-size="${fmt(fs)}" fill="#777"`)}\n`;
  }
  s += `</g>\n`;
  const ty = f.top + f.plotH / 2;
  return `${s}${text(14, ty, `cores, grouped by node${skipped > 0 ? ' (some names omitted)' : ''}`, `text-anchor="middle" font-size="12" fill="#222" transform="rotate(-90 14 ${fmt(ty)})"`)}\n`;
}

/** The legend above the plot: seq job, MPI job on one node, MPI job across nodes, and what the colours mean. */
function legend(f: GanttFrame, comm: boolean): string {
  const { x0, x1 } = f;
  const ly = 44;
  let s = `<g class="legend" font-size="11.5" fill="#222">\n`;
  s += `<rect x="${fmt(x0)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#ffffff" stroke-width="0.5"/>\n`;
  s += `${text(x0 + 23, ly, 'seq job')}\n`;
  s += `<rect x="${fmt(x0 + 90)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#111111" stroke-width="1.2"/>\n`;
  s += `${text(x0 + 113, ly, 'MPI job, one node')}\n`;
  s += `<rect x="${fmt(x0 + 240)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#111111" stroke-width="1.2"/>\n`;
  s += `<rect x="${fmt(x0 + 240)}" y="${ly - 10}" width="18" height="12" fill="url(#${escapeXml(f.p)}-hatch)"/>\n`;
  s += `<line x1="${fmt(x0 + 249)}" y1="${ly - 14}" x2="${fmt(x0 + 249)}" y2="${ly + 6}" stroke="#111111" stroke-width="1.2"/>\n`;
  s += `${text(x0 + 263, ly, 'MPI job across nodes (blocks joined by a line)')}\n`;
  if (comm) {
    s += `<rect x="${fmt(x1 - 250)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6"/>\n`;
    s += `<rect x="${fmt(x1 - 241)}" y="${ly - 10}" width="9" height="12" fill="#000000" fill-opacity="0.4"/>\n`;
    s += `${text(x1, ly, 'dark end: time limited by communication', 'text-anchor="end" fill="#222" font-size="10.5"')}\n`;
  } else s += `${text(x1, ly, 'colour: hash of job id; hover a bar for details', 'text-anchor="end" fill="#666" font-size="10.5"')}\n`;
  return `${s}</g>\n`;
}

/** The hatch pattern of MPI jobs across nodes (the document's `<defs>`). */
function hatchPattern(p: string): string {
  return (
    `<pattern id="${escapeXml(p)}-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">` +
    `<line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2.2" stroke-opacity="0.75"/></pattern>\n`
  );
}

/** The shape of a platform that `ganttNodesFromPlatform` reads (the compiled `Platform` fits). */
export interface GanttPlatformLike {
  coreCount: number;
  nodeName: readonly string[];
  nodeFirstCore: ArrayLike<number>;
  nodeCoreCount: ArrayLike<number>;
  /** Cluster names and each node's cluster index, to qualify node names that repeat across clusters. */
  clusterNames?: readonly string[];
  nodeCluster?: ArrayLike<number>;
}

/** The shape of a finished-job record that `ganttJobsFromRecords` reads (the simulator's `JobRecord` fits). */
export interface GanttRecordLike {
  job: { id: string; type: 'seq' | 'mpi'; ntasks: number };
  start: number;
  finish: number;
  state?: string;
  cores: ArrayLike<number>;
  nodes: ArrayLike<number>;
  releases?: ArrayLike<number>;
  /** Seconds its progress was limited by communication. */
  commTime?: number;
}

/**
 * The Gantt nodes of a compiled platform. Node names repeat across clusters in many platform files
 * (`node0` in each cluster); when they do and the cluster names are given, names are qualified as
 * `cluster/node`.
 */
export function ganttNodesFromPlatform(p: GanttPlatformLike): GanttNode[] {
  const unique = new Set(p.nodeName).size === p.nodeName.length;
  const qualify = !unique && p.clusterNames !== undefined && p.nodeCluster !== undefined;
  return p.nodeName.map((name, i) => ({
    name: qualify ? `${p.clusterNames![p.nodeCluster![i]!] ?? p.nodeCluster![i]}/${name}` : name,
    firstCore: p.nodeFirstCore[i]!,
    coreCount: p.nodeCoreCount[i]!,
  }));
}

/** Gantt jobs from the simulator's job records (rejected jobs, which hold no cores, are left out). */
export function ganttJobsFromRecords(records: Iterable<GanttRecordLike>): GanttJob[] {
  const out: GanttJob[] = [];
  for (const r of records) {
    if (r.state === 'rejected' || r.cores.length === 0) continue;
    const j: GanttJob = { id: r.job.id, type: r.job.type, start: r.start, finish: r.finish, cores: r.cores, nodes: r.nodes, ntasks: r.job.ntasks };
    if (r.releases && r.releases.length === r.cores.length) j.releases = r.releases;
    if (r.commTime !== undefined && r.commTime > 0) j.commTime = r.commTime;
    out.push(j);
  }
  return out;
}
