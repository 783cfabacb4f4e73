/**
 * Whole nodes (`nodeSelect`: `select/linear`, or `OverSubscribe=EXCLUSIVE` everywhere): which job
 * holds each node (`NodeMap`, node order = slurm.conf order, the nodes of a group consecutive) and which
 * nodes a job gets (`pickNodes`, as Slurm's select plugins choose them).
 */
import { InputError } from '../core/errors.js';
import type { SlurmPlatform } from './platform.js';

/** Which running slot holds each node (-1: idle) and the nodes each running slot holds. */
export class NodeMap {
  /** First node of each group, and the node count at the end (`base[G]`). */
  readonly base: Int32Array;
  /** The slot on each node (-1: idle). */
  readonly slotOn: Int32Array;
  /** The nodes (global indices, ascending) each running slot holds. */
  readonly held = new Map<number, Int32Array>();

  /** Every group of `platform` must count whole nodes (its units are nodes). */
  constructor(platform: SlurmPlatform) {
    const G = platform.groupNames.length;
    this.base = new Int32Array(G + 1);
    for (let g = 0; g < G; g++) {
      const n = platform.groupCores[g]!;
      if (!Number.isInteger(n)) throw new InputError(`nodeSelect: group ${platform.groupNames[g]} must count whole nodes (found ${n} units)`);
      this.base[g + 1] = this.base[g]! + n;
    }
    this.slotOn = new Int32Array(this.base[G]!).fill(-1);
  }

  /** Gives slot `s` the nodes `nodes` (global indices; each must be idle). */
  assign(s: number, nodes: Int32Array, id: (slot: number) => number): void {
    for (const x of nodes) {
      if (this.slotOn[x]! >= 0) throw new Error(`nodeSelect: job ${id(s)} given node ${x}, which job ${id(this.slotOn[x]!)} holds`);
      this.slotOn[x] = s;
    }
    this.held.set(s, nodes);
  }

  /** Frees the nodes of slot `s` (if it holds any). */
  release(s: number): void {
    const nodes = this.held.get(s);
    if (nodes === undefined) return;
    for (const x of nodes) this.slotOn[x] = -1;
    this.held.delete(s);
  }

  /** The nodes `pickNodes` gives a job of `n` nodes among the idle nodes of group `g` now (global indices), or null. */
  pickIdle(g: number, n: number): Int32Array | null {
    const b = this.base[g]!;
    const avail = new Uint8Array(this.base[g + 1]! - b);
    for (let i = 0; i < avail.length; i++) avail[i] = this.slotOn[b + i]! < 0 ? 1 : 0;
    const nodes = pickNodes(avail, n);
    if (nodes !== null) for (let i = 0; i < nodes.length; i++) nodes[i]! += b;
    return nodes;
  }
}

/**
 * The nodes (indices into `avail`, ascending) a whole-node job of `n` nodes gets among the available
 * ones (`avail[i] = 1`), as Slurm's select plugins choose without topology (select/linear `_job_test`,
 * cons_tres `_eval_nodes`): runs of consecutive available nodes; the shortest run that holds all `n`
 * (the first on ties) gives its first `n` nodes; if no run does, the longest run is taken whole (the
 * first on ties) and the choice repeats for the rest. null when fewer than `n` are available.
 */
export function pickNodes(avail: Uint8Array, n: number): Int32Array | null {
  const starts: number[] = [];
  const lens: number[] = [];
  let total = 0;
  for (let i = 0; i < avail.length; ) {
    if (!avail[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < avail.length && avail[j]) j++;
    starts.push(i);
    lens.push(j - i);
    total += j - i;
    i = j;
  }
  if (total < n) return null;
  const out = new Int32Array(n);
  let got = 0;
  while (got < n) {
    const rem = n - got;
    let best = -1;
    for (let r = 0; r < starts.length; r++) {
      const L = lens[r]!;
      if (L === 0) continue;
      if (best < 0) best = r;
      else {
        const bl = lens[best]!;
        const suff = L >= rem;
        const bsuff = bl >= rem;
        if ((suff && !bsuff) || (suff && bsuff && L < bl) || (!suff && !bsuff && L > bl)) best = r;
      }
    }
    const take = Math.min(rem, lens[best]!);
    for (let t = 0; t < take; t++) out[got++] = starts[best]! + t;
    lens[best] = 0;
  }
  out.sort();
  return out;
}
