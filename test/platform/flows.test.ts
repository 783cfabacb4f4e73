/**
 * The flow model (CM02/LV08 as SimGrid computes them) on scenarios worked out by hand: a backbone
 * shared by two flows (crosstraffic weight 1.05), LV08's latency and bandwidth factors, RTT unfairness
 * (shares inversely proportional to the route latency), the TCP window bound, a fat pipe; then
 * invariants on random scenarios (fast-check): every flow completes, no earlier than its latency plus its
 * size at its bound, and no link ever carries more than its bandwidth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulateFlows } from '../../src/platform/flowScenario.js';
import { CM02, FlowSolver, LV08 } from '../../src/platform/flows.js';
import { RoutedNetwork } from '../../src/platform/routing.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';

const net = (body: string) => new RoutedNetwork(parseSimGridPlatform(`<platform version="4.1">${body}</platform>`, 't.xml').network!, 't.xml');
const us = (x: number) => x * 1e-6;
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** 4 hosts, private links 125 MB/s 50 us (split-duplex), backbone 200 MB/s 10 us. */
const FLAT = net(
  '<zone id="w" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us" bb_bw="200MBps" bb_lat="10us"/></zone>',
);

describe('flow model', () => {
  it('CM02: a flow alone at its link speed, then two sharing the backbone at 200e6 / (2 x 1.05) each', () => {
    const L = us(50) + us(10) + us(50);
    const [a, b] = simulateFlows(FLAT, CM02, [
      { id: 'a', src: 'n0', dst: 'n1', size: 1e8, start: 0 },
      { id: 'b', src: 'n2', dst: 'n3', size: 5e7, start: 0.1 },
    ]);
    // a alone from L to 0.1 + L at 125e6 (its backbone share 200e6 / 1.05 is larger): 12.5e6 bytes
    // then both flows weigh 1 + 0.05 (acknowledgements) on the backbone: 200e6 / 2.1 each
    const shared = 200e6 / 2.1;
    const bDone = 0.1 + L + 5e7 / shared;
    expect(rel(b!.finish, bDone)).toBeLessThan(1e-12);
    const aLeft = 1e8 - 0.1 * 125e6 - (bDone - (0.1 + L)) * shared;
    expect(rel(a!.finish, bDone + aLeft / 125e6)).toBeLessThan(1e-12);
    expect(a!.finish).toBeCloseTo(0.92511, 9);
    expect(b!.finish).toBeCloseTo(0.62511, 9);
  });

  it('LV08: latency x 13.01, rate x 0.97', () => {
    const L = us(50) + us(10) + us(50);
    const [a] = simulateFlows(FLAT, LV08, [{ id: 'a', src: 'n0', dst: 'n1', size: 1e8, start: 0 }]);
    expect(rel(a!.finish, L * 13.01 + 1e8 / (0.97 * 125e6))).toBeLessThan(1e-12);
  });

  it('RTT unfairness: two flows on one link share it in inverse proportion of their latencies', () => {
    // route a->b: [x] (1 ms); a->c: [x, y] (1 + 3 = 4 ms); x is the bottleneck (100 MB/s)
    const n = net(
      '<zone id="z" routing="Full"><host id="a" speed="1f"/><host id="b" speed="1f"/><host id="c" speed="1f"/>' +
        '<link id="x" bandwidth="100MBps" latency="1ms"/><link id="y" bandwidth="1GBps" latency="3ms"/>' +
        '<route src="a" dst="b"><link_ctn id="x"/></route><route src="a" dst="c"><link_ctn id="x"/><link_ctn id="y"/></route>' +
        '<route src="b" dst="c"><link_ctn id="y"/></route></zone>',
    );
    const [f1, f2] = simulateFlows(n, CM02, [
      { id: 1, src: 'a', dst: 'b', size: 1e7, start: 0 },
      { id: 2, src: 'a', dst: 'c', size: 1e7, start: 0 },
    ]);
    const l1 = 1e-3;
    const l2 = 1e-3 + 3e-3;
    // 1 ms to 4 ms: flow 1 alone, x carries it with weight 1.05
    const alone = 100e6 / 1.05;
    // then usage of x = 1.05 / l1 + 1.05 / l2; flow i gets (capacity / usage) / l_i
    const level = 100e6 / (1.05 / l1 + 1.05 / l2);
    const r1 = level / l1;
    const r2 = level / l2;
    expect(r1 / r2).toBeCloseTo(4, 12);
    const t1 = l2 + (1e7 - (l2 - l1) * alone) / r1;
    expect(rel(f1!.finish, t1)).toBeLessThan(1e-12);
    const t2 = t1 + (1e7 - (t1 - l2) * r2) / alone;
    expect(rel(f2!.finish, t2)).toBeLessThan(1e-12);
  });

  it('TCP window: a long fat link limits a flow to gamma / (2 x latency)', () => {
    const n = net(
      '<zone id="z" routing="Full"><host id="a" speed="1f"/><host id="b" speed="1f"/><link id="x" bandwidth="1GBps" latency="100ms"/>' +
        '<route src="a" dst="b"><link_ctn id="x"/></route></zone>',
    );
    const [f] = simulateFlows(n, CM02, [{ id: 0, src: 'a', dst: 'b', size: 4194304 / 0.2, start: 0 }]);
    expect(rel(f!.finish, 0.1 + 1)).toBeLessThan(1e-12);
  });

  it('a fat pipe gives every flow its full bandwidth', () => {
    const n = net(
      '<zone id="z" routing="Full"><host id="a" speed="1f"/><host id="b" speed="1f"/><host id="c" speed="1f"/>' +
        '<link id="x" bandwidth="100MBps" latency="1ms" sharing_policy="FATPIPE"/>' +
        '<route src="a" dst="b"><link_ctn id="x"/></route><route src="a" dst="c"><link_ctn id="x"/></route><route src="b" dst="c"><link_ctn id="x"/></route></zone>',
    );
    const out = simulateFlows(n, CM02, [
      { id: 0, src: 'a', dst: 'b', size: 1e8, start: 0 },
      { id: 1, src: 'a', dst: 'c', size: 1e8, start: 0 },
    ]);
    // the forward weight 1 and the reverse 0.05 on the same fat pipe merge as max(1, 0.05) = 1
    for (const f of out) expect(rel(f.finish, 1e-3 + 1)).toBeLessThan(1e-12);
  });

  it('invariants on random scenarios: completion, lower bound, link capacities', () => {
    const hosts = ['n0', 'n1', 'n2', 'n3'];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            s: fc.integer({ min: 0, max: 3 }),
            d: fc.integer({ min: 0, max: 3 }),
            size: fc.integer({ min: 1, max: 1e8 }),
            start: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (specs) => {
          const solver = new FlowSolver(FLAT, CM02);
          const order = specs.map((_, i) => i).sort((a, b) => specs[a]!.start - specs[b]!.start);
          let next = 0;
          const ids: number[] = [];
          for (;;) {
            const te = solver.nextEventTime();
            const ts = next < order.length ? specs[order[next]!]!.start : Infinity;
            if (te === Infinity && ts === Infinity) break;
            if (ts <= te) {
              const sp = specs[order[next++]!]!;
              ids.push(solver.start(FLAT.host(hosts[sp.s]!), FLAT.host(hosts[sp.d]!), sp.size, ts));
            } else solver.advance(te);
            // no link carries more than its bandwidth (weights included), no flow more than its route's narrowest link
            for (let l = 0; l < FLAT.linkCount; l++) {
              expect(solver.linkLoad(l)).toBeLessThanOrEqual(FLAT.linkBandwidth[l]! * (1 + 1e-9));
              for (const f of solver.flowsOn(l)) expect(solver.currentRate(f)).toBeLessThanOrEqual(125e6 * (1 + 1e-12));
            }
          }
          ids.forEach((f, k) => {
            const sp = specs[order[k]!]!;
            expect(solver.done(f)).toBe(true);
            const r = FLAT.route(FLAT.host(hosts[sp.s]!), FLAT.host(hosts[sp.d]!));
            const minBw = Math.min(...Array.from(r.links, (l) => FLAT.linkBandwidth[l]!));
            expect(solver.finish(f)).toBeGreaterThanOrEqual(sp.start + r.latency + (sp.size / minBw) * (1 - 1e-9));
          });
        },
      ),
      { seed: 42, numRuns: 60 },
    );
  });
});
