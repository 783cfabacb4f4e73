/**
 * The zones of a routed network (`routing.ts`) and how a route crosses each, as SimGrid 3.32 routes
 * them: the netpoints (hosts, routers, zones), the `Zone` every kind of zone is, `Full` zones (explicit
 * routes) and the flat cluster (SimGrid's StarZone), and `ClusterZone`, the base of the cluster
 * topologies (`routingTopologies.ts`: torus, fat-tree, dragonfly).
 */
import type { ClusterNetworkDescription, LinkRef, LinkSharing, ZoneDescription } from './network.js';

/**
 * What a zone builds its routes with: the network being built (`RoutedNetwork` in `routing.ts`), its
 * links, netpoints, switches and SimGrid's platform-wide counters.
 */
export interface ZoneNetwork {
  /** Per host: the switch (or router) it hangs from. */
  readonly switchOf: number[];
  /** SimGrid numbers fat-tree leaves and links, and dragonfly links, with counters shared by the platform. */
  fatTreePositions: number;
  fatTreeLinkIds: number;
  dragonflyLinkIds: number;
  newSwitch(): number;
  host(name: string): number;
  fail(message: string): never;
  addLink(name: string, bandwidth: number, latency: number, sharing: LinkSharing): number;
  addLinkLatency(out: number[], link: number, lat: { v: number }): void;
  loopback(): number;
  newPoint(name: string, kind: NetPointKind, zone: Zone | null, position: number): NetPoint;
  point(name: string, context: string): NetPoint;
  resolve(ref: LinkRef, reverse: boolean, context: string): number;
  buildChildren(d: ZoneDescription, zone: Zone): void;
}

export type NetPointKind = 'host' | 'router' | 'zone';
export interface NetPoint {
  name: string;
  kind: NetPointKind;
  /** The zone that holds it (null for the root zone's own netpoint). */
  zone: Zone | null;
  /** Index among the hosts of its zone (cluster positions), -1 otherwise. */
  position: number;
  /** For a zone netpoint: the zone. */
  self?: Zone;
}

export interface LocalRoute {
  gwSrc: NetPoint | null;
  gwDst: NetPoint | null;
}

export abstract class Zone {
  readonly parent: Zone | null;
  readonly name: string;
  netpoint!: NetPoint;
  constructor(name: string, parent: Zone | null) {
    this.name = name;
    this.parent = parent;
  }
  /** Appends the links from `src` to `dst` (both netpoints of this zone) to `out`, their latency to `lat`. */
  abstract localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute;
}

interface FullRoute {
  links: number[];
  gwSrc: NetPoint | null;
  gwDst: NetPoint | null;
}

/** SimGrid's FullZone: explicit routes. */
export class FullZone extends Zone {
  private readonly net: ZoneNetwork;
  private readonly table = new Map<string, FullRoute>();
  private readonly base: boolean;
  constructor(net: ZoneNetwork, d: ZoneDescription, parent: Zone | null) {
    super(d.id, parent);
    this.net = net;
    this.base = d.zones.length === 0;
    if (this.base && d.hosts.length > 0) net.loopback(); // created with the network, as SimGrid's model creates it
    for (const h of d.hosts) net.switchOf[net.host(net.newPoint(h, 'host', this, -1).name)] = net.newSwitch();
    for (const r of d.routers) net.newPoint(r, 'router', this, -1);
    for (const l of d.links) net.addLink(l.id, l.bandwidth, l.latency, l.sharing_policy);
    net.buildChildren(d, this);
    d.routes.forEach((r, i) => {
      const context = `zone ${JSON.stringify(d.id)} route ${i} (${r.src} -> ${r.dst})`;
      const src = net.point(r.src, context);
      const dst = net.point(r.dst, context);
      const gwSrc = r.gw_src !== undefined ? net.point(r.gw_src, context) : null;
      const gwDst = r.gw_dst !== undefined ? net.point(r.gw_dst, context) : null;
      this.add(src, dst, { links: r.links.map((l) => net.resolve(l, false, context)), gwSrc, gwDst }, context);
      if (r.symmetrical && src !== dst)
        this.add(dst, src, { links: r.links.map((l) => net.resolve(l, true, context)).reverse(), gwSrc: gwDst, gwDst: gwSrc }, context);
    });
  }
  private add(src: NetPoint, dst: NetPoint, r: FullRoute, context: string): void {
    const key = `${src.name}\u0000${dst.name}`;
    if (this.table.has(key)) this.net.fail(`${context}: the route from ${src.name} to ${dst.name} already exists (routes are symmetrical by default)`);
    this.table.set(key, r);
  }
  localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute {
    const r = this.table.get(`${src.name}\u0000${dst.name}`);
    if (!r) {
      if (src === dst && this.base) {
        this.net.addLinkLatency(out, this.net.loopback(), lat);
        return { gwSrc: null, gwDst: null };
      }
      return this.net.fail(`zone ${this.name}: no route from ${src.name} to ${dst.name}`);
    }
    for (const l of r.links) this.net.addLinkLatency(out, l, lat);
    return { gwSrc: r.gwSrc, gwDst: r.gwDst };
  }
}

/** Private links of a cluster's hosts (SimGrid's ClusterBase): per position, an up and a down link. */
export abstract class ClusterZone extends Zone {
  protected readonly net: ZoneNetwork;
  protected readonly c: ClusterNetworkDescription;
  protected readonly hasLoopback: boolean;
  protected readonly hasLimiter: boolean;
  protected linksPerNode = 0;
  protected readonly up: number[] = [];
  protected readonly down: number[] = [];
  protected readonly hosts: NetPoint[] = [];
  constructor(net: ZoneNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
    super(d.id, parent);
    this.net = net;
    this.c = c;
    this.hasLoopback = (c.loopback_bw ?? 0) > 0 || (c.loopback_lat ?? 0) > 0;
    this.hasLimiter = (c.limiter_link ?? 0) > 0;
    if (d.links.length > 0 || d.routes.length > 0 || d.zones.length > 0) net.fail(`cluster ${d.id}: a cluster zone has no explicit links, routes or sub-zones`);
    if (c.radicals.length !== d.hosts.length) net.fail(`cluster ${d.id}: ${d.hosts.length} hosts but ${c.radicals.length} radicals`);
  }
  protected splitDuplex(): boolean {
    return this.c.sharing_policy === 'SPLITDUPLEX';
  }
  /** Creates a private link pair (split-duplex: two links) named `id`; returns [up, down]. */
  protected linkPair(id: string, bw: number): [number, number] {
    if (this.splitDuplex()) return [this.net.addLink(`${id}_UP`, bw, this.c.lat, 'SHARED'), this.net.addLink(`${id}_DOWN`, bw, this.c.lat, 'SHARED')];
    const l = this.net.addLink(id, bw, this.c.lat, 'SHARED');
    return [l, l];
  }
  protected setPrivate(position: number, up: number, down: number): void {
    this.up[position] = up;
    this.down[position] = down;
  }
  protected nodePos(id: number): number {
    return id * this.linksPerNode;
  }
  protected nodePosWithLoopback(id: number): number {
    return this.nodePos(id) + (this.hasLoopback ? 1 : 0);
  }
  protected nodePosWithLoopbackLimiter(id: number): number {
    return this.nodePosWithLoopback(id) + (this.hasLimiter ? 1 : 0);
  }
  /** Hosts, loopback and limiter links of each leaf, as SimGrid's `fill_leaf_from_cb` (after `linksPerNode` is set). */
  protected fillLeaves(d: ZoneDescription): { loopback: number; limiter: number }[] {
    if (this.hasLoopback) this.linksPerNode++;
    if (this.hasLimiter) this.linksPerNode++;
    return d.hosts.map((h, i) => {
      this.hosts.push(this.net.newPoint(h, 'host', this, i));
      let loopback = -1;
      let limiter = -1;
      if (this.hasLoopback) {
        loopback = this.net.addLink(`${this.name}_link_${this.c.radicals[i]}_loopback`, this.c.loopback_bw ?? 0, this.c.loopback_lat ?? 0, 'FATPIPE');
        this.setPrivate(this.nodePos(i), loopback, loopback);
      }
      if (this.hasLimiter) {
        limiter = this.net.addLink(`${this.name}_link_${i}_limiter`, this.c.limiter_link!, 0, 'SHARED');
        this.setPrivate(this.nodePosWithLoopback(i), limiter, limiter);
      }
      return { loopback, limiter };
    });
  }
  protected paramError(expected: string): never {
    return this.net.fail(
      `cluster ${this.name}: topo_parameters ${JSON.stringify(this.c.topo_parameters)} of a ${this.c.topology} cluster; expected ${expected}`,
    );
  }
  protected ints(text: string, sep: string, count: number | null, expected: string): number[] {
    const parts = text.split(sep);
    if (count !== null && parts.length !== count) this.paramError(expected);
    return parts.map((p) => {
      const m = /^\s*([+-]?\d+)/.exec(p); // std::stoi
      if (!m) this.paramError(expected);
      return Number(m[1]);
    });
  }
}

/** SimGrid's StarZone as a flat `<cluster>` builds it. */
export class StarZone extends Zone {
  private readonly net: ZoneNetwork;
  private readonly upLinks: number[][] = [];
  private readonly downLinks: number[][] = [];
  private readonly loopbacks: number[] = [];
  constructor(net: ZoneNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
    super(d.id, parent);
    this.net = net;
    if (c.radicals.length !== d.hosts.length) net.fail(`cluster ${d.id}: ${d.hosts.length} hosts but ${c.radicals.length} radicals`);
    let backbone = -1;
    if ((c.bb_bw ?? 0) > 0 || (c.bb_lat ?? 0) > 0) backbone = net.addLink(`${d.id}_backbone`, c.bb_bw ?? 0, c.bb_lat ?? 0, c.bb_sharing_policy ?? 'SHARED');
    const sw = net.newSwitch();
    d.hosts.forEach((h, i) => {
      const p = net.newPoint(h, 'host', this, i);
      net.switchOf[net.host(h)] = sw;
      const linkId = `${d.id}_link_${c.radicals[i]}`;
      this.loopbacks[i] = -1;
      if ((c.loopback_bw ?? 0) > 0 || (c.loopback_lat ?? 0) > 0)
        this.loopbacks[i] = net.addLink(`${linkId}_loopback`, c.loopback_bw ?? 0, c.loopback_lat ?? 0, 'FATPIPE');
      const limiter = (c.limiter_link ?? 0) > 0 ? net.addLink(`${linkId}_limiter`, c.limiter_link!, 0, 'SHARED') : -1;
      let up: number;
      let down: number;
      if (c.sharing_policy === 'SPLITDUPLEX') {
        up = net.addLink(`${linkId}_UP`, c.bw, c.lat, 'SHARED');
        down = net.addLink(`${linkId}_DOWN`, c.bw, c.lat, 'SHARED');
      } else {
        up = down = net.addLink(linkId, c.bw, c.lat, 'SHARED'); // SimGrid sets no other policy on a cluster's private links
      }
      const ups = [...(limiter >= 0 ? [limiter] : []), up, ...(backbone >= 0 ? [backbone] : [])];
      const downs = [...(backbone >= 0 ? [backbone] : []), down, ...(limiter >= 0 ? [limiter] : [])];
      this.upLinks[p.position] = ups;
      this.downLinks[p.position] = downs;
    });
    for (const r of d.routers) {
      const p = net.newPoint(r, 'router', this, this.upLinks.length);
      this.upLinks[p.position] = [];
      this.downLinks[p.position] = [];
      this.loopbacks[p.position] = -1;
    }
  }
  localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute {
    if (src === dst && this.loopbacks[src.position]! >= 0) {
      this.net.addLinkLatency(out, this.loopbacks[src.position]!, lat);
      return { gwSrc: null, gwDst: null };
    }
    const added = new Set<number>();
    for (const l of this.upLinks[src.position]!)
      if (!added.has(l)) {
        added.add(l);
        this.net.addLinkLatency(out, l, lat);
      }
    for (const l of this.downLinks[dst.position]!)
      if (!added.has(l)) {
        added.add(l);
        this.net.addLinkLatency(out, l, lat);
      }
    return { gwSrc: null, gwDst: null };
  }
}
