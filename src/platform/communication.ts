/**
 * Communication contention of MPI jobs on the nodes' links (DESIGN §2.3).
 *
 * Only tasks of MPI jobs that have peers on other nodes take part. A task's remote volume is
 * `V = comm_vol * r`, `r` being the number of its job's tasks on other nodes.
 *
 * - `step` (the seed model): a node is saturated when the sum of `V` over its communicating tasks
 *   exceeds `comm_bw * 1 s`; then each of them gets `S_comm = comm_penalty`, else 1.
 * - `shared` (default): a task demands `V / t_nominal` bytes/s (`t_nominal` is its uncontended
 *   duration); with `D` the node's total demand, the node's factor is `min(1, comm_bw / D)`. A task
 *   takes the smallest factor among the nodes its job's communication crosses (its own node and its
 *   remote peers' nodes), since a message is as slow as the most congested link it goes through.
 *
 * The task's final speed factor mixes memory and communication (`t_compute` is the fraction of its
 * time spent computing; 1 for `seq` jobs and for MPI tasks without remote peers):
 *
 *     step:   S = t_compute * S_mem + (1 - t_compute) * S_comm
 *     shared: S = 1 / (t_compute / S_mem + (1 - t_compute) / S_comm)
 */
import type { CommModelName } from './platform.js';

/** A communication model: node factor from the node's load, and the mix with memory contention. */
export interface CommModel {
  readonly name: CommModelName;
  /** The load a task puts on its node's link: `V` for `step`, `V / t_nominal` for `shared`. */
  load(remoteVolume: number, tNominal: number): number;
  /** The factor of a node whose communicating tasks put `load` in total on a link of `bw` bytes/s. */
  nodeFactor(load: number, bw: number, penalty: number): number;
  /** Whether a task takes the smallest factor over all nodes of its job (`shared`) or its own node's only (`step`). */
  readonly acrossJobNodes: boolean;
  /** Final speed factor from the memory and communication factors. */
  combine(tCompute: number, sMem: number, sComm: number): number;
}

/** The seed's step model. */
export const stepComm: CommModel = {
  name: 'step',
  load: (v) => v,
  nodeFactor: (load, bw, penalty) => (load > bw * 1 ? penalty : 1),
  acrossJobNodes: false,
  combine: (tc, sMem, sComm) => tc * sMem + (1 - tc) * sComm,
};

/** Bandwidth sharing with time composition. */
export const sharedComm: CommModel = {
  name: 'shared',
  load: (v, tNominal) => (tNominal > 0 ? v / tNominal : 0),
  nodeFactor: (load, bw) => (load > bw ? bw / load : 1),
  acrossJobNodes: true,
  combine: (tc, sMem, sComm) => 1 / (tc / sMem + (1 - tc) / sComm),
};

/**
 * Flows on the platform's network (`jobNetwork.ts`): the job's factor comes from the max-min sharing of
 * its streams with every other job's and their route latencies, not from its nodes' links; the mix with
 * memory is `shared`'s.
 */
export const flowComm: CommModel = {
  name: 'flow',
  load: (v, tNominal) => (tNominal > 0 ? v / tNominal : 0),
  nodeFactor: () => 1,
  acrossJobNodes: true,
  combine: (tc, sMem, sComm) => 1 / (tc / sMem + (1 - tc) / sComm),
};

/** The model of a given name. */
export function commModel(name: CommModelName): CommModel {
  return name === 'step' ? stepComm : name === 'flow' ? flowComm : sharedComm;
}

/** Bytes exchanged by a job placed with `perNode` tasks on each node it spans: `comm_vol` per unordered pair on different nodes. */
export function networkVolume(commVol: number, perNode: ArrayLike<number>): number {
  let total = 0;
  let sq = 0;
  for (let i = 0; i < perNode.length; i++) {
    const c = perNode[i]!;
    total += c;
    sq += c * c;
  }
  return (commVol * (total * total - sq)) / 2;
}
