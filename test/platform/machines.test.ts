/**
 * Machines over time (src/platform/machines.ts), by hand: Batsim's pstate switching rules (compute to
 * compute at once, to sleep through the off transition, back through the on one; refusals with the
 * reason and nothing changed) and the energy integral over the states.
 */
import { describe, expect, it } from 'vitest';
import { homogeneousPlatform } from '../../src/platform/homogeneous.js';
import { Machines, type MachinePowerModel, type PState } from '../../src/platform/machines.js';

// pstate 0 and 1 compute (1e9 and 5e8 ops/s), 2 sleep (off through 3, on through 4), 3 and 4 transitions
const PSTATES: PState[] = [
  { kind: 'compute', speed: 1e9, idleW: 100, fullW: 200 },
  { kind: 'compute', speed: 5e8, idleW: 80, fullW: 150 },
  { kind: 'sleep', speed: 1, idleW: 10, fullW: 10, off: 3, on: 4 },
  { kind: 'transition', speed: 0.5, idleW: 50, fullW: 60 },
  { kind: 'transition', speed: 0.25, idleW: 70, fullW: 90 },
];

function machines(): Machines {
  const platform = homogeneousPlatform(2);
  const model: MachinePowerModel = { nodes: [0, 1], pstates: [PSTATES, PSTATES], initial: [0, 0], properties: [{}, {}] };
  return new Machines(platform, model);
}

describe('machines', () => {
  it('compute to compute at once; to sleep through off (1 / 0.5 = 2 s), back through on (1 / 0.25 = 4 s); energy integrates each state', () => {
    const m = machines();
    expect(m.requestPState(0, 1, 0)).toEqual({ switchEnd: null });
    expect(m.pstate[0]).toBe(1);
    expect(m.speed(0)).toBe(5e8);
    expect(m.requestPState(0, 2, 10)).toEqual({ switchEnd: 12 });
    expect(m.stateName(0)).toBe('switching_off');
    m.endSwitch(0, 2, 12);
    expect(m.stateName(0)).toBe('sleeping');
    expect(m.requestPState(0, 0, 20)).toEqual({ switchEnd: 24 });
    expect(m.stateName(0)).toBe('switching_on');
    m.endSwitch(0, 0, 24);
    expect(m.stateName(0)).toBe('idle');
    // 10 s idle in pstate 1 (80 W), 2 s switching off at 60 W, 8 s asleep at 10 W, 4 s switching on at 90 W
    expect(m.energyOf(0, 24)).toBeCloseTo(10 * 80 + 2 * 60 + 8 * 10 + 4 * 90, 9);
    // machine 1 idled in pstate 0 all along
    expect(m.energy(24)).toBeCloseTo(10 * 80 + 2 * 60 + 8 * 10 + 4 * 90 + 24 * 100, 9);
  });

  it('refusals say why and change nothing: no such pstate, computing, switching, sleep to sleep, a transition', () => {
    const m = machines();
    expect(m.requestPState(0, 9, 0)).toEqual({ refused: 'machine 0 has no pstate 9 (it has 5: 0-4)' });
    m.startJob(0, 'w0!1', true, 0);
    expect(m.requestPState(0, 2, 1)).toEqual({ refused: "machine 0 ('node0') is computing job w0!1: it cannot be switched off" });
    expect(m.requestPState(0, 3, 1)).toEqual({ refused: 'machine 0: pstate 3 is a transition pstate, which a scheduler cannot request' });
    expect(m.requestPState(1, 2, 0)).toEqual({ switchEnd: 2 });
    expect(m.requestPState(1, 0, 1)).toEqual({ refused: "machine 1 ('node1') is switching off: its pstate cannot change before the switch ends" });
    m.endSwitch(1, 2, 2);
    expect(m.requestPState(1, 2, 3)).toEqual({
      refused: "Switching from a sleep pstate to a non-computation pstate on machine 1 ('node1') : 2 -> 2, which is forbidden",
    });
    expect([m.pstate[0], m.pstate[1], m.stateName(0), m.stateName(1)]).toEqual([0, 2, 'computing', 'sleeping']);
  });
});
