/**
 * Resource vectors: what a node offers to jobs, `(cores, memory in MB, GPUs)`, read from the platform's
 * per-node arrays (`nodeCoreCount`, `nodeMemoryMb`, `nodeGpuCount`), and the sums and maxima a capacity
 * model needs: per node, per node of a group, per group, per partition, for the whole platform, and the
 * largest node (what a job must fit to run at all on one node). Every node of a group offers the same
 * vector. GPUs are counted in the vector; their type is `Platform.nodeGpuType` (`gpus.ts`), and
 * `gpusByType` counts them per type.
 */
import type { Platform } from './platform.js';

/** What a node (or a set of nodes) offers. */
export interface ResourceVector {
  cores: number;
  /** Memory, MB. */
  memoryMb: number;
  gpus: number;
}

/** The resources of node `n`. */
export function nodeResources(p: Platform, n: number): ResourceVector {
  return { cores: p.nodeCoreCount[n]!, memoryMb: p.nodeMemoryMb[n]!, gpus: p.nodeGpuCount[n]! };
}

/** The resources of one node of group `g` (every node of a group is the same). */
export function groupNodeResources(p: Platform, g: number): ResourceVector {
  return nodeResources(p, p.groupFirstNode[g]!);
}

/** The resources of all the nodes of group `g`. */
export function groupResources(p: Platform, g: number): ResourceVector {
  const one = groupNodeResources(p, g);
  const k = p.groupNodeCount[g]!;
  return { cores: one.cores * k, memoryMb: one.memoryMb * k, gpus: one.gpus * k };
}

/** The resources of the nodes `nodes` (e.g. a partition's), summed in order. */
export function nodesResources(p: Platform, nodes: ArrayLike<number>): ResourceVector {
  const out = { cores: 0, memoryMb: 0, gpus: 0 };
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    out.cores += p.nodeCoreCount[n]!;
    out.memoryMb += p.nodeMemoryMb[n]!;
    out.gpus += p.nodeGpuCount[n]!;
  }
  return out;
}

/** The resources of the whole platform. */
export function totalResources(p: Platform): ResourceVector {
  return { cores: p.coreCount, memoryMb: p.totalMemoryMb, gpus: p.gpuCount };
}

/** The largest cores, memory and GPUs of one node (each maximum on its own: they may be on different nodes). */
export function maxNodeResources(p: Platform): ResourceVector {
  return { cores: p.maxNodeCores, memoryMb: p.maxNodeMemoryMb, gpus: p.maxNodeGpus };
}

/** Whether a node offering `node` can hold `need` (every component). */
export function fitsIn(need: ResourceVector, node: ResourceVector): boolean {
  return need.cores <= node.cores && need.memoryMb <= node.memoryMb && need.gpus <= node.gpus;
}

/** GPUs of each type (indexed as `Platform.gpuTypes`) on the nodes `nodes` (all nodes when absent). */
export function gpusByType(p: Platform, nodes?: ArrayLike<number>): Int32Array {
  const out = new Int32Array(p.gpuTypes.length);
  if (nodes === undefined) {
    p.gpuTypeSpecs.forEach((t, i) => {
      out[i] = t.count;
    });
    return out;
  }
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const t = p.nodeGpuType[n]!;
    if (t >= 0) out[t]! += p.nodeGpuCount[n]!;
  }
  return out;
}
