/**
 * Spaces: JSON-serialisable descriptors of what an environment observes and accepts, with the same
 * vocabulary as Gymnasium (`Discrete`, `Box`, `MultiBinary`, `Dict`). A descriptor is plain data
 * (`JSON.stringify` gives what the bridge sends and what the Python client turns into
 * `gymnasium.spaces`); the functions here check membership and sample values.
 *
 * Shapes are row-major; a `Box` value is a `Float32Array` of `prod(shape)` elements (or any array
 * of numbers of that length), a `MultiBinary` value a `Uint8Array`, a `Dict` value an object with
 * one value per key.
 */
import type { Rng } from '../src/core/rng.js';

/** `Discrete(n)`: the integers `0 .. n-1`. */
export interface DiscreteSpace {
  type: 'Discrete';
  n: number;
}

/** `Box(low, high, shape, dtype)`: real arrays of `shape` with every element in `[low, high]`. */
export interface BoxSpace {
  type: 'Box';
  low: number;
  high: number;
  shape: number[];
  dtype: 'float32';
}

/** `MultiBinary(n)`: arrays of `n` zeros and ones. */
export interface MultiBinarySpace {
  type: 'MultiBinary';
  n: number;
}

/** `Dict`: one sub-space per key (keys in this order). */
export interface DictSpace {
  type: 'Dict';
  spaces: Record<string, Space>;
}

/** Any space descriptor. */
export type Space = DiscreteSpace | BoxSpace | MultiBinarySpace | DictSpace;

/** `Discrete(n)`. */
export function discrete(n: number): DiscreteSpace {
  return { type: 'Discrete', n };
}

/** `Box(low, high, shape)` of float32. */
export function box(shape: number[], low = 0, high = 1): BoxSpace {
  return { type: 'Box', low, high, shape: shape.slice(), dtype: 'float32' };
}

/** `MultiBinary(n)`. */
export function multiBinary(n: number): MultiBinarySpace {
  return { type: 'MultiBinary', n };
}

/** `Dict(spaces)`. */
export function dict(spaces: Record<string, Space>): DictSpace {
  return { type: 'Dict', spaces };
}

/** Number of elements of a `Box` (product of its shape). */
export function boxSize(s: BoxSpace): number {
  let n = 1;
  for (const d of s.shape) n *= d;
  return n;
}

/** The reason `value` is not in `space`, or null when it is. */
export function spaceViolation(space: Space, value: unknown, path = '$'): string | null {
  switch (space.type) {
    case 'Discrete':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${path}: expected an integer, got ${String(value)}`;
      return value >= 0 && value < space.n ? null : `${path}: ${value} is outside Discrete(${space.n})`;
    case 'MultiBinary': {
      if (!isNumberArray(value)) return `${path}: expected an array of ${space.n} zeros and ones`;
      if (value.length !== space.n) return `${path}: expected ${space.n} elements, got ${value.length}`;
      for (let i = 0; i < value.length; i++) if (value[i] !== 0 && value[i] !== 1) return `${path}[${i}]: ${value[i]} is not 0 or 1`;
      return null;
    }
    case 'Box': {
      if (!isNumberArray(value)) return `${path}: expected a numeric array of shape [${space.shape.join(', ')}]`;
      const n = boxSize(space);
      if (value.length !== n) return `${path}: expected ${n} elements (shape [${space.shape.join(', ')}]), got ${value.length}`;
      for (let i = 0; i < n; i++) {
        const v = value[i]!;
        if (!(v >= space.low && v <= space.high)) return `${path}[${i}]: ${v} is outside [${space.low}, ${space.high}]`;
      }
      return null;
    }
    case 'Dict': {
      if (value === null || typeof value !== 'object') return `${path}: expected an object with keys ${Object.keys(space.spaces).join(', ')}`;
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o)) if (!(k in space.spaces)) return `${path}.${k}: not a key of the Dict space`;
      for (const [k, s] of Object.entries(space.spaces)) {
        if (!(k in o)) return `${path}.${k}: missing`;
        const v = spaceViolation(s, o[k], `${path}.${k}`);
        if (v) return v;
      }
      return null;
    }
  }
}

/** Whether `value` belongs to `space`. */
export function contains(space: Space, value: unknown): boolean {
  return spaceViolation(space, value) === null;
}

/** A random element of `space` (for a `Discrete` with a mask: a random allowed action, -1 when none). */
export function sample(space: Space, rng: Rng, mask?: Uint8Array): unknown {
  switch (space.type) {
    case 'Discrete':
      return mask ? sampleMasked(mask, rng) : rng.int(space.n);
    case 'MultiBinary':
      return Uint8Array.from({ length: space.n }, () => (rng.next() < 0.5 ? 1 : 0));
    case 'Box':
      return Float32Array.from({ length: boxSize(space) }, () => space.low + (space.high - space.low) * rng.next());
    case 'Dict': {
      const o: Record<string, unknown> = {};
      for (const [k, s] of Object.entries(space.spaces)) o[k] = sample(s, rng);
      return o;
    }
  }
}

/** A uniformly random index `i` with `mask[i] === 1`, or -1 when the mask allows nothing. */
export function sampleMasked(mask: Uint8Array, rng: Rng): number {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i]!;
  if (count === 0) return -1;
  let k = rng.int(count);
  for (let i = 0; i < mask.length; i++)
    if (mask[i] === 1) {
      if (k === 0) return i;
      k--;
    }
  return -1;
}

function isNumberArray(v: unknown): v is ArrayLike<number> {
  if (ArrayBuffer.isView(v)) return !(v instanceof DataView);
  return Array.isArray(v) && v.every((x) => typeof x === 'number');
}
