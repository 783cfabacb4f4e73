/**
 * The power-state model (src/platform/powerStates.ts), by hand: a node without power states has one
 * compute state whose wattages are its processors' power with no core and all cores busy; a SimGrid host
 * keeps its states, with Batsim's sleep_pstates marking sleep and transition states; a malformed
 * sleep_pstates names the host; a machine draws idleW or fullW, and switching lasts one operation.
 */
import { describe, expect, it } from 'vitest';
import { parsePlatform } from '../../src/platform/loader.js';
import { idleAndFullWatts, nodePowerStates, pstateWatts, switchDuration } from '../../src/platform/powerStates.js';

const proc = (cores: number, s: number, d: number, m: number) => ({ cores, static_power: s, dynamic_power: d, min_power: m });

describe('power states', () => {
  it('a node without states: one compute state from its processors (idle: min_power x static; full: static + cores x dynamic)', () => {
    const node = { processors: [proc(4, 20, 10, 0.5), proc(2, 8, 3, 0)] };
    // idle 0.5 x 20 + 0 x 8 = 10; full (20 + 4 x 10) + (8 + 2 x 3) = 74
    expect(idleAndFullWatts(node)).toEqual({ idle: 10, full: 74 });
    expect(nodePowerStates(node, 'n', 2e9)).toEqual([{ kind: 'compute', speed: 2e9, idleW: 10, fullW: 74 }]);
  });

  it("a SimGrid host: its states (missing wattages from the processors), sleep_pstates' sleep:off:on", () => {
    const node = {
      processors: [proc(2, 0, 0, 0)],
      pstates: [{ speed: 1e9, idle: 100, epsilon: 120, all_cores: 200 }, { speed: 5e8, idle: 90 }, { speed: 0.5 }, { speed: 0.25, all_cores: 30 }],
      properties: { sleep_pstates: '1:2:3' },
    };
    const states = nodePowerStates(node, 'h', 1e9);
    expect(states).toEqual([
      { kind: 'compute', speed: 1e9, idleW: 100, fullW: 200 },
      { kind: 'sleep', speed: 5e8, idleW: 90, fullW: 90, off: 2, on: 3 },
      { kind: 'transition', speed: 0.5, idleW: 0, fullW: 0 },
      { kind: 'transition', speed: 0.25, idleW: 0, fullW: 30 },
    ]);
    expect([pstateWatts(states[0]!, true), pstateWatts(states[0]!, false)]).toEqual([200, 100]);
    // switching through state 3 takes one operation at 0.25 op/s
    expect(switchDuration(states[3]!)).toBe(4);
    expect(() => nodePowerStates({ ...node, properties: { sleep_pstates: '1:2:9' } }, 'h7', 1e9)).toThrow(
      'host h7: prop sleep_pstates "1:2:9": expected sleep:off:on, pstates below 4',
    );
  });

  it('the platform computes them once per group, naming the node that asked first in errors', () => {
    const p = parsePlatform(
      {
        clusters: [
          {
            nodes: [
              {
                id: 'm',
                count: 3,
                memory_gb: 1,
                processors: [{ cores: 1, clock_rate: 1, dpflops_per_cycle: 1 }],
                pstates: [{ speed: 1e9 }, { speed: 1e9 }],
                properties: { sleep_pstates: '1:0:5' },
              },
            ],
          },
        ],
      },
      'p.json',
    );
    // loading does not check them (only what uses power states does, as Batsim's machines)
    expect(p.nodeCount).toBe(3);
    expect(() => p.powerStates(2)).toThrow('host m2: prop sleep_pstates "1:0:5"');
  });
});
