/**
 * Sim-to-real: the live run of `clustergym slurm-agent --policy NAME --record DIR` against
 * `clustergym simulate --platform DIR/platform.json --workload DIR/workload.swf --policy NAME` on its
 * record (run here in-process, the same code). For every job both ran: the live start (Slurm's
 * `start_time`) and the simulated one, in seconds since the record's `UnixStartTime`, and their
 * difference; the median and the largest absolute difference; and the decision order: the live
 * order of decisions against the simulated order of starts, where a swap is allowed only between
 * jobs whose live decisions were within one poll interval of each other (the agent saw them in the
 * same state of the queue, to within a poll).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPlatform } from '../../src/platform/loader.js';
import { makeScheduler } from '../../src/scheduling/policyName.js';
import { runSimulation } from '../../src/scheduling/run.js';
import { SwfReader } from '../../src/workload/index.js';
import { formatTable } from '../common.js';
import type { SlurmAgent } from './agent.js';

/** One job, live and simulated (seconds since the record's origin). */
export interface JobComparison {
  job_id: string;
  live_decision: number;
  live_start: number;
  sim_start: number;
  /** live_start - sim_start. */
  difference: number;
  /** The nodes of the live decision, and those the simulation chose. */
  live_nodes: string[];
  sim_nodes: string[];
}

/** The comparison. */
export interface SimToReal {
  policy: string;
  jobs: JobComparison[];
  median_abs_difference: number;
  max_abs_difference: number;
  /** Live decision order, simulated start order (job ids, jobs both ran). */
  live_order: string[];
  sim_order: string[];
  /** Pairs in another order in the simulation, and those of them decided more than a poll apart. */
  swaps: [string, string][];
  swaps_beyond_poll: [string, string][];
  same_order: boolean;
  /** Jobs started on the same nodes live and in the simulation. */
  same_nodes: number;
}

/** Median of `xs` (0 when empty). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Compares the agent's live run with the simulation of its record under batch policy `spec`;
 * null when the record holds no finished job.
 */
export function compareWithSimulation(dir: string, spec: string, agent: SlurmAgent, pollSeconds: number, commitHead = false): SimToReal | null {
  const header = readFileSync(join(dir, 'workload.swf'), 'utf8').match(/^; UnixStartTime: (\d+)/m);
  const origin = header ? Number(header[1]) : agent.timeOrigin;
  const platform = loadPlatform(join(dir, 'platform.json'));
  const starts: { id: string; t: number; nodes: string[] }[] = [];
  const reader = new SwfReader(join(dir, 'workload.swf'));
  let empty = true;
  const jobs = [...reader];
  if (jobs.length > 0) empty = false;
  if (empty) return null;
  runSimulation(platform, jobs, makeScheduler(spec, { commitHead }), {
    listeners: [
      {
        onStart: (sim, rj) =>
          starts.push({ id: rj.job.id, t: sim.now + sim.timeOrigin, nodes: Array.from(rj.nodes, (n) => platform.nodeType[n] ?? platform.nodeName[n]!) }),
      },
    ],
    enforceMemory: false,
  });
  const simStart = new Map(starts.map((s) => [s.id, s.t]));
  const simNodes = new Map(starts.map((s) => [s.id, s.nodes]));
  const rows: JobComparison[] = [];
  const liveOrder: string[] = [];
  for (const d of agent.decisions) {
    const t = agent.tracked.get(d.job_id);
    const s = simStart.get(d.job_id);
    if (!t || t.start === 0 || s === undefined) continue;
    liveOrder.push(d.job_id);
    const live = t.start - origin;
    rows.push({
      job_id: d.job_id,
      live_decision: round(d.t - origin),
      live_start: live,
      sim_start: round(s),
      difference: round(live - s),
      live_nodes: d.nodes,
      sim_nodes: simNodes.get(d.job_id)!,
    });
  }
  const inBoth = new Set(liveOrder);
  const simOrder = starts.filter((s) => inBoth.has(s.id)).map((s) => s.id);
  const simRank = new Map(simOrder.map((id, i) => [id, i]));
  const decided = new Map(agent.decisions.map((d) => [d.job_id, d.t]));
  const swaps: [string, string][] = [];
  const beyond: [string, string][] = [];
  for (let i = 0; i < liveOrder.length; i++)
    for (let j = i + 1; j < liveOrder.length; j++) {
      const a = liveOrder[i]!;
      const b = liveOrder[j]!;
      if (simRank.get(a)! > simRank.get(b)!) {
        swaps.push([a, b]);
        if (Math.abs(decided.get(a)! - decided.get(b)!) > pollSeconds) beyond.push([a, b]);
      }
    }
  const abs = rows.map((r) => Math.abs(r.difference));
  return {
    policy: spec,
    jobs: rows,
    median_abs_difference: round(median(abs)),
    max_abs_difference: round(abs.length ? Math.max(...abs) : 0),
    live_order: liveOrder,
    sim_order: simOrder,
    swaps,
    swaps_beyond_poll: beyond,
    same_order: beyond.length === 0,
    same_nodes: rows.filter((r) => r.live_nodes.join(',') === r.sim_nodes.join(',')).length,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The closing note. */
export function formatComparison(c: SimToReal): string {
  const table = formatTable(
    ['job', 'live decision (s)', 'live start (s)', 'simulated start (s)', 'live - sim (s)', 'live nodes', 'sim nodes'],
    c.jobs.map((r) => [r.job_id, r.live_decision, r.live_start, r.sim_start, r.difference, r.live_nodes.join(','), r.sim_nodes.join(',')]),
  );
  return [
    `clustergym slurm-agent: sim-to-real (simulate --policy ${c.policy} on the record; seconds since the record's UnixStartTime)`,
    table,
    `start time difference: median |live - sim| ${c.median_abs_difference} s, max ${c.max_abs_difference} s over ${c.jobs.length} jobs`,
    `decision order: ${c.same_order ? 'the same' : 'DIFFERENT'} (${c.swaps.length} swaps, ${c.swaps_beyond_poll.length} between decisions more than a poll apart); same nodes: ${c.same_nodes} of ${c.jobs.length} jobs`,
  ].join('\n');
}
