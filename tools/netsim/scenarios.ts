/**
 * Communication scenarios for validating the flow model against SimGrid: one SimGrid platform per
 * topology (flat cluster with a backbone, fat-tree, torus, dragonfly, and variants with loopback,
 * limiter, shared and fat-pipe links, explicit `Full` routes and two clusters joined by a zone route), and
 * `n` transfers between random hosts with random sizes and staggered starts (seeded).
 */
import { Rng } from '../../src/core/rng.js';
import type { FlowSpec } from '../../src/platform/flowScenario.js';

/** A platform to validate on: SimGrid XML text and its host names. */
export interface TopologyCase {
  name: string;
  xml: string;
  hosts: string[];
}

const HEAD = `<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n`;

function cluster(id: string, prefix: string, n: number, attrs: string): { xml: string; hosts: string[] } {
  return {
    xml: `  <cluster id="${id}" prefix="${prefix}" suffix="" radical="0-${n - 1}" speed="1Gf" ${attrs}/>\n`,
    hosts: Array.from({ length: n }, (_, i) => `${prefix}${i}`),
  };
}

function inZone(...parts: { xml: string; hosts: string[] }[]): TopologyCase['xml'] {
  return `${HEAD}<zone id="world" routing="Full">\n${parts.map((p) => p.xml).join('')}</zone>\n</platform>\n`;
}

/** Every topology case. `scale` multiplies the host counts (1: 16 to 36 hosts per case). */
export function topologyCases(scale = 1): TopologyCase[] {
  const cases: TopologyCase[] = [];
  const add = (name: string, parts: { xml: string; hosts: string[] }[], xml?: string) =>
    cases.push({ name, xml: xml ?? inZone(...parts), hosts: parts.flatMap((p) => p.hosts) });
  const s = Math.max(1, Math.round(scale));
  // flat cluster: a backbone narrower than the sum of the private links, so flows share it
  add('flat', [cluster('flat', 'f', 32 * s, 'bw="125MBps" lat="50us" bb_bw="1GBps" bb_lat="100us"')]);
  add('flat-shared-loopback-limiter', [
    cluster(
      'fsl',
      'g',
      16 * s,
      'bw="125MBps" lat="20us" sharing_policy="SHARED" bb_bw="500MBps" bb_lat="5us" loopback_bw="1GBps" loopback_lat="1us" limiter_link="100MBps"',
    ),
  ]);
  add('flat-fatpipe-backbone', [cluster('ffb', 'h', 16 * s, 'bw="125MBps" lat="30us" bb_bw="200MBps" bb_lat="10us" bb_sharing_policy="FATPIPE"')]);
  // fat-trees: 32 hosts under 4-port leaves with 2 parents, and a 3-level one with parallel links
  add('fat-tree', [cluster('ft', 'n', 32 * s, `bw="125MBps" lat="10us" topology="FAT_TREE" topo_parameters="2;${8 * s},4;1,2;1,2"`)]);
  add('fat-tree-3', [
    cluster('ft3', 'm', 27, 'bw="125MBps" lat="5us" topology="FAT_TREE" topo_parameters="3;3,3,3;1,2,3;1,1,2" loopback_bw="1GBps" loopback_lat="1us"'),
  ]);
  add('fat-tree-shared-limiter', [
    cluster('fts', 'q', 16, 'bw="125MBps" lat="10us" sharing_policy="SHARED" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2" limiter_link="80MBps"'),
  ]);
  // tori
  add('torus', [cluster('tor', 't', 32 * s, `bw="125MBps" lat="20us" topology="TORUS" topo_parameters="4,4,${2 * s}"`)]);
  add('torus-shared-limiter-loopback', [
    cluster(
      'tsl',
      'u',
      25,
      'bw="125MBps" lat="15us" sharing_policy="SHARED" topology="TORUS" topo_parameters="5,5" limiter_link="90MBps" loopback_bw="1GBps" loopback_lat="2us"',
    ),
  ]);
  // dragonflies (groups <= routers per chassis: SimGrid's routing indexes routers by group)
  add('dragonfly', [cluster('dfl', 'd', 36 * s, `bw="125MBps" lat="10us" topology="DRAGONFLY" topo_parameters="3,1;2,1;3,1;${2 * s}"`)]);
  add('dragonfly-shared-limiter', [
    cluster('dfs', 'e', 24, 'bw="125MBps" lat="10us" sharing_policy="SHARED" topology="DRAGONFLY" topo_parameters="2,2;3,1;2,2;2" limiter_link="100MBps"'),
  ]);
  // explicit routes (a Full zone, SimGrid's small_platform style) and two clusters joined by a zone route
  const full = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
  const links = [
    ['l0', '41.279125MBps', '59.904us', ''],
    ['l1', '34.285625MBps', '514.433us', ''],
    ['l2', '118.6825MBps', '136.931us', ''],
    ['l3', '10.099625MBps', '479.78us', ' sharing_policy="SPLITDUPLEX"'],
    ['l4', '27.94625MBps', '278.066us', ''],
    ['l5', '100MBps', '10us', ' sharing_policy="FATPIPE"'],
  ];
  const routes: [string, string, string][] = [
    ['alpha', 'beta', '<link_ctn id="l0"/><link_ctn id="l2"/>'],
    ['alpha', 'gamma', '<link_ctn id="l0"/><link_ctn id="l3" direction="UP"/>'],
    ['alpha', 'delta', '<link_ctn id="l1"/><link_ctn id="l4"/><link_ctn id="l5"/>'],
    ['alpha', 'eps', '<link_ctn id="l1"/><link_ctn id="l5"/>'],
    ['beta', 'gamma', '<link_ctn id="l2"/><link_ctn id="l3" direction="UP"/><link_ctn id="l4"/>'],
    ['beta', 'delta', '<link_ctn id="l2"/><link_ctn id="l4"/>'],
    ['beta', 'eps', '<link_ctn id="l0"/><link_ctn id="l1"/><link_ctn id="l5"/>'],
    ['gamma', 'delta', '<link_ctn id="l3" direction="DOWN"/><link_ctn id="l4"/>'],
    ['gamma', 'eps', '<link_ctn id="l3" direction="DOWN"/><link_ctn id="l1"/>'],
    ['delta', 'eps', '<link_ctn id="l4"/><link_ctn id="l5"/><link_ctn id="l2"/>'],
  ];
  const fullXml =
    `${HEAD}<zone id="full" routing="Full">\n` +
    full.map((h) => `  <host id="${h}" speed="1Gf"/>\n`).join('') +
    links.map(([id, bw, lat, extra]) => `  <link id="${id}" bandwidth="${bw}" latency="${lat}"${extra}/>\n`).join('') +
    routes.map(([a, b, l]) => `  <route src="${a}" dst="${b}">${l}</route>\n`).join('') +
    '</zone>\n</platform>\n';
  add('full-routes', [{ xml: '', hosts: full }], fullXml);
  const a = cluster('A', 'a', 16 * s, 'bw="125MBps" lat="50us" bb_bw="500MBps" bb_lat="3us"');
  const b = cluster('B', 'b', 8 * s, 'bw="125MBps" lat="50us" bb_bw="300MBps" bb_lat="3us"');
  const twoXml =
    `${HEAD}<zone id="world" routing="Full">\n${a.xml}${b.xml}` +
    '  <link id="wan" bandwidth="200MBps" latency="1ms"/>\n' +
    '  <zoneRoute src="A" dst="B" gw_src="aA_router" gw_dst="bB_router"><link_ctn id="wan"/></zoneRoute>\n</zone>\n</platform>\n';
  add('two-clusters', [a, b], twoXml);
  return cases;
}

/**
 * `n` transfers between random distinct hosts (one in 20 to the same host when `selfFlows`), sizes
 * uniform in `sizes` bytes (integers; default [1e5, 5e7]), starts uniform in [0, `span`] s, ids `f0, f1, ...`.
 */
export function randomFlows(hosts: readonly string[], n: number, seed: number, span = 1, selfFlows = false, sizes: [number, number] = [1e5, 5e7]): FlowSpec[] {
  const rng = new Rng(seed);
  const out: FlowSpec[] = [];
  for (let i = 0; i < n; i++) {
    const src = hosts[rng.int(hosts.length)]!;
    let dst = src;
    const self = selfFlows && rng.next() < 0.05;
    if (!self) while (dst === src) dst = hosts[rng.int(hosts.length)]!;
    out.push({ id: `f${i}`, src, dst, size: Math.round(rng.uniform(sizes[0], sizes[1])), start: rng.uniform(0, span) });
  }
  return out;
}

/**
 * Flows of MPI jobs: jobs start at uniform random times over `span` seconds, each on `k` hosts (`k` drawn
 * from 4, 8, 16, 32) placed as a packing scheduler would (a contiguous block of hosts aligned on `k`,
 * so under as few leaf switches as it can be); a job's all-to-all exchange is `k (k - 1)` flows, one per
 * ordered pair of its hosts, all of the same size (uniform in `sizes`, per job) and starting together at
 * the job's start. Jobs are added until `n` flows (the last job's list is cut there). Flows are listed in
 * start order.
 */
export function mpiJobFlows(hosts: readonly string[], n: number, seed: number, span = 100, sizes: [number, number] = [1e6, 1e7]): FlowSpec[] {
  const rng = new Rng(seed);
  const jobs: { start: number; k: number; first: number; size: number }[] = [];
  let count = 0;
  while (count < n) {
    const k = Math.min([4, 8, 16, 32][rng.int(4)]!, hosts.length);
    const blocks = Math.max(1, Math.floor(hosts.length / k));
    jobs.push({ start: rng.uniform(0, span), k, first: rng.int(blocks) * k, size: Math.round(rng.uniform(sizes[0], sizes[1])) });
    count += k * (k - 1);
  }
  jobs.sort((a, b) => a.start - b.start);
  const out: FlowSpec[] = [];
  jobs.forEach((j, ji) => {
    for (let a = 0; a < j.k && out.length < n; a++)
      for (let b = 0; b < j.k && out.length < n; b++)
        if (a !== b) out.push({ id: `j${ji}-${a}-${b}`, src: hosts[j.first + a]!, dst: hosts[j.first + b]!, size: j.size, start: j.start });
  });
  return out;
}
