/**
 * Memory-bandwidth contention: IRMaSim's modelV1, per processor (DESIGN §2.3).
 *
 * Every busy core of a processor requests memory bandwidth `y = mem_vol / t_alone` (MB/s), where
 * `t_alone = ops / (mops * 1e6)` is the task's uncontended duration, computed once from the task's
 * total work when it starts. With `x` the sum of `y` over the processor's busy cores and `n` the
 * number of busy cores minus one:
 *
 *     ss(z)   = 1 if z < 0, 0 if z > 1, else 1 - z^3 (6 z^2 - 15 z + 10)         (smoothstep, reversed)
 *     d(y, n) = ss((y - (da - n) db) / (dc - n dd)) * 0.6n / (1 + 0.6n) + 1 / (1 + 0.6n)
 *     S_mem   = 1                 if x < c
 *             = d(y, n)           if x > (d(y, n) + b c - 1) / b
 *             = b (x - c) + 1     otherwise
 *
 * rounded to 9 decimals. `S_mem` multiplies the task's speed. Model `none` always gives 1; so does a
 * processor without coefficients. Variants share the `MemoryModel` interface.
 */
import type { ContentionCoefficients, MemoryModelName } from './platform.js';

/** A memory-contention model: the speed factor of one task given its processor's load. */
export interface MemoryModel {
  readonly name: MemoryModelName;
  /**
   * Speed factor in (0, 1] of a task requesting `y` MB/s on a processor whose busy cores request
   * `x` MB/s in total, `n` being the number of busy cores minus one.
   */
  speedFactor(coeffs: ContentionCoefficients | null, y: number, x: number, n: number): number;
}

/** The reversed smoothstep `ss(z)` of modelV1. */
export function smoothStepDown(z: number): number {
  if (z < 0) return 1;
  if (z > 1) return 0;
  return 1 - z * z * z * (6 * z * z - 15 * z + 10);
}

/** `d(y, n)` of modelV1: the saturated speed factor. */
export function saturatedFactor(k: ContentionCoefficients, y: number, n: number): number {
  const share = 0.6 * n;
  return smoothStepDown((y - (k.da - n) * k.db) / (k.dc - n * k.dd)) * (share / (1 + share)) + 1 / (1 + share);
}

/**
 * `v` rounded to 9 decimals exactly as Python's `round(v, 9)` (IRMaSim's): the decimal nearest to the
 * exact binary value of `v`. `Math.round(v * 1e9)` is that decimal unless `v * 1e9` lies within its
 * rounding error of a half; then the exact decimal expansion (`toFixed`) decides.
 */
export function round9(v: number): number {
  const s = v * 1e9;
  const r = Math.round(s);
  if (Math.abs(Math.abs(s - r) - 0.5) > 1e-6) return r / 1e9;
  return Number.parseFloat(v.toFixed(9));
}

/** IRMaSim modelV1. */
export const irmasimV1: MemoryModel = {
  name: 'irmasim-v1',
  speedFactor(k, y, x, n) {
    if (k === null || x < k.c) return 1;
    const d = saturatedFactor(k, y, n);
    if (x > (d + k.b * k.c - 1) / k.b) return round9(d);
    return round9(k.b * (x - k.c) + 1);
  },
};

/** No memory contention. */
export const noMemoryContention: MemoryModel = {
  name: 'none',
  speedFactor: () => 1,
};

/** The model of a given name. */
export function memoryModel(name: MemoryModelName): MemoryModel {
  return name === 'irmasim-v1' ? irmasimV1 : noMemoryContention;
}

/** Bandwidth request `y` (MB/s) of a task with `memVol` MB of traffic and `ops` operations on a core of `mops`. */
export function bandwidthRequest(memVol: number, ops: number, mops: number): number {
  if (ops <= 0 || memVol <= 0) return 0;
  return memVol / (ops / (mops * 1e6));
}
