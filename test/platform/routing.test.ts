/**
 * Routing as SimGrid 3.32 computes it, on small platforms worked out by hand from SimGrid's rules
 * (docs/model.md, Interconnect): a flat cluster's private links and backbone, a ring torus, a one-level
 * fat-tree, a two-router dragonfly, explicit Full routes (symmetrical reversal, loopback) and a route
 * between two clusters through their routers. Every pair of hosts of larger platforms is checked against
 * SimGrid itself in test/tools/netsim.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RoutedNetwork } from '../../src/platform/routing.js';
import { parseSimGridPlatform } from '../../src/platform/simgridXml.js';

function net(body: string): RoutedNetwork {
  return new RoutedNetwork(parseSimGridPlatform(`<platform version="4.1">${body}</platform>`, 't.xml').network!, 't.xml');
}
function route(n: RoutedNetwork, a: string, b: string): [string[], number] {
  const r = n.route(n.host(a), n.host(b));
  return [Array.from(r.links, (l) => n.linkName[l]!), r.latency];
}
const cluster = (attrs: string) => `<zone id="w" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" ${attrs}/></zone>`;

describe('routes', () => {
  it('flat cluster: private link up, backbone, private link down; a shared private link once', () => {
    const n = net(cluster('bw="125MBps" lat="50us" bb_bw="200MBps" bb_lat="10us"'));
    expect(route(n, 'n0', 'n1')).toEqual(
      [['c_link_0_UP', 'c_backbone', 'c_link_1_DOWN'], 50 * 1e-6 + 10 * 1e-6 + 50 * 1e-6] /* in route order, SimGrid's units */,
    );
    expect(n.linkBandwidth[n.link('c_backbone')]).toBe(200e6);
    const shared = net(cluster('bw="125MBps" lat="50us" sharing_policy="SHARED"'));
    expect(route(shared, 'n2', 'n2')).toEqual([['c_link_2'], 50 * 1e-6]);
    expect(route(shared, 'n2', 'n3')).toEqual([['c_link_2', 'c_link_3'], 50 * 1e-6 + 50 * 1e-6]);
    const lo = net(cluster('bw="125MBps" lat="50us" loopback_bw="1GBps" loopback_lat="1us" limiter_link="90MBps"'));
    expect(route(lo, 'n1', 'n1')).toEqual([['c_link_1_loopback'], 1 * 1e-6]);
    expect(route(lo, 'n1', 'n2')[0]).toEqual(['c_link_1_limiter', 'c_link_1_UP', 'c_link_2_DOWN', 'c_link_2_limiter']);
    expect(lo.linkFatpipe[lo.link('c_link_1_loopback')]).toBe(1);
  });

  it('torus ring of 4: the shorter way round, decided from the source', () => {
    const n = net(cluster('bw="125MBps" lat="10us" sharing_policy="SHARED" topology="TORUS" topo_parameters="4"'));
    expect(route(n, 'n0', 'n1')[0]).toEqual(['c_link_from_0_to_1']);
    expect(route(n, 'n0', 'n2')[0]).toEqual(['c_link_from_0_to_1', 'c_link_from_1_to_2']);
    expect(route(n, 'n0', 'n3')[0]).toEqual(['c_link_from_3_to_0']);
    expect(route(n, 'n3', 'n0')[0]).toEqual(['c_link_from_3_to_0']);
    expect(route(n, 'n1', 'n3')).toEqual([['c_link_from_1_to_2', 'c_link_from_2_to_3'], 10 * 1e-6 + 10 * 1e-6]);
  });

  it('fat-tree 1;4;1;1: up to the switch, down to the destination', () => {
    const n = net(cluster('bw="125MBps" lat="10us" topology="FAT_TREE" topo_parameters="1;4;1;1"'));
    // leaves 0..3, the switch is 2*4-1 = 7; links numbered in creation order
    expect(route(n, 'n0', 'n2')).toEqual([['link_from_0_7_0_UP', 'link_from_2_7_2_DOWN'], 10 * 1e-6 + 10 * 1e-6]);
    expect(route(n, 'n3', 'n1')[0]).toEqual(['link_from_3_7_3_UP', 'link_from_1_7_1_DOWN']);
  });

  it('dragonfly 1,1;1,1;2,1;2: node to router, green link, router to node', () => {
    const n = net(cluster('bw="125MBps" lat="10us" topology="DRAGONFLY" topo_parameters="1,1;1,1;2,1;2"'));
    expect(route(n, 'n0', 'n3')).toEqual([
      ['local_link_from_router_0_to_node_0_0_UP', 'green_link_in_chassis_0_between_routers_0_and_1_4_UP', 'local_link_from_router_1_to_node_1_3_DOWN'],
      10 * 1e-6 + 10 * 1e-6 + 10 * 1e-6,
    ]);
    expect(route(n, 'n0', 'n1')[0]).toEqual(['local_link_from_router_0_to_node_0_0_UP', 'local_link_from_router_0_to_node_1_1_DOWN']);
  });

  it('Full routes: symmetrical reversal swaps UP and DOWN; a host reaches itself through the loopback', () => {
    const n = net(
      '<zone id="z" routing="Full"><host id="a" speed="1f"/><host id="b" speed="1f"/>' +
        '<link id="x" bandwidth="1MBps" latency="1ms"/><link id="y" bandwidth="2MBps" latency="2ms" sharing_policy="SPLITDUPLEX"/>' +
        '<route src="a" dst="b"><link_ctn id="x"/><link_ctn id="y" direction="UP"/></route></zone>',
    );
    expect(route(n, 'a', 'b')).toEqual([['x', 'y_UP'], 1e-3 + 2e-3]);
    expect(route(n, 'b', 'a')).toEqual([['y_DOWN', 'x'], 2e-3 + 1e-3]);
    expect(route(n, 'a', 'a')).toEqual([['__loopback__'], 0]);
    expect(n.linkBandwidth[n.link('__loopback__')]).toBe(10e9);
  });

  it("two clusters: up to the source cluster's router, the zone route, down from the other router", () => {
    const n = net(
      '<zone id="w" routing="Full">' +
        '<cluster id="A" prefix="a" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="5us" bb_bw="3GBps" bb_lat="3us"/>' +
        '<cluster id="B" prefix="b" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="5us" bb_bw="3GBps" bb_lat="3us"/>' +
        '<link id="wan" bandwidth="5GBps" latency="2us"/>' +
        '<zoneRoute src="A" dst="B" gw_src="aA_router" gw_dst="bB_router"><link_ctn id="wan"/></zoneRoute></zone>',
    );
    expect(route(n, 'a1', 'b0')[0]).toEqual(['A_link_1_UP', 'A_backbone', 'wan', 'B_backbone', 'B_link_0_DOWN']);
    expect(route(n, 'b0', 'a1')[0]).toEqual(['B_link_0_UP', 'B_backbone', 'wan', 'A_backbone', 'A_link_1_DOWN']);
  });

  it('bad networks name the problem', () => {
    expect(() => net(cluster('bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;4,4;1,2"'))).toThrow(
      /topo_parameters "2;4,4;1,2" of a FAT_TREE cluster; expected/,
    );
    expect(() => net(cluster('bw="1GBps" lat="1us" topology="TORUS" topo_parameters="3,3"'))).toThrow(/a 3x3 torus has 9 nodes, the cluster has 4 hosts/);
    expect(() =>
      net('<zone id="z" routing="Full"><host id="a" speed="1f"/><host id="b" speed="1f"/><route src="a" dst="b"><link_ctn id="nope"/></route></zone>'),
    ).toThrow(/no link named "nope"/);
    expect(() => net('<zone id="z" routing="Floyd"><host id="a" speed="1f"/></zone>')).toThrow(/routing "Floyd" is not supported/);
  });
});
