/**
 * The compact binary frames of `step` and `step_batch` (docs/protocol.md, "Binary step frames").
 *
 * msgpack maps with string keys cost both sides of every step: the server packs an 11.7 KB reply of
 * five maps, the client walks them and builds an array per `__ndarray__` map. A client that sees
 * `capabilities.binary == 1` in `hello` may instead send `step` and `step_batch` as fixed binary
 * frames, and gets fixed binary replies whose arrays sit at offsets it computed once from the
 * `binary` layout that `make` returns. Everything else (every other op, and every error reply)
 * stays msgpack. A binary frame starts with the byte 0xC1, which msgpack never uses, so the server
 * tells the two apart by the first byte. All numbers are little-endian.
 *
 * Request (12 + 8n + T bytes):
 *
 *     0  u8   0xC1
 *     1  u8   op: 1 = step (n must be 1), 2 = step_batch
 *     2  u8   flags: bit 0 = autoreset (step_batch); bit 1 = info columns (`step_batch` replies carry
 *              the numeric info keys as columns: see below; servers whose `hello` has
 *              `capabilities.binary_info_columns`)
 *     3  u8   T, the length of the token (0 when the server has none)
 *     4  u32  request id (echoed)
 *     8  u32  n, the number of envs
 *     12 u32  env handles [n]: the number of each handle ("e17" is 17)
 *     .. i32  actions [n]
 *     .. T bytes of token (UTF-8)
 *
 * Reply:
 *
 *     0  u8   0xC1
 *     1  u8   op (echoed)
 *     2  u8   flags: bit 1 = the info part has columns (answering a request with bit 1)
 *     3  u8   1, the format version
 *     4  u32  request id
 *     8  u32  n
 *     12 u32  I, the length of the info part
 *     16 u32  C, the number of info columns (0 without bit 1)
 *     20 u32  S, the length of the columns' spec (0 without bit 1)
 *     24 8 bytes reserved (0)
 *     32 f64  rewards [n]
 *     .. u8   terminated [n], then u8 truncated [n]; zero padding to a multiple of 8
 *     .. per array of the layout, in its order: the n envs' arrays stacked ([n, ...shape], C order),
 *        zero padding to a multiple of 8
 *     .. u8   action masks [n, A] (1 = valid, the mask after the step); padding to 8
 *     .. I bytes: msgpack of the info (`step`: the info map without `action_mask`; `step_batch`:
 *        the list of infos, as the msgpack `step_batch` has them)
 *
 * With info columns (flag bit 1, `step_batch` only), the I bytes of the info part are instead:
 *
 *     .. C columns of n values each, 8 bytes a value: the keys every env's info has with a number
 *        (`i8` when every value is an integer, else `f8`), in the order of env 0's info
 *     .. S bytes: msgpack of the columns' spec, `[[key, "i8" | "f8"], ...]` (the same bytes step after
 *        step while the keys and kinds stay: a client parses it once)
 *     .. the rest: msgpack of the list of n infos without the column keys (usually n empty maps)
 *
 * so that a client builds the batched info of the common step (a few numbers per env) from array views
 * instead of walking n maps.
 *
 * The layout is a pure function of the env's observation space (a `Box`, or a `Dict` of `Box`es):
 * `binaryLayout`. The offsets are a pure function of the layout and n: `replyOffsets`.
 */
import { BridgeError, type SpaceDescriptor } from './protocol.js';
import { DTYPES, type DType, type WireTypedArray } from './ndarray.js';

/** The first byte of every binary frame (a byte msgpack never uses). */
export const BINARY_MAGIC = 0xc1;
/** The version of the binary frames (`hello` reports it as `capabilities.binary`). */
export const BINARY_VERSION = 1;
/** Op codes of binary frames. */
export const BINARY_OPS = { step: 1, step_batch: 2 } as const;
/** Bits of a frame's flags byte (offset 2). */
export const BINARY_FLAGS = { autoreset: 1, infoColumns: 2 } as const;
/** Size of a reply's header. */
export const REPLY_HEADER_BYTES = 32;
/** Size of a request's fixed part. */
export const REQUEST_HEADER_BYTES = 12;

/** One array of an observation in the binary layout. */
export interface LayoutArray {
  /** The key of the array in a `Dict` observation, or null for a `Box` observation. */
  key: string | null;
  dtype: DType;
  shape: number[];
  /** Bytes of one env's array. */
  bytes: number;
}

/** How an env's observation and mask travel in binary replies (`make` returns it as `binary`). */
export interface BinaryLayout {
  arrays: LayoutArray[];
  /** Length of the action mask (values of a `Discrete` action space). */
  mask: number;
}

function boxArray(key: string | null, space: SpaceDescriptor): LayoutArray | null {
  if (space.type !== 'Box' || !Array.isArray(space.shape)) return null;
  const dtype = (typeof space.dtype === 'string' ? space.dtype : 'float32') as DType;
  const Ctor = DTYPES[dtype];
  if (!Ctor) return null;
  let n = 1;
  for (const s of space.shape) n *= s;
  return { key, dtype, shape: [...space.shape], bytes: n * Ctor.BYTES_PER_ELEMENT };
}

/**
 * The binary layout of an env with these spaces, or null when its observations cannot travel in
 * binary frames (a space other than a `Box` or a flat `Dict` of `Box`es, or an action space that
 * is not `Discrete`): such envs step over msgpack only.
 */
export function binaryLayout(observationSpace: SpaceDescriptor, actionSpace: SpaceDescriptor): BinaryLayout | null {
  const n = actionSpace.type === 'Discrete' ? actionSpace.n : undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) return null;
  if (observationSpace.type === 'Box') {
    const a = boxArray(null, observationSpace);
    return a ? { arrays: [a], mask: n } : null;
  }
  if (observationSpace.type === 'Dict' && observationSpace.spaces) {
    const arrays: LayoutArray[] = [];
    for (const [k, s] of Object.entries(observationSpace.spaces)) {
      const a = boxArray(k, s);
      if (!a) return null;
      arrays.push(a);
    }
    return arrays.length ? { arrays, mask: n } : null;
  }
  return null;
}

/** The wire form of a layout (the `binary` field of `make`'s reply). */
export function layoutMessage(layout: BinaryLayout): Record<string, unknown> {
  return { version: BINARY_VERSION, arrays: layout.arrays.map((a) => ({ key: a.key, dtype: a.dtype, shape: a.shape })), mask: layout.mask };
}

/** A layout from its wire form (what a TypeScript client reads from `make`'s reply). */
export function layoutFromMessage(m: { arrays: { key: string | null; dtype: DType; shape: number[] }[]; mask: number }): BinaryLayout {
  return {
    arrays: m.arrays.map((a) => {
      let n = 1;
      for (const s of a.shape) n *= s;
      return { key: a.key, dtype: a.dtype, shape: [...a.shape], bytes: n * DTYPES[a.dtype].BYTES_PER_ELEMENT };
    }),
    mask: m.mask,
  };
}

const pad8 = (x: number): number => (x + 7) & ~7;

/** Byte offsets of a reply's parts for n envs. */
export interface ReplyOffsets {
  rewards: number;
  terminated: number;
  truncated: number;
  /** Start of each layout array's stacked block. */
  arrays: number[];
  masks: number;
  info: number;
}

/** The offsets of a reply with n envs (its total size is `info` + the info's length). */
export function replyOffsets(layout: BinaryLayout, n: number): ReplyOffsets {
  const rewards = REPLY_HEADER_BYTES;
  const terminated = rewards + 8 * n;
  const truncated = terminated + n;
  let at = pad8(truncated + n);
  const arrays: number[] = [];
  for (const a of layout.arrays) {
    arrays.push(at);
    at = pad8(at + a.bytes * n);
  }
  const masks = at;
  return { rewards, terminated, truncated, arrays, masks, info: pad8(masks + layout.mask * n) };
}

/** A decoded binary request. */
export interface BinaryRequest {
  op: 'step' | 'step_batch';
  id: number;
  autoreset: boolean;
  /** The client reads info columns (flag bit 1; honoured for `step_batch`). */
  infoColumns: boolean;
  /** Env handles as the server names them (`e<number>`). */
  envs: string[];
  actions: number[];
  /** The token bytes (empty when none). */
  token: Buffer;
}

/** The request id of a binary frame when it has one (error replies echo it), else null. */
export function binaryRequestId(payload: Buffer): number | null {
  return payload.length >= 8 ? payload.readUInt32LE(4) : null;
}

const NO_TOKEN = Buffer.alloc(0);

/** Decodes a binary request frame; throws a `BridgeError` (`bad_message`) naming what is wrong. */
export function parseBinaryRequest(payload: Buffer): BinaryRequest {
  if (payload.length < REQUEST_HEADER_BYTES)
    throw new BridgeError('bad_message', `binary frame of ${payload.length} bytes; a request has at least ${REQUEST_HEADER_BYTES}`);
  const code = payload[1]!;
  const op = code === BINARY_OPS.step ? 'step' : code === BINARY_OPS.step_batch ? 'step_batch' : null;
  if (op === null) throw new BridgeError('bad_message', `binary frame with op code ${code}; expected 1 (step) or 2 (step_batch)`);
  const flags = payload[2]!;
  const tokenLength = payload[3]!;
  const id = payload.readUInt32LE(4);
  const n = payload.readUInt32LE(8);
  if (n < 1) throw new BridgeError('bad_message', 'binary frame with n = 0 envs');
  if (op === 'step' && n !== 1) throw new BridgeError('bad_message', `binary step frame with n = ${n}; a step names exactly one env`);
  const expected = REQUEST_HEADER_BYTES + 8 * n + tokenLength;
  if (payload.length !== expected)
    throw new BridgeError('bad_message', `binary ${op} frame of ${payload.length} bytes; ${n} env(s) and a token of ${tokenLength} bytes make ${expected}`);
  const envs: string[] = new Array(n);
  const actions: number[] = new Array(n);
  const a0 = REQUEST_HEADER_BYTES + 4 * n;
  for (let i = 0; i < n; i++) {
    envs[i] = `e${payload.readUInt32LE(REQUEST_HEADER_BYTES + 4 * i)}`;
    actions[i] = payload.readInt32LE(a0 + 4 * i);
  }
  const token = tokenLength === 0 ? NO_TOKEN : payload.subarray(REQUEST_HEADER_BYTES + 8 * n);
  return { op, id, autoreset: (flags & BINARY_FLAGS.autoreset) !== 0, infoColumns: (flags & BINARY_FLAGS.infoColumns) !== 0, envs, actions, token };
}

/** Encodes a binary request (what a TypeScript client sends; the tests use it). */
export function encodeBinaryRequest(
  op: 'step' | 'step_batch',
  id: number,
  envs: readonly (string | number)[],
  actions: readonly number[],
  options: { autoreset?: boolean; token?: string; infoColumns?: boolean } = {},
): Buffer {
  const n = envs.length;
  const token = Buffer.from(options.token ?? '', 'utf8');
  if (token.length > 255) throw new Error('a token for binary frames is at most 255 bytes');
  const b = Buffer.alloc(REQUEST_HEADER_BYTES + 8 * n + token.length);
  b[0] = BINARY_MAGIC;
  b[1] = BINARY_OPS[op];
  b[2] = (options.autoreset === false ? 0 : BINARY_FLAGS.autoreset) | (options.infoColumns ? BINARY_FLAGS.infoColumns : 0);
  b[3] = token.length;
  b.writeUInt32LE(id >>> 0, 4);
  b.writeUInt32LE(n, 8);
  for (let i = 0; i < n; i++) {
    const h = envs[i]!;
    b.writeUInt32LE(typeof h === 'number' ? h : Number(h.slice(1)), REQUEST_HEADER_BYTES + 4 * i);
    b.writeInt32LE(actions[i]!, REQUEST_HEADER_BYTES + 4 * n + 4 * i);
  }
  token.copy(b, REQUEST_HEADER_BYTES + 8 * n);
  return b;
}

// Replies are carved from slabs, one after the other, never overwritten (ZeroMQ may send a buffer
// without copying it, after `send` returned): a slab is dropped for a fresh one when full, and
// collected once its replies are gone. A slab holds at least 4 of the largest reply seen (1 MB at
// least), so that 64-env replies (730 KB with Job-v0 at K = 128) do not each allocate, zero-fill and
// bring a garbage collection of their own. Every byte of a reply is written (padding included).
const MIN_SLAB_BYTES = 1 << 20;
let slab = Buffer.allocUnsafeSlow(MIN_SLAB_BYTES);
let slabUsed = 0;

function replyBuffer(size: number): Buffer {
  if (slabUsed + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(Math.max(MIN_SLAB_BYTES, 4 * pad8(size)));
    slabUsed = 0;
  }
  const b = slab.subarray(slabUsed, slabUsed + size);
  slabUsed = pad8(slabUsed + size);
  return b;
}

function arrayOf(obs: unknown, a: LayoutArray): WireTypedArray {
  const v = a.key === null ? obs : (obs as Record<string, unknown> | null)?.[a.key];
  if (!ArrayBuffer.isView(v) || v.byteLength !== a.bytes)
    throw new BridgeError(
      'internal',
      `observation${a.key === null ? '' : `.${a.key}`} does not match the binary layout (${a.bytes} bytes of ${a.dtype} expected)`,
    );
  return v as WireTypedArray;
}

const NO_INFO: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** The info of a batch split into columns (flag bit 1): the numeric keys every env has, and the rest. */
export interface InfoColumns {
  /** The column keys, in the order of env 0's info. */
  keys: string[];
  /** Per key: every value is a safe integer (sent as `i8`), else `f8`. */
  ints: boolean[];
  /** Each env's info without the column keys (a shared empty object when nothing is left). */
  rest: Record<string, unknown>[];
}

/**
 * Splits a batch's infos into columns: a key of env 0's info is a column when every env's info
 * holds a number there. One pass over the keys of each info; no copy of an info that has nothing
 * but column keys.
 */
export function splitInfoColumns(infos: readonly Record<string, unknown>[]): InfoColumns {
  const n = infos.length;
  const keys: string[] = [];
  const ints: boolean[] = [];
  const first = infos[0];
  if (first !== undefined)
    for (const k in first) {
      let isNumber = true;
      let isInt = true;
      for (let i = 0; i < n; i++) {
        const v = infos[i]![k];
        if (typeof v !== 'number') {
          isNumber = false;
          break;
        }
        if (isInt && !Number.isSafeInteger(v)) isInt = false;
      }
      if (isNumber) {
        keys.push(k);
        ints.push(isInt);
      }
    }
  const rest: Record<string, unknown>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const info = infos[i]!;
    let r: Record<string, unknown> | null = null;
    for (const k in info)
      if (!keys.includes(k)) {
        if (r === null) r = {};
        r[k] = info[k];
      }
    rest[i] = r ?? NO_INFO;
  }
  return { keys, ints, rest };
}

/** The columns' spec as the wire has it (msgpack of this value): `[[key, "i8" | "f8"], ...]`. */
export function columnSpec(c: InfoColumns): [string, 'i8' | 'f8'][] {
  return c.keys.map((k, j) => [k, c.ints[j] ? 'i8' : 'f8']);
}

// byte views of observation arrays: envs write their observations into the same buffers step after
// step, so a view is made once per buffer, not once per array and reply
const byteViews = new WeakMap<WireTypedArray, Uint8Array>();

function bytesOf(v: WireTypedArray): Uint8Array {
  let u = byteViews.get(v);
  if (u === undefined || u.buffer !== v.buffer) {
    u = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    byteViews.set(v, u);
  }
  return u;
}

/** What a binary reply carries (one entry per env). */
export interface BinaryReplyParts {
  op: 'step' | 'step_batch';
  id: number;
  rewards: ArrayLike<number>;
  terminated: ArrayLike<number | boolean>;
  truncated: ArrayLike<number | boolean>;
  observations: readonly unknown[];
  masks: readonly Uint8Array[];
  /** The msgpack bytes of the info part (with `columns`: of the rest of the infos). */
  info: Uint8Array;
  /** Info columns (a `step_batch` asked with flag bit 1): the split, the envs' infos and the spec's msgpack bytes. */
  columns?: { split: InfoColumns; infos: readonly Record<string, unknown>[]; spec: Uint8Array };
}

// the offsets of the replies of each layout, by n (a step computes them once, not per reply)
const offsetCache = new WeakMap<BinaryLayout, Map<number, ReplyOffsets>>();

function cachedOffsets(layout: BinaryLayout, n: number): ReplyOffsets {
  let byN = offsetCache.get(layout);
  if (byN === undefined) {
    byN = new Map();
    offsetCache.set(layout, byN);
  }
  let o = byN.get(n);
  if (o === undefined) {
    o = replyOffsets(layout, n);
    if (byN.size < 64) byN.set(n, o);
  }
  return o;
}

/** Encodes a binary reply: one buffer, the observations and masks copied once into place. */
export function encodeBinaryReply(layout: BinaryLayout, p: BinaryReplyParts): Buffer {
  const n = p.observations.length;
  const o = cachedOffsets(layout, n);
  const c = p.columns;
  const columnBytes = c ? 8 * n * c.split.keys.length : 0;
  const infoLength = columnBytes + (c ? c.spec.length : 0) + p.info.length;
  const b = replyBuffer(o.info + infoLength);
  b.fill(0, 0, REPLY_HEADER_BYTES);
  b[0] = BINARY_MAGIC;
  b[1] = BINARY_OPS[p.op];
  b[2] = c ? BINARY_FLAGS.infoColumns : 0;
  b[3] = BINARY_VERSION;
  b.writeUInt32LE(p.id >>> 0, 4);
  b.writeUInt32LE(n, 8);
  b.writeUInt32LE(infoLength, 12);
  if (c) {
    b.writeUInt32LE(c.split.keys.length, 16);
    b.writeUInt32LE(c.spec.length, 20);
  }
  for (let i = 0; i < n; i++) {
    b.writeDoubleLE(p.rewards[i]!, o.rewards + 8 * i);
    b[o.terminated + i] = p.terminated[i] ? 1 : 0;
    b[o.truncated + i] = p.truncated[i] ? 1 : 0;
  }
  b.fill(0, o.truncated + n, o.arrays[0] ?? o.masks);
  for (let j = 0; j < layout.arrays.length; j++) {
    const a = layout.arrays[j]!;
    let at = o.arrays[j]!;
    for (let i = 0; i < n; i++) {
      b.set(bytesOf(arrayOf(p.observations[i], a)), at);
      at += a.bytes;
    }
    b.fill(0, at, j + 1 < layout.arrays.length ? o.arrays[j + 1]! : o.masks);
  }
  let at = o.masks;
  for (let i = 0; i < n; i++) {
    const m = p.masks[i]!;
    if (m.length !== layout.mask) throw new BridgeError('internal', `action mask of ${m.length} values; the binary layout has ${layout.mask}`);
    b.set(m, at);
    at += layout.mask;
  }
  b.fill(0, at, o.info);
  at = o.info;
  if (c) {
    const { keys, ints } = c.split;
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]!;
      if (ints[j])
        for (let i = 0; i < n; i++, at += 8) {
          // a safe integer as int64: the high word by floor division (two's complement for negatives)
          const v = c.infos[i]![k] as number;
          const hi = Math.floor(v / 4294967296);
          b.writeUInt32LE(v - hi * 4294967296, at);
          b.writeInt32LE(hi, at + 4);
        }
      else for (let i = 0; i < n; i++, at += 8) b.writeDoubleLE(c.infos[i]![k] as number, at);
    }
    b.set(c.spec, at);
    at += c.spec.length;
  }
  b.set(p.info, at);
  return b;
}

/** A decoded binary reply (what a TypeScript client reads; the tests use it). */
export interface DecodedBinaryReply {
  op: 'step' | 'step_batch';
  id: number;
  rewards: Float64Array;
  terminated: Uint8Array;
  truncated: Uint8Array;
  /** Per layout array (by key, `''` for a `Box`), the stacked values of the n envs. */
  arrays: Record<string, WireTypedArray>;
  masks: Uint8Array;
  /** The msgpack info part (with info columns: the rest of the infos). */
  info: Uint8Array;
  /** With info columns (flag bit 1): the spec's msgpack bytes and each column's n values read as
   * `i8` and as `f8` (the spec says which holds). */
  columns?: { spec: Uint8Array; values: { i8: number[]; f8: number[] }[] };
}

/** Decodes a binary reply (copies, aligned). */
export function decodeBinaryReply(layout: BinaryLayout, b: Uint8Array): DecodedBinaryReply {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf[0] !== BINARY_MAGIC) throw new Error('not a binary reply');
  const n = buf.readUInt32LE(8);
  const infoLength = buf.readUInt32LE(12);
  const o = replyOffsets(layout, n);
  const copy = (from: number, bytes: number): ArrayBuffer => buf.buffer.slice(buf.byteOffset + from, buf.byteOffset + from + bytes) as ArrayBuffer;
  const arrays: Record<string, WireTypedArray> = {};
  layout.arrays.forEach((a, j) => {
    arrays[a.key ?? ''] = new DTYPES[a.dtype](copy(o.arrays[j]!, a.bytes * n)) as WireTypedArray;
  });
  const out: DecodedBinaryReply = {
    op: buf[1] === BINARY_OPS.step ? 'step' : 'step_batch',
    id: buf.readUInt32LE(4),
    rewards: new Float64Array(copy(o.rewards, 8 * n)),
    terminated: new Uint8Array(copy(o.terminated, n)),
    truncated: new Uint8Array(copy(o.truncated, n)),
    arrays,
    masks: new Uint8Array(copy(o.masks, layout.mask * n)),
    info: new Uint8Array(copy(o.info, infoLength)),
  };
  if ((buf[2]! & BINARY_FLAGS.infoColumns) !== 0) {
    const count = buf.readUInt32LE(16);
    const specLength = buf.readUInt32LE(20);
    const spec = new Uint8Array(copy(o.info + 8 * n * count, specLength));
    // the kinds are in the spec (msgpack): the values are read both ways, the caller picks by the spec
    const values: { i8: number[]; f8: number[] }[] = [];
    for (let j = 0; j < count; j++) {
      const at = o.info + 8 * n * j;
      values.push({
        i8: Array.from({ length: n }, (_, i) => Number(buf.readBigInt64LE(at + 8 * i))),
        f8: Array.from({ length: n }, (_, i) => buf.readDoubleLE(at + 8 * i)),
      });
    }
    out.columns = { spec, values };
    const restAt = o.info + 8 * n * count + specLength;
    out.info = new Uint8Array(copy(restAt, o.info + infoLength - restAt));
  }
  return out;
}
