/**
 * Slurm 22.05's own backfill pass for whole nodes (`nodeSelect` + `bfWillRun`; `backfill.ts`): the pass and
 * the select plugin's will-run test written once in src/scheduling/willRunBackfill.ts (the one engine's
 * Slurm backfill runs it too), read here through the Slurm engine's `NodeMap` and job table. What it
 * models, and why, is `SlurmConfig.bfWillRun` and docs/slurm.md.
 */
import { JobPhase } from '../core/engine.js';
import { wallClockEnd, type WillRunJob, type WillRunView, willRunPass } from '../scheduling/willRunBackfill.js';
import { type BackfillPlanner, type BackfillView, expectedEnd } from './backfill.js';

/** Slot `r` as the will-run pass reads a job holding nodes (ties of equal ends: its place in the job list, `JobTable.listPos`). */
function holding(v: BackfillView, r: number): WillRunJob {
  const real = expectedEnd(v, r);
  return { real, end: wallClockEnd(real, v.jobs.lastResume[r]!, v.jobs.state[r] === JobPhase.Running), hold: v.nodeMap!.held.get(r)!, key: v.jobs.listPos[r]! };
}

/** The planner (no state between passes). */
export class WillRunPlanner implements BackfillPlanner {
  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const nodeMap = v.nodeMap!;
    const view: WillRunView = {
      now: v.now,
      nodes: nodeMap,
      nodeCount: nodeMap.cap.length,
      running: () => {
        const out: WillRunJob[] = [];
        for (let i = 0; i < v.runningCount; i++) {
          const r = v.runningSlots[i]!;
          if (nodeMap.held.has(r)) out.push(holding(v, r));
        }
        return out;
      },
      completing: v.completingNodes,
      request: (h) => v.nodeRequest(p[h]!),
      timeLimit: (h) => J.timeLimit[p[h]!]!,
      partitionNodes: (h) => nodeMap.partitionNodes[J.part[p[h]!]!]!,
      start: (h, alloc) => {
        const s = p[h]!;
        p[h] = -1;
        v.startByBackfill(s, nodeMap.groupOf[alloc.nodes[0]!]!, alloc);
        return holding(v, s);
      },
    };
    return willRunPass(view, { window: v.config.bfWindow, resolution: v.config.bfResolution }, n);
  }
}
