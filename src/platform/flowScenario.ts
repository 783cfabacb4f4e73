/**
 * Flow scenarios, `clustergym netsim`'s input: a set of transfers between named hosts (bytes, start
 * times), read from a flows file and checked against the network, run to completion on the flow model
 * (`flows.ts`'s `FlowSolver`) in start order.
 */
import { z } from 'zod';
import { didYouMean, InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { readJsonFile } from '../core/json.js';
import { type FlowModelConfig, FlowSolver } from './flows.js';
import type { RoutedNetwork } from './routing.js';

/** One transfer of a flow scenario (netsim's input): host names, bytes, seconds. */
export interface FlowSpec {
  id: string | number;
  src: string;
  dst: string;
  size: number;
  start: number;
}

/** A transfer with its completion time. */
export interface FlowResult extends FlowSpec {
  finish: number;
}

/** Runs a set of transfers to completion; results in input order. */
export function simulateFlows(net: RoutedNetwork, model: FlowModelConfig, flows: readonly FlowSpec[]): FlowResult[] {
  const n = flows.length;
  const solver = new FlowSolver(net, model, false, n);
  const start = new Float64Array(n);
  const src = new Int32Array(n);
  const dst = new Int32Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    const f = flows[i]!;
    start[i] = f.start;
    src[i] = net.host(f.src);
    dst[i] = net.host(f.dst);
    if (i > 0 && start[i - 1]! > start[i]!) sorted = false;
  }
  // by start, ties in input order (most files are in start order already: then no sort)
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (!sorted) order.sort((a, b) => start[a]! - start[b]! || a - b);
  const input = new Int32Array(n);
  const finish = new Float64Array(n);
  let next = 0;
  for (;;) {
    const tEvent = solver.nextEventTime();
    const tStart = next < n ? start[order[next]!]! : Infinity;
    if (tEvent === Infinity && tStart === Infinity) break;
    if (tStart <= tEvent) {
      const i = order[next++]!;
      input[solver.start(src[i]!, dst[i]!, flows[i]!.size, tStart)] = i;
    } else {
      const done = solver.advance(tEvent);
      for (let k = 0; k < done.length; k++) finish[input[done[k]!]!] = solver.finish(done[k]!);
    }
  }
  return withFinish(flows, finish);
}

/** The transfers with their completion times (apart from the event loop, so that its optimised code stays valid). */
function withFinish(flows: readonly FlowSpec[], finish: Float64Array): FlowResult[] {
  const out: FlowResult[] = new Array(flows.length);
  for (let i = 0; i < flows.length; i++) {
    const f = flows[i]!;
    out[i] = { id: f.id, src: f.src, dst: f.dst, size: f.size, start: f.start, finish: finish[i]! };
  }
  return out;
}

/** A flows file: `[{id, src, dst, size, start}]` (host names, bytes, seconds). */
export const FlowsFileSchema = z.array(
  z
    .object({
      id: z.union([z.string(), z.number()]),
      src: z.string().min(1),
      dst: z.string().min(1),
      size: z.number().finite().nonnegative(),
      start: z.number().finite().nonnegative().default(0),
    })
    .strict(),
);

/** Reads and checks a flows file against a network (every host must exist). */
export function readFlowsFile(file: string, net: RoutedNetwork): FlowSpec[] {
  const data = readJsonFile(file);
  let flows = plainFlows(data);
  if (flows === null) {
    const r = FlowsFileSchema.safeParse(data);
    if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
    flows = r.data;
  }
  const unknownHost = (i: number, k: 'src' | 'dst'): never => {
    const name = flows[i]![k];
    throw new InputError(`${jsonPath([i, k])}: no host named ${JSON.stringify(name)} in the platform${didYouMean(name, net.hostNames)}`, file);
  };
  for (let i = 0; i < flows.length; i++) {
    if (net.host(flows[i]!.src) < 0) unknownHost(i, 'src');
    if (net.host(flows[i]!.dst) < 0) unknownHost(i, 'dst');
  }
  return flows;
}

const FLOW_KEYS = new Set(['id', 'src', 'dst', 'size', 'start']);
const nonNegativeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * The flows of `data` when every entry is one `FlowsFileSchema` accepts as it is (the common case, checked
 * without building zod's result objects: 10,000 flows in a few ms), else null (then zod parses it and names
 * what is wrong).
 */
function plainFlows(data: unknown): FlowSpec[] | null {
  if (!Array.isArray(data)) return null;
  const out: FlowSpec[] = new Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const f = data[i] as Record<string, unknown>;
    if (f === null || typeof f !== 'object' || Array.isArray(f)) return null;
    for (const k in f) if (!FLOW_KEYS.has(k)) return null;
    const { id, src, dst, size, start } = f;
    if (typeof id !== 'string' && typeof id !== 'number') return null;
    if (typeof src !== 'string' || src === '' || typeof dst !== 'string' || dst === '') return null;
    if (!nonNegativeNumber(size) || (start !== undefined && !nonNegativeNumber(start))) return null;
    // the parsed object itself when it is complete (no copy of 10,000 objects)
    out[i] = start === undefined ? { id, src, dst, size, start: 0 } : (f as unknown as FlowSpec);
  }
  return out;
}
