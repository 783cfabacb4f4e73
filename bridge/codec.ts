/**
 * The bridge's codec: how env results become wire messages and requests become values, apart from
 * the dispatcher (bridge/server.ts maps messages to env calls; this module says how they travel).
 *
 * - **msgpack** with the wire's settings (msgpackr, records off: any standard msgpack library reads
 *   the messages; 64-bit integers beyond 2^53 arrive as bigint), packed into large reused buffers.
 * - **Values**: typed arrays become `__ndarray__` maps (`encodeValue`), shaped by the space when it
 *   says; observations keep their wire form per env while the env reuses its buffers
 *   (`encodeObservation`), batches are stacked into scratch arrays (`stackObservations`,
 *   `stackMasks`), a batch's infos lose `action_mask` (`batchInfo`).
 * - **Replies**: `okReply` and `errorReply` (msgpack), the msgpack replies of the step ops
 *   (`stepReply`, `stepBatchReply`, `resetBatchReply`), and the binary replies of binary frames
 *   (`BinaryReplies`: bridge/binary.ts's layout, with the info columns' specs packed once).
 */
import { Packr, Unpackr } from 'msgpackr';
import { type BinaryLayout, type BinaryRequest, columnSpec, encodeBinaryReply, type InfoColumns, splitInfoColumns } from './binary.js';
import { encodeNdArray, isNdArrayMessage, type WireTypedArray } from './ndarray.js';
import type { BridgeError, SpaceDescriptor } from './protocol.js';

/** The results of stepping a batch of envs (one env for `step`), before encoding in msgpack or binary. */
export interface BatchResult {
  /** The envs' observation space (the envs of a batch have the same spaces). */
  space: SpaceDescriptor;
  /** The first env's wire forms of its observation buffers (`encodeObservation`; `step` uses them). */
  cache: Map<object, unknown>;
  /** Each env's action mask after the step. */
  masks: Uint8Array[];
  rewards: Float64Array;
  terminated: Uint8Array;
  truncated: Uint8Array;
  /** Each env's observation after the step (the first of the next episode when it was reset). */
  observations: unknown[];
  infos: Record<string, unknown>[];
}

const packr = new Packr({ useRecords: false, variableMapSize: true });
// msgpackr packs into one buffer, reply after reply, and allocates the next one (of the same size)
// when fewer than 2 KB are left: with its default 8 KB, a 5 KB `step` reply needed a fresh buffer
// (and a partial copy to a larger one) nearly every time. 1 MB buffers hold ~200 such replies.
// Replies are views of these buffers, never overwritten (ZeroMQ sends them without a copy).
packr.useBuffer(Buffer.allocUnsafeSlow(1 << 20));
// 'auto': 64-bit integers beyond 2^53 arrive as bigint (seeds up to 2^64 keep their value); msgpackr supports it, its types do not list it
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'auto' as 'number' });

/** Whether `v` is a typed array (not a DataView). */
export function isTypedArray(v: unknown): v is WireTypedArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/** Encodes a value for the wire: typed arrays become ndarrays (shaped by `space` when it says). */
export function encodeValue(v: unknown, space?: SpaceDescriptor): unknown {
  if (isNdArrayMessage(v)) return v;
  if (isTypedArray(v)) return encodeNdArray(v, space?.shape && space.shape.reduce((a, b) => a * b, 1) === v.length ? space.shape : [v.length]);
  if (Array.isArray(v)) return v.map((x) => encodeValue(x));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encodeValue(x, space?.spaces?.[k]);
    return out;
  }
  return v;
}

/**
 * The wire form of an observation, from the slot's cache when the env returned the same buffers as
 * before (the ndarray maps hold views of the buffers, so they stay valid; msgpack reads them at pack
 * time). Envs reuse their observation buffers, so a step allocates no wire objects.
 */
export function encodeObservation(cache: Map<object, unknown>, obs: unknown, space: SpaceDescriptor): unknown {
  if (obs === null || typeof obs !== 'object') return obs;
  const hit = cache.get(obs);
  if (hit !== undefined && stillValid(hit, obs)) return hit;
  const enc = encodeValue(obs, space);
  if (cache.size > 64) cache.clear();
  cache.set(obs, enc);
  return enc;
}

/** Whether a cached wire form still describes `obs` (same keys, same buffers, same sizes). */
function stillValid(enc: unknown, obs: object): boolean {
  if (isTypedArray(obs)) {
    const m = enc as { data: Uint8Array };
    return m.data.buffer === obs.buffer && m.data.byteOffset === obs.byteOffset && m.data.byteLength === obs.byteLength;
  }
  if (Array.isArray(obs)) return false;
  const e = enc as Record<string, unknown>;
  let n = 0;
  for (const k in obs) {
    n++;
    const v = (obs as Record<string, unknown>)[k];
    const w = e[k];
    if (isTypedArray(v)) {
      if (!isNdArrayMessage(w) || !stillValid(w, v)) return false;
    } else if (v !== w) return false;
  }
  return n === Object.keys(e).length;
}

/**
 * Scratch arrays of the batched observations and masks, one per (key path, type, length), reused
 * from one reply to the next: a reply is packed (its bytes copied into the msgpack buffer) before
 * the next request is handled, so a batch allocates and zero-fills no new arrays (at 64 envs that
 * was a third of the server's time per `step_batch`).
 */
const scratch = new Map<string, WireTypedArray>();

function scratchArray(path: string, Ctor: new (n: number) => WireTypedArray, n: number): WireTypedArray {
  const key = `${path}|${Ctor.name}|${n}`;
  let a = scratch.get(key);
  if (a === undefined) {
    if (scratch.size > 256) scratch.clear();
    a = new Ctor(n);
    scratch.set(key, a);
  }
  return a;
}

/**
 * Stacks one observation per env into batched ndarrays (`[n, ...shape]`), per key for dicts. The
 * arrays are the scratch arrays of `path`: valid until the next call with the same path, so the
 * reply holding them must be packed before that.
 */
export function stackObservations(obs: unknown[], space: SpaceDescriptor, path = ''): unknown {
  const first = obs[0];
  if (isTypedArray(first)) {
    const len = first.length;
    const out = scratchArray(path, first.constructor as new (n: number) => WireTypedArray, len * obs.length) as Float32Array;
    for (let i = 0; i < obs.length; i++) out.set(obs[i] as Float32Array, i * len);
    const shape = space.shape && space.shape.reduce((a, b) => a * b, 1) === len ? space.shape : [len];
    return encodeNdArray(out, [obs.length, ...shape]);
  }
  if (first !== null && typeof first === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(first)) {
      const column: unknown[] = new Array(obs.length);
      for (let i = 0; i < obs.length; i++) column[i] = (obs[i] as Record<string, unknown>)[k];
      out[k] = stackObservations(column, space.spaces?.[k] ?? { type: 'Box' }, `${path}/${k}`);
    }
    return out;
  }
  return obs;
}

/** A deep copy of an observation (typed arrays sliced). */
export function copyObservation(o: unknown): unknown {
  if (isTypedArray(o)) return o.slice();
  if (o !== null && typeof o === 'object' && !Array.isArray(o)) return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, copyObservation(v)]));
  return o;
}

/** The envs' action masks stacked (`[n, A]` uint8, a scratch array). */
export function stackMasks(masks: Uint8Array[]): unknown {
  const a = masks[0]!.length;
  const out = scratchArray('#mask', Uint8Array, a * masks.length) as Uint8Array;
  for (let i = 0; i < masks.length; i++) out.set(masks[i]!, i * a);
  return encodeNdArray(out, [masks.length, a]);
}

/**
 * The wire form of a step's `info` in a batch: without `action_mask` (batches carry the masks
 * stacked), plain values as they are, typed arrays and nested objects encoded. One loop, no rest
 * spread nor `Object.entries` (it runs once per env per `step_batch`).
 */
export function batchInfo(info: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in info) {
    if (k === 'action_mask') continue;
    const v = info[k];
    out[k] = v !== null && typeof v === 'object' ? encodeValue(v) : v;
  }
  return out;
}

/** msgpack encoder/decoder with the settings the wire uses (for clients written in TypeScript). */
export const wire = {
  pack: (v: unknown): Buffer => packr.pack(v),
  unpack: (b: Buffer | Uint8Array): unknown => unpackr.unpack(b),
};

/** A successful reply: the op's result with the request's `id` and `ok: true`, packed. */
export function okReply(id: number | string | null, result: Record<string, unknown>): Buffer {
  result.id = id;
  result.ok = true;
  return packr.pack(result);
}

/** An error reply, packed. */
export function errorReply(id: number | string | null, e: BridgeError): Buffer {
  return packr.pack({ id, ok: false, error: { code: e.code, message: e.message, details: encodeValue(e.details) } });
}

/** A request's payload as a value (throws what msgpackr throws for bytes that are not msgpack). */
export function unpackRequest(payload: Buffer): unknown {
  return unpackr.unpack(payload);
}

/** The msgpack result of `step` (one env): its info as the env gives it. */
export function stepReply(b: BatchResult): Record<string, unknown> {
  return {
    observation: encodeObservation(b.cache, b.observations[0], b.space),
    reward: b.rewards[0],
    terminated: b.terminated[0] === 1,
    truncated: b.truncated[0] === 1,
    info: encodeValue(b.infos[0]),
  };
}

/** The msgpack result of `step_batch`: observations and masks stacked, per-env infos. */
export function stepBatchReply(b: BatchResult): Record<string, unknown> {
  return {
    observations: stackObservations(b.observations, b.space),
    rewards: encodeNdArray(b.rewards),
    terminated: encodeNdArray(b.terminated),
    truncated: encodeNdArray(b.truncated),
    action_masks: stackMasks(b.masks),
    infos: b.infos,
  };
}

/** The msgpack result of `reset_batch`. */
export function resetBatchReply(
  space: SpaceDescriptor,
  outs: { observation: unknown; info: Record<string, unknown> }[],
  masks: Uint8Array[],
): Record<string, unknown> {
  return {
    observations: stackObservations(
      outs.map((o) => o.observation),
      space,
    ),
    action_masks: stackMasks(masks),
    infos: outs.map((o) => batchInfo(o.info)),
  };
}

/**
 * The binary replies of binary `step` / `step_batch` frames (bridge/binary.ts). A `step_batch`
 * that asks for info columns gets the numeric info keys as columns and the rest as msgpack; the
 * columns' spec is packed once per distinct spec (steps repeat the same one).
 */
export class BinaryReplies {
  private readonly specs = new Map<string, Uint8Array>();

  /** The binary reply of request `q` whose envs (of layout `layout`) gave `b`. */
  encode(layout: BinaryLayout, q: BinaryRequest, b: BatchResult): Buffer {
    const split = q.op === 'step_batch' && q.infoColumns ? splitInfoColumns(b.infos) : null;
    return encodeBinaryReply(layout, {
      op: q.op,
      id: q.id,
      rewards: b.rewards,
      terminated: b.terminated,
      truncated: b.truncated,
      observations: b.observations,
      masks: b.masks,
      info: packr.pack(split ? split.rest : q.op === 'step' ? b.infos[0] : b.infos),
      ...(split ? { columns: { split, infos: b.infos, spec: this.specBytes(split) } } : {}),
    });
  }

  /** The msgpack bytes of a columns' spec. */
  private specBytes(split: InfoColumns): Uint8Array {
    let key = '';
    for (let j = 0; j < split.keys.length; j++) key += `${split.ints[j] ? 'i' : 'f'}${split.keys[j]}\u0000`;
    let spec = this.specs.get(key);
    if (spec === undefined) {
      // a copy: packr's buffer is reused by later replies
      spec = Uint8Array.from(packr.pack(columnSpec(split)));
      if (this.specs.size < 1024) this.specs.set(key, spec);
    }
    return spec;
  }
}
