/**
 * N-d arrays on the wire (DESIGN §6): a typed array travels as the msgpack map
 * `{"__ndarray__": true, "dtype": "float32", "shape": [K, F], "data": <bytes>}` with the raw
 * little-endian bytes of the array in C order, so that Python rebuilds it with
 * `numpy.frombuffer(data, dtype).reshape(shape)` without copying element by element.
 */

/** dtypes that travel, with their typed-array constructors. */
export const DTYPES = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  int8: Int8Array,
  uint32: Uint32Array,
} as const;

/** Name of a dtype that travels. */
export type DType = keyof typeof DTYPES;

/** A typed array that travels. */
export type WireTypedArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint32Array;

/** The wire form of an n-d array. */
export interface NdArrayMessage {
  __ndarray__: true;
  dtype: DType;
  shape: number[];
  data: Uint8Array;
}

/** dtype name of a typed array. */
export function dtypeOf(a: WireTypedArray): DType {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint32Array) return 'uint32';
  return 'uint8';
}

/** Encodes `a` with `shape` (default: 1-d). The bytes are a view, not a copy. */
export function encodeNdArray(a: WireTypedArray, shape: number[] = [a.length]): NdArrayMessage {
  let n = 1;
  for (const s of shape) n *= s;
  if (n !== a.length) throw new Error(`ndarray shape [${shape.join(', ')}] holds ${n} values, the array has ${a.length}`);
  return { __ndarray__: true, dtype: dtypeOf(a), shape, data: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) };
}

/** Whether `v` looks like an encoded n-d array. */
export function isNdArrayMessage(v: unknown): v is NdArrayMessage {
  return typeof v === 'object' && v !== null && (v as { __ndarray__?: unknown }).__ndarray__ === true;
}

/** Decodes an n-d array message into a typed array (copied, aligned) and its shape; throws on a bad one. */
export function decodeNdArray(m: NdArrayMessage): { array: WireTypedArray; shape: number[] } {
  const Ctor = DTYPES[m.dtype];
  if (!Ctor) throw new Error(`unknown dtype ${JSON.stringify(m.dtype)}; expected one of ${Object.keys(DTYPES).join(', ')}`);
  if (!(m.data instanceof Uint8Array)) throw new Error('ndarray data must be bytes');
  if (!Array.isArray(m.shape) || m.shape.some((s) => !Number.isInteger(s) || s < 0)) throw new Error('ndarray shape must be a list of non-negative integers');
  const n = m.shape.reduce((a, b) => a * b, 1);
  if (m.data.byteLength !== n * Ctor.BYTES_PER_ELEMENT)
    throw new Error(`ndarray of shape [${m.shape.join(', ')}] and dtype ${m.dtype} needs ${n * Ctor.BYTES_PER_ELEMENT} bytes, got ${m.data.byteLength}`);
  const copy = new Uint8Array(m.data.byteLength);
  copy.set(m.data);
  return { array: new Ctor(copy.buffer) as WireTypedArray, shape: m.shape };
}
