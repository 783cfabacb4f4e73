/**
 * The record of `clustergym slurm-agent --record DIR`: `workload.swf` (the jobs the agent saw, Slurm job ids,
 * submit times since the record's `UnixStartTime`, measured run times, the mirror's CPUs), `workload.json`
 * (the same finished jobs in the native format, with their shapes: node counts, tasks per node),
 * `requests.json` (each job's Slurm request as read while it pended), `platform.json` (one node per Slurm
 * node, its name as `type`) and `live.csv` (per job: submit, decision, start, end, decided and Slurm's
 * nodes, and what was reported about it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from '../../src/platform/platform.js';
import type { SlurmJob } from '../../src/slurm/client.js';
import type { Job } from '../../src/workload/job.js';
import type { SlurmRequest } from '../../src/slurm/request.js';

/** What the record needs of a job the agent followed (`TrackedJob`). */
export interface RecordedJob {
  slurm: SlurmJob;
  job: Job | null;
  decision: { t: number; nodes: string[] } | null;
  start: number;
  end: number;
  note?: string;
  request?: SlurmRequest;
}

/** Writes the record of the jobs `tracked` to `dir` (times relative to `origin`, Unix s). */
export function writeRecord(
  dir: string,
  origin: number,
  tracked: readonly RecordedJob[],
  platform: Platform,
  nodeNames: readonly string[],
  reqTime: (j: SlurmJob) => number,
): void {
  mkdirSync(dir, { recursive: true });
  const jobs = tracked.filter((t) => t.job !== null).sort((a, b) => a.slurm.submit - b.slurm.submit || Number(a.slurm.id) - Number(b.slurm.id));
  const p = platform;
  const lines = [
    '; clustergym slurm-agent record: the jobs the agent saw, with Slurm job ids and measured run times',
    `; UnixStartTime: ${Math.floor(origin)}`,
    `; MaxProcs: ${p.coreCount}`,
    `; MaxNodes: ${p.nodeCount}`,
    "; Note: submit times in seconds since UnixStartTime, the agent's first look at the queue (a job submitted before is submitted at 0: the agent could not start it earlier); run time -1: not finished while the agent ran",
  ];
  const csv = ['job_id,submit,decision,start,end,decided_nodes,slurm_nodes,note'];
  const native: Record<string, unknown>[] = [];
  const requests: Record<string, unknown> = {};
  for (const t of jobs) {
    const s = t.slurm;
    const j = t.job!;
    const submit = Math.max(s.submit, origin) - origin;
    const run = t.start > 0 && t.end > 0 ? t.end - t.start : -1;
    const wait = t.start > 0 ? t.start - Math.max(s.submit, origin) : -1;
    const req = reqTime(s);
    lines.push([s.id, round(submit), round(wait), round(run), j.ntasks, -1, -1, j.ntasks, req, -1, run >= 0 ? 1 : -1, -1, -1, -1, -1, -1, -1, -1].join(' '));
    if (run >= 0) native.push({ id: s.id, subtime: round(submit), ...shapeFields(j), runtime: round(run), req_time: req });
    if (t.request) requests[s.id] = t.request;
    csv.push(
      [
        s.id,
        round(submit),
        t.decision ? round(t.decision.t - origin) : '',
        t.start ? t.start - origin : '',
        t.end ? round(t.end - origin) : '',
        (t.decision?.nodes ?? []).join(' '),
        s.nodes.join(' '),
        (t.note ?? '').replace(/,/g, ';'),
      ].join(','),
    );
  }
  writeFileSync(join(dir, 'workload.swf'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'workload.json'), `${JSON.stringify({ jobs: native }, null, 1)}\n`);
  writeFileSync(join(dir, 'requests.json'), `${JSON.stringify(requests, (_k, v) => (v === Number.POSITIVE_INFINITY ? null : v), 1)}\n`);
  writeFileSync(join(dir, 'live.csv'), `${csv.join('\n')}\n`);
  writeFileSync(join(dir, 'platform.json'), `${JSON.stringify(platformJson(p, nodeNames), null, 1)}\n`);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** A mirror job's shape in the native workload format (`ntasks`, `nodes`, `ntasks_per_node`, `type`). */
export function shapeFields(j: Job): Record<string, unknown> {
  if (j.type === 'seq') return { type: 'seq', ntasks: j.ntasks };
  if (j.nodes <= 0) return { type: 'mpi', ntasks: j.ntasks };
  const consistent = j.ntasksPerNode > 0 && Math.ceil(j.ntasks / j.ntasksPerNode) === j.nodes;
  return { type: 'mpi', nodes: j.nodes, ntasks: j.ntasks, ...(consistent ? { ntasks_per_node: j.ntasksPerNode } : {}) };
}

/** The platform as a native platform file, one node entry per Slurm node (its name as `type`). */
export function platformJson(p: Platform, nodeNames: readonly string[]): object {
  const nodes = nodeNames.map((name, n) => {
    const q0 = p.nodeFirstProc[n]!;
    const processors = [];
    for (let q = q0; q < q0 + p.nodeProcCount[n]!; q++)
      processors.push({
        cores: p.procCoreCount[q]!,
        clock_rate: p.procClockRate[q]!,
        dpflops_per_cycle: p.procMops[q]! / 1e3 / p.procClockRate[q]!,
        static_power: p.procStaticPower[q]!,
        dynamic_power: p.procDynamicPower[q]!,
        min_power: p.procMinPower[q]!,
      });
    return { count: 1, type: name, memory_gb: p.nodeMemoryMb[n]! / 1024, comm_bw: p.nodeCommBw[n]!, processors };
  });
  return { name: p.name, models: p.models, clusters: [{ id: 'slurm', nodes }] };
}
