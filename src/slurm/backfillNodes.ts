/**
 * The whole-node backfill planner over a profile of expected ends (`nodeSelect` without `bfWillRun`;
 * `backfill.ts`): the pass written once in src/scheduling/nodeProfileBackfill.ts (the one engine's Slurm
 * backfill runs it too), read through the Slurm engine's `NodeMap`: a node's holder is the slot holding it
 * whole, expected to end at its time limit (`timeLeft`); a job asking for GPUs only considers the groups
 * whose nodes have that many of its type (a whole node's GPUs are all its job's).
 */
import { nodeProfilePass, type NodeProfileView } from '../scheduling/nodeProfileBackfill.js';
import { type BackfillPlanner, type BackfillView, timeLeft } from './backfill.js';
import { wholeAlloc } from './nodes.js';

/** The planner (no state between passes). */
export class NodeProfilePlanner implements BackfillPlanner {
  pass(v: BackfillView, p: number[], n: number): number {
    const J = v.jobs;
    const cfg = v.config;
    const nodeMap = v.nodeMap!;
    const view: NodeProfileView = {
      now: v.now,
      groupBase: nodeMap.base,
      heldFor: (x) => {
        const r = nodeMap.slotOn[x]!;
        return r < 0 ? -1 : timeLeft(v, r);
      },
      units: (h) => J.cores[p[h]!]!,
      timeLimit: (h) => J.timeLimit[p[h]!]!,
      groupsOf: (h) => v.platform.partitions[J.part[p[h]!]!]!.groups,
      // nodes of a group are alike: all or none hold the job's GPUs
      groupUsable: (h, g) => {
        const req = v.nodeRequest(p[h]!);
        const b0 = nodeMap.base[g]!;
        return req.gpus === 0 || nodeMap.gpusFor(req, b0, nodeMap.gpuCap[b0]!) >= req.gpus;
      },
      start: (h, g, nodes) => {
        const s = p[h]!;
        p[h] = -1;
        v.startByBackfill(s, g, wholeAlloc(nodes, nodeMap));
      },
    };
    return nodeProfilePass(view, { window: cfg.bfWindow, resolution: cfg.bfResolution, slurmRounding: cfg.bfSlurmRounding, reserveIdle: 'none' }, n);
  }
}
