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
 * Geometry, with `left` the left margin, `W` the width, `R` the row height and `[t0, t1]` the time
 * range: the plot spans x in `[left, W - 16]` and y in `[60, 60 + coreCount * R]`; core `c` is the
 * row `y = 60 + c * R`; time `t` is at `x = left + (t - t0) / (t1 - t0) * (W - 16 - left)`. By
 * default `t0 = min(0, first start)` and `t1` is the last finish.
 */
import { type PlotOptions, escapeXml, fmt, formatValue, hashColour, linear, niceAxis, svgDocument, text, xAxis } from './svg.js';

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
    if (!Number.isInteger(c) || c < 0 || c >= coreCount) throw new RangeError(`ganttSvg: job ${JSON.stringify(job.id)} holds core ${c}, outside 0..${coreCount - 1}`);
    const end = job.releases ? job.releases[i]! : job.finish;
    if (!(Number.isFinite(end) && end >= job.start)) throw new RangeError(`ganttSvg: job ${JSON.stringify(job.id)} releases core ${c} at ${end}, before its start (${job.start}) or not finite`);
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
 */
export function ganttSvg(input: GanttInput, opts: GanttOptions = {}): string {
  const { coreCount } = input;
  if (!Number.isInteger(coreCount) || coreCount <= 0) throw new RangeError(`ganttSvg: coreCount must be a positive integer, got ${coreCount}`);
  const coreNode = nodeOfCores(input);
  const width = opts.width ?? 1100;
  const rowH = opts.rowHeight ?? Math.max(1.5, Math.min(14, 640 / coreCount));
  const coreLabels = rowH >= 9;
  const maxName = Math.max(0, ...input.nodes.map((n) => n.name.length));
  const left = opts.marginLeft ?? Math.max(70, Math.ceil(30 + maxName * 6.6 + (coreLabels ? 28 : 8)));
  const top = GANTT_TOP;
  const x0 = left;
  const x1 = width - GANTT_RIGHT;
  const plotH = coreCount * rowH;
  const bottom = top + plotH;
  const height = bottom + 52;
  const p = opts.idPrefix ?? 'gantt';
  const title = opts.title ?? 'Schedule (Gantt chart)';

  for (const j of input.jobs) {
    if (!Number.isFinite(j.start) || !Number.isFinite(j.finish)) throw new RangeError(`ganttSvg: job ${JSON.stringify(j.id)} has a non-finite start (${j.start}) or finish (${j.finish})`);
    if (!(j.finish >= j.start)) throw new RangeError(`ganttSvg: job ${JSON.stringify(j.id)} finishes (${j.finish}) before it starts (${j.start})`);
  }
  const drawn = input.jobs.filter((j) => j.cores.length > 0);
  let t0: number;
  let t1: number;
  if (opts.timeRange) [t0, t1] = opts.timeRange;
  else {
    t0 = 0;
    t1 = 0;
    for (const j of drawn) {
      t0 = Math.min(t0, j.start);
      const rel = j.releases ? Math.max(j.finish, ...Array.from(j.releases)) : j.finish;
      t1 = Math.max(t1, rel);
    }
  }
  // The axis sanitises the window (a degenerate or unresolvable range is widened around its value).
  const xa = niceAxis(t0, t1 > t0 ? t1 : t0 + 1, Math.max(2, Math.round((x1 - x0) / 110)), false);
  t0 = xa.min;
  t1 = xa.max;
  const sx = linear(t0, t1, x0, x1);
  const rowY = (c: number) => top + c * rowH;

  // Node bands (alternating shades) and labels.
  let body = '';
  body += `<g class="nodes">\n`;
  input.nodes.forEach((n, i) => {
    if (i % 2 === 1) body += `<rect x="${fmt(x0)}" y="${fmt(rowY(n.firstCore))}" width="${fmt(x1 - x0)}" height="${fmt(n.coreCount * rowH)}" fill="#f3f4f6"/>\n`;
  });
  body += `</g>\n`;

  // Time axis with grid lines behind the bars.
  body += xAxis(xa, sx, bottom, x0, x1, opts.xLabel ?? 'time (s)', { top });

  // Jobs.
  const strokeW = Math.min(1.2, Math.max(0.4, rowH * 0.3));
  body += `<g class="jobs">\n`;
  let multiNodeJobs = 0;
  let seqJobs = 0;
  let mpiJobs = 0;
  for (const j of drawn) {
    const runs = jobRuns(j, coreCount, coreNode);
    const nodeSet = new Set(runs.map((r) => r.node).filter((v) => v >= 0));
    const nodeIds = nodeSet.size > 0 ? [...nodeSet] : Array.from(j.nodes);
    const spans = nodeIds.length > 1;
    if (j.type === 'mpi') mpiJobs++;
    else seqJobs++;
    if (spans) multiNodeJobs++;
    const colour = hashColour(j.id);
    const cls = j.type === 'mpi' ? (spans ? 'job mpi multi-node' : 'job mpi') : 'job seq';
    const attrs = j.type === 'mpi' ? ` stroke="#111111" stroke-width="${fmt(strokeW)}"` : rowH >= 4 ? ` stroke="#ffffff" stroke-width="0.5"` : '';
    const nodeNames = nodeIds.map((k) => input.nodes[k]?.name ?? String(k));
    const ntasks = j.ntasks ?? runs.reduce((a, r) => a + r.count, 0);
    const tip =
      `job ${j.id} · ${j.type} · ${ntasks} task${ntasks === 1 ? '' : 's'} · ${nodeIds.length} node${nodeIds.length === 1 ? '' : 's'}` +
      (nodeNames.length <= 8 ? ` (${nodeNames.join(', ')})` : '') +
      `\nstart ${formatValue(j.start)} s · finish ${formatValue(j.finish)} s · run ${formatValue(j.finish - j.start)} s`;
    let g = '';
    let hatch = '';
    // Per node: the vertical extent of the job's blocks on it (for the connector's dots).
    const spansY = new Map<number, { lo: number; hi: number }>();
    for (const r of runs) {
      if (r.end < t0 || j.start > t1) continue;
      const xs = sx(Math.max(j.start, t0));
      const xe = sx(Math.min(r.end, t1));
      const w = Math.max(xe - xs, 0.5);
      const y = rowY(r.first);
      const h = r.count * rowH;
      g += `<rect x="${fmt(xs)}" y="${fmt(y)}" width="${fmt(w)}" height="${fmt(h)}"/>\n`;
      if (spans && j.type === 'mpi') hatch += `M${fmt(xs)} ${fmt(y)}h${fmt(w)}v${fmt(h)}h${fmt(-w)}Z`;
      const e = spansY.get(r.node);
      if (e) {
        e.lo = Math.min(e.lo, y);
        e.hi = Math.max(e.hi, y + h);
      } else spansY.set(r.node, { lo: y, hi: y + h });
    }
    if (!g) continue;
    // One hatch overlay per job: a single path over all its blocks.
    if (hatch) g += `<path d="${hatch}" fill="url(#${escapeXml(p)}-hatch)" stroke="none"/>\n`;
    if (spans && spansY.size > 1) {
      const mid = sx((Math.max(j.start, t0) + Math.min(j.finish, t1)) / 2);
      const ys = [...spansY.values()].map((e) => (e.lo + e.hi) / 2).sort((a, b) => a - b);
      g += `<line class="connector" x1="${fmt(mid)}" y1="${fmt(ys[0]!)}" x2="${fmt(mid)}" y2="${fmt(ys[ys.length - 1]!)}" stroke="#111111" stroke-width="1.2"/>\n`;
      const dotR = Math.max(1.2, Math.min(3, rowH * 0.6));
      for (const y of ys) g += `<circle cx="${fmt(mid)}" cy="${fmt(y)}" r="${fmt(dotR)}" fill="#111111" stroke="none"/>\n`;
    }
    body += `<g class="${cls}" data-job="${escapeXml(j.id)}" fill="${colour}"${attrs}>\n<title>${escapeXml(tip)}</title>\n${g}</g>\n`;
  }
  body += `</g>\n`;

  // Node boundaries and labels on top of the bars; core numbers when rows are tall enough.
  body += `<g class="node-boundaries" stroke="#444" stroke-width="1">\n`;
  for (const n of input.nodes) {
    if (n.firstCore > 0) body += `<line x1="${fmt(x0 - (coreLabels ? 26 : 6))}" y1="${fmt(rowY(n.firstCore))}" x2="${fmt(x1)}" y2="${fmt(rowY(n.firstCore))}"/>\n`;
  }
  body += `<rect x="${fmt(x0)}" y="${fmt(top)}" width="${fmt(x1 - x0)}" height="${fmt(plotH)}" fill="none"/>\n`;
  body += `</g>\n`;
  body += `<g class="node-labels" fill="#222">\n`;
  // Node names, centred on their group, skipping a name that would overlap the previous one
  // (small nodes next to each other on a tall machine).
  const maxGroupH = Math.max(0, ...input.nodes.map((n) => n.coreCount * rowH));
  const fontSize = Math.max(7, Math.min(10.5, maxGroupH - 1));
  let lastBottom = -Infinity;
  let skipped = 0;
  for (const n of input.nodes) {
    const cy = rowY(n.firstCore) + (n.coreCount * rowH) / 2;
    if (cy - fontSize / 2 < lastBottom + 1) {
      skipped++;
      continue;
    }
    lastBottom = cy + fontSize / 2;
    body += text(x0 - (coreLabels ? 30 : 8), cy + fontSize * 0.35, n.name, `text-anchor="end" font-size="${fmt(fontSize)}"`) + '\n';
  }
  if (coreLabels) {
    const fs = Math.min(9, rowH - 2);
    for (let c = 0; c < coreCount; c++) body += text(x0 - 4, rowY(c) + rowH / 2 + fs * 0.35, String(c), `text-anchor="end" font-size="${fmt(fs)}" fill="#777"`) + '\n';
  }
  body += `</g>\n`;
  const ty = top + plotH / 2;
  body += text(14, ty, `cores, grouped by node${skipped > 0 ? ' (some names omitted)' : ''}`, `text-anchor="middle" font-size="12" fill="#222" transform="rotate(-90 14 ${fmt(ty)})"`) + '\n';

  // Legend.
  const ly = 44;
  body += `<g class="legend" font-size="11.5" fill="#222">\n`;
  body += `<rect x="${fmt(x0)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#ffffff" stroke-width="0.5"/>\n`;
  body += text(x0 + 23, ly, 'seq job') + '\n';
  body += `<rect x="${fmt(x0 + 90)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#111111" stroke-width="1.2"/>\n`;
  body += text(x0 + 113, ly, 'MPI job, one node') + '\n';
  body += `<rect x="${fmt(x0 + 240)}" y="${ly - 10}" width="18" height="12" fill="#7aa6d6" stroke="#111111" stroke-width="1.2"/>\n`;
  body += `<rect x="${fmt(x0 + 240)}" y="${ly - 10}" width="18" height="12" fill="url(#${escapeXml(p)}-hatch)"/>\n`;
  body += `<line x1="${fmt(x0 + 249)}" y1="${ly - 14}" x2="${fmt(x0 + 249)}" y2="${ly + 6}" stroke="#111111" stroke-width="1.2"/>\n`;
  body += text(x0 + 263, ly, 'MPI job across nodes (blocks joined by a line)') + '\n';
  body += text(x1, ly, 'colour: hash of job id; hover a bar for details', 'text-anchor="end" fill="#666" font-size="10.5"') + '\n';
  body += `</g>\n`;

  const defs =
    `<pattern id="${escapeXml(p)}-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">` +
    `<line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2.2" stroke-opacity="0.75"/></pattern>\n`;
  const desc =
    `Gantt chart of ${drawn.length} jobs (${seqJobs} seq, ${mpiJobs} MPI, ${multiNodeJobs} spanning several nodes) on ` +
    `${coreCount} cores in ${input.nodes.length} nodes, time ${formatValue(t0)} to ${formatValue(t1)} s.`;
  return svgDocument({ width, height, title, desc, idPrefix: p }, defs, body);
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
    out.push(j);
  }
  return out;
}
