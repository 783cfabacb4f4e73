/** The dmr policy, rule by rule (seed 002 §4.2, §4.3), on hand-made reconfiguration points. */
import { describe, expect, it } from 'vitest';
import { paperSpec } from '../../src/malleable/model.js';
import { dmrPolicy, neverPolicy, type PointContext } from '../../src/malleable/policy.js';

const cg = paperSpec('cg'); // sizes 2..32, pref 8
const at = (size: number, free: number, queue: number[], spec = cg): PointContext => ({ time: 0, size, free, queue, spec });

describe('dmr', () => {
  it('§4.2: no queued job -> expand up to max as far as the free nodes allow', () => {
    expect(dmrPolicy(at(8, 30, []))).toEqual({ size: 32, promote: -1, rule: 'no-queue-expand' });
    expect(dmrPolicy(at(8, 20, []))).toEqual({ size: 16, promote: -1, rule: 'no-queue-expand' });
    expect(dmrPolicy(at(8, 7, []))).toEqual({ size: 8, promote: -1, rule: 'no-action' });
    expect(dmrPolicy(at(32, 32, []))).toEqual({ size: 32, promote: -1, rule: 'no-action' });
  });
  it('§4.2: with queued jobs, go to pref; at pref no action', () => {
    expect(dmrPolicy(at(32, 0, [32]))).toEqual({ size: 8, promote: -1, rule: 'shrink-to-pref' });
    expect(dmrPolicy(at(16, 40, [64]))).toEqual({ size: 8, promote: -1, rule: 'shrink-to-pref' });
    expect(dmrPolicy(at(8, 0, [32]))).toEqual({ size: 8, promote: -1, rule: 'at-pref' });
    expect(dmrPolicy(at(8, 24, [32]))).toEqual({ size: 8, promote: -1, rule: 'at-pref' });
    expect(dmrPolicy(at(2, 6, [32]))).toEqual({ size: 8, promote: -1, rule: 'expand-to-pref' });
  });
  it('§4.3: below pref without nodes to reach it: expand when no queued job can start', () => {
    expect(dmrPolicy(at(2, 3, [32]))).toEqual({ size: 4, promote: -1, rule: 'wide-expand' });
  });
  it('§4.3: shrink for the first queued job that could then start, which gets the top priority', () => {
    // 4 nodes, 1 free: queue [32, 3, 4]: the 32 cannot start; 3 could if the job shrank 4 -> 2
    expect(dmrPolicy(at(4, 1, [32, 3, 4]))).toEqual({ size: 2, promote: 1, rule: 'wide-shrink' });
    // a queued job fits already: no expansion; none needs a shrink to start -> no action
    expect(dmrPolicy(at(4, 1, [1]))).toEqual({ size: 4, promote: -1, rule: 'no-action' });
  });
  it('§4.3 only without pref: expand if nothing queued fits, else the least shrink that lets one start', () => {
    const s = { min: 2, max: 32, pref: null, factor: 2, inhibit: 0 };
    expect(dmrPolicy(at(8, 10, [16], s))).toEqual({ size: 16, promote: -1, rule: 'wide-expand' });
    expect(dmrPolicy(at(16, 2, [64, 10], s))).toEqual({ size: 8, promote: 1, rule: 'wide-shrink' });
    expect(dmrPolicy(at(16, 2, [64, 20], s))).toEqual({ size: 16, promote: -1, rule: 'no-action' });
  });
  it('never resizes', () => {
    expect(neverPolicy(at(32, 0, [32]))).toEqual({ size: 32, promote: -1, rule: 'no-action' });
  });
});
