/**
 * Routing: which links a transfer between two hosts crosses, and its latency, computed as SimGrid 3.32
 * computes them from the platform's network (`network.ts`), so that flows share the same links in both.
 *
 * - `Full` zones: the explicit routes (a symmetrical route also gives the reverse one: links in reverse
 *   order, UP and DOWN swapped); a host with no route to itself uses the model's loopback link
 *   (`__loopback__`, 10 GB/s, latency 0, fat pipe), as SimGrid's FullZone does.
 * - Flat clusters (SimGrid's StarZone): host `i` goes up through its limiter (if any), its private link
 *   (`id_link_<radical>`, the `_UP` half when split-duplex) and the backbone (if any); it is reached
 *   through the backbone, the private link (`_DOWN`) and its limiter; a link is counted once per route; a
 *   host to itself takes its loopback when the cluster has one.
 * - Torus: dimension-order routing, each hop in the direction SimGrid picks from the source's coordinates.
 * - Fat-tree (`h;m1..mh;w1..wh;p1..ph`): up by d-mod-k on the destination's position until a switch whose
 *   subtree holds the destination, then down, following SimGrid's labelling and port numbering exactly.
 * - Dragonfly (`g,blue;c,black;r,green;n`): node to its router, then green/black links to the router
 *   holding the blue link to the destination group, the blue link, then green/black links down.
 * - Between zones: SimGrid's recursive search from the common ancestor, through the gateways of the
 *   zone routes (`<zoneRoute>`).
 *
 * A route's latency is the sum of its links' latencies (each time a link is added). Links are numbered
 * densely; routes are computed on demand and cached per (source, destination).
 */
import { InputError } from '../core/errors.js';
import type { ClusterNetworkDescription, LinkRef, LinkSharing, ZoneDescription } from './network.js';

/** A route: its links (ids into the network's link arrays, in order, repeats kept) and its latency, s. */
export interface Route {
  readonly links: readonly number[];
  readonly latency: number;
}

/** SimGrid's default loopback link of `Full` zones (`network/loopback-bw`, `network/loopback-lat`). */
export const MODEL_LOOPBACK = { id: '__loopback__', bandwidth: 10e9, latency: 0 } as const;

type NetPointKind = 'host' | 'router' | 'zone';
interface NetPoint {
  name: string;
  kind: NetPointKind;
  /** The zone that holds it (null for the root zone's own netpoint). */
  zone: Zone | null;
  /** Index among the hosts of its zone (cluster positions), -1 otherwise. */
  position: number;
  /** For a zone netpoint: the zone. */
  self?: Zone;
}

interface LocalRoute {
  gwSrc: NetPoint | null;
  gwDst: NetPoint | null;
}

abstract class Zone {
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

/** The links and routes of a platform's network, with SimGrid's routing. */
export class RoutedNetwork {
  readonly linkName: string[] = [];
  private readonly linkBw: number[] = [];
  private readonly linkLat: number[] = [];
  private readonly linkFat: number[] = [];
  /** Per link: bandwidth (bytes/s), latency (s), 1 for a fat pipe. Filled by `build`. */
  linkBandwidth = new Float64Array(0);
  linkLatency = new Float64Array(0);
  linkFatpipe = new Uint8Array(0);
  /** Host names, in the order of the platform's nodes when built from a platform. */
  readonly hostNames: string[] = [];
  private readonly hostIndex = new Map<string, number>();
  private readonly linkIndex = new Map<string, number>();
  private readonly netpoints = new Map<string, NetPoint>();
  private readonly hostPoints: NetPoint[] = [];
  private readonly cache = new Map<number, Route>();
  private denseCache: (Route | undefined)[] | undefined;
  private readonly where: string;
  /** SimGrid numbers fat-tree leaves with one counter shared by every fat-tree of the platform. */
  fatTreePositions = 0;
  fatTreeLinkIds = 0;
  dragonflyLinkIds = 0;
  private modelLoopback = -1;
  /** Per host: the switch (or router) it hangs from, numbered across the network; see `hostSwitch`. */
  readonly switchOf: number[] = [];
  private switches = 0;

  /** A new switch number. */
  newSwitch(): number {
    return this.switches++;
  }

  /**
   * The switch a host hangs from: its leaf switch in a fat-tree, its router in a dragonfly, the cluster's
   * switch in a flat cluster; in a torus or a `Full` zone every host is its own switch.
   */
  hostSwitch(host: number): number {
    return this.switchOf[host]!;
  }

  /** Builds the routing of a network; `where` names the platform in errors. */
  constructor(root: ZoneDescription, where = 'platform') {
    this.where = where;
    this.buildZone(root, null);
    this.linkBandwidth = Float64Array.from(this.linkBw);
    this.linkLatency = Float64Array.from(this.linkLat);
    this.linkFatpipe = Uint8Array.from(this.linkFat);
  }

  /** Number of links. */
  get linkCount(): number {
    return this.linkName.length;
  }

  /** Number of hosts. */
  get hostCount(): number {
    return this.hostNames.length;
  }

  /** Index of a host by name, or -1. */
  host(name: string): number {
    return this.hostIndex.get(name) ?? -1;
  }

  /** Index of a link by name, or -1. */
  link(name: string): number {
    return this.linkIndex.get(name) ?? -1;
  }

  fail(message: string): never {
    throw new InputError(`network: ${message}`, this.where);
  }

  /** Adds a link; returns its id. */
  addLink(name: string, bandwidth: number, latency: number, sharing: LinkSharing): number {
    if (this.linkIndex.has(name)) this.fail(`two links are named ${JSON.stringify(name)}`);
    const id = this.linkName.length;
    this.linkName.push(name);
    this.linkBw.push(bandwidth);
    this.linkLat.push(latency);
    this.linkFat.push(sharing === 'FATPIPE' ? 1 : 0);
    this.linkIndex.set(name, id);
    return id;
  }

  /** Appends a link to a route and its latency, as SimGrid's `add_link_latency`. */
  addLinkLatency(out: number[], link: number, lat: { v: number }): void {
    out.push(link);
    lat.v += this.linkLat[link]!;
  }

  /** The model's loopback link, created on first use. */
  loopback(): number {
    if (this.modelLoopback < 0) this.modelLoopback = this.addLink(MODEL_LOOPBACK.id, MODEL_LOOPBACK.bandwidth, MODEL_LOOPBACK.latency, 'FATPIPE');
    return this.modelLoopback;
  }

  newPoint(name: string, kind: NetPointKind, zone: Zone | null, position: number): NetPoint {
    if (this.netpoints.has(name)) this.fail(`the name ${JSON.stringify(name)} is used by two hosts, routers or zones`);
    const p: NetPoint = { name, kind, zone, position };
    this.netpoints.set(name, p);
    if (kind === 'host') {
      this.hostIndex.set(name, this.hostNames.length);
      this.hostNames.push(name);
      this.hostPoints.push(p);
      this.switchOf.push(-1);
    }
    return p;
  }

  point(name: string, context: string): NetPoint {
    const p = this.netpoints.get(name);
    if (!p) this.fail(`${context}: no host, router or zone named ${JSON.stringify(name)}`);
    return p;
  }

  /** Resolves a link reference of a route (`reverse`: the route is the reverse of the one written). */
  resolve(ref: LinkRef, reverse: boolean, context: string): number {
    const direct = this.linkIndex.get(ref.id);
    if (direct !== undefined) return direct;
    if (ref.direction === undefined) {
      if (this.linkIndex.has(`${ref.id}_UP`)) this.fail(`${context}: link ${JSON.stringify(ref.id)} is split-duplex; give its direction (UP or DOWN)`);
      this.fail(`${context}: no link named ${JSON.stringify(ref.id)}`);
    }
    const dir = reverse ? (ref.direction === 'UP' ? 'DOWN' : 'UP') : ref.direction;
    const l = this.linkIndex.get(`${ref.id}_${dir}`);
    if (l === undefined) this.fail(`${context}: no link named ${JSON.stringify(`${ref.id}_${dir}`)}`);
    return l;
  }

  private buildZone(d: ZoneDescription, parent: Zone | null): Zone {
    let zone: Zone;
    if (d.cluster) {
      const c = d.cluster;
      if (c.topology === 'FLAT') zone = new StarZone(this, d, c, parent);
      else if (c.topology === 'TORUS') zone = new TorusZone(this, d, c, parent);
      else if (c.topology === 'FAT_TREE') zone = new FatTreeZone(this, d, c, parent);
      else zone = new DragonflyZone(this, d, c, parent);
    } else if (d.routing === 'Full') {
      zone = new FullZone(this, d, parent);
    } else {
      return this.fail(`zone ${JSON.stringify(d.id)}: routing ${JSON.stringify(d.routing)} is not supported (supported: Full, and clusters)`);
    }
    zone.netpoint = this.newPoint(d.id, 'zone', parent, -1);
    zone.netpoint.self = zone;
    return zone;
  }

  /** Builds the sub-zones of a zone (called by zones once their own netpoints exist). */
  buildChildren(d: ZoneDescription, zone: Zone): void {
    for (const z of d.zones) this.buildZone(z, zone);
  }

  /** The route from host `src` to host `dst` (indexes), cached. */
  route(src: number, dst: number): Route {
    const n = this.hostNames.length;
    const key = src * n + dst;
    // a dense table up to 256 hosts (65,536 slots), a map beyond
    if (n <= 256) {
      this.denseCache ??= new Array<Route | undefined>(n * n);
      this.denseCache[key] ??= this.computeRoute(src, dst);
      return this.denseCache[key];
    }
    let r = this.cache.get(key);
    if (!r) {
      r = this.computeRoute(src, dst);
      this.cache.set(key, r);
    }
    return r;
  }

  private computeRoute(src: number, dst: number): Route {
    const out: number[] = [];
    const lat = { v: 0 };
    this.globalRoute(this.hostPoints[src]!, this.hostPoints[dst]!, out, lat);
    return { links: out, latency: lat.v };
  }

  private globalRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): void {
    const [common, srcAnc, dstAnc] = commonAncestors(src, dst);
    if (srcAnc === dstAnc) {
      common.localRoute(src, dst, out, lat);
      return;
    }
    const piece: number[] = [];
    const r = common.localRoute(srcAnc.netpoint, dstAnc.netpoint, piece, lat);
    if (!r.gwSrc || !r.gwDst) this.fail(`no route between zones ${srcAnc.name} and ${dstAnc.name} (needed from ${src.name} to ${dst.name})`);
    if (src !== r.gwSrc) this.globalRoute(src, r.gwSrc, out, lat);
    out.push(...piece);
    if (r.gwDst !== dst) this.globalRoute(r.gwDst, dst, out, lat);
  }
}

function commonAncestors(src: NetPoint, dst: NetPoint): [Zone, Zone, Zone] {
  if (src.zone === dst.zone) return [src.zone!, src.zone!, src.zone!];
  const pathSrc: Zone[] = [];
  for (let z = src.zone; z; z = z.parent) pathSrc.push(z);
  const pathDst: Zone[] = [];
  for (let z = dst.zone; z; z = z.parent) pathDst.push(z);
  let parent: Zone | null = null;
  while (pathSrc.length > 1 && pathDst.length > 1 && pathSrc[pathSrc.length - 1] === pathDst[pathDst.length - 1]) {
    parent = pathSrc.pop()!;
    pathDst.pop();
  }
  const a = pathSrc[pathSrc.length - 1]!;
  const b = pathDst[pathDst.length - 1]!;
  return [a === b ? a : parent!, a, b];
}

interface FullRoute {
  links: number[];
  gwSrc: NetPoint | null;
  gwDst: NetPoint | null;
}

/** SimGrid's FullZone: explicit routes. */
class FullZone extends Zone {
  private readonly net: RoutedNetwork;
  private readonly table = new Map<string, FullRoute>();
  private readonly base: boolean;
  constructor(net: RoutedNetwork, d: ZoneDescription, parent: Zone | null) {
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
abstract class ClusterZone extends Zone {
  protected readonly net: RoutedNetwork;
  protected readonly c: ClusterNetworkDescription;
  protected readonly hasLoopback: boolean;
  protected readonly hasLimiter: boolean;
  protected linksPerNode = 0;
  protected readonly up: number[] = [];
  protected readonly down: number[] = [];
  protected readonly hosts: NetPoint[] = [];
  constructor(net: RoutedNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
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
class StarZone extends Zone {
  private readonly net: RoutedNetwork;
  private readonly upLinks: number[][] = [];
  private readonly downLinks: number[][] = [];
  private readonly loopbacks: number[] = [];
  constructor(net: RoutedNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
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

/** SimGrid's TorusZone. */
class TorusZone extends ClusterZone {
  private readonly dims: number[];
  constructor(net: RoutedNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
    super(net, d, c, parent);
    const expected = 'comma-separated dimensions such as "4,4,4"';
    this.dims = this.ints(c.topo_parameters, ',', null, expected);
    const total = this.dims.reduce((a, b) => a * b, 1);
    if (this.dims.length === 0 || this.dims.some((x) => x <= 0)) this.paramError(expected);
    if (total !== d.hosts.length) net.fail(`cluster ${d.id}: a ${this.dims.join('x')} torus has ${total} nodes, the cluster has ${d.hosts.length} hosts`);
    this.linksPerNode = this.dims.length;
    this.fillLeaves(d);
    for (const h of d.hosts) net.switchOf[net.host(h)] = net.newSwitch();
    for (let i = 0; i < total; i++) {
      const position = this.nodePosWithLoopbackLimiter(i);
      let dimProduct = 1;
      for (let j = 0; j < this.dims.length; j++) {
        const cur = this.dims[j]!;
        const neighbour = Math.floor(i / dimProduct) % cur === cur - 1 ? i - (cur - 1) * dimProduct : i + dimProduct;
        const [up, down] = this.linkPair(`${this.name}_link_from_${i}_to_${neighbour}`, c.bw);
        this.setPrivate(position + j, up, down);
        dimProduct *= cur;
      }
    }
  }
  localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute {
    if (src.kind === 'router' || dst.kind === 'router') return { gwSrc: null, gwDst: null };
    const s = src.position;
    const t = dst.position;
    if (s === t && this.hasLoopback) {
      this.net.addLinkLatency(out, this.up[this.nodePos(s)]!, lat);
      return { gwSrc: null, gwDst: null };
    }
    const n = this.dims.length;
    const my: number[] = [];
    const target: number[] = [];
    let dsp = 1;
    for (let i = 0; i < n; i++) {
      my.push(Math.floor(s / dsp) % this.dims[i]!);
      target.push(Math.floor(t / dsp) % this.dims[i]!);
      dsp *= this.dims[i]!;
    }
    let linkOffset = (n + 1) * s;
    let useUp = false;
    let current = s;
    while (current !== t) {
      let next = 0;
      let dimProduct = 1;
      for (let j = 0; j < n; j++) {
        const cur = this.dims[j]!;
        if (Math.floor(current / dimProduct) % cur !== Math.floor(t / dimProduct) % cur) {
          const half = Math.floor(cur / 2);
          if ((target[j]! > my[j]! && target[j]! <= my[j]! + half) || (my[j]! > half && (my[j]! + half) % cur >= target[j]!)) {
            next = Math.floor(current / dimProduct) % cur === cur - 1 ? current + dimProduct - dimProduct * cur : current + dimProduct;
            linkOffset = this.nodePosWithLoopbackLimiter(current) + j;
            useUp = true;
          } else {
            next = Math.floor(current / dimProduct) % cur === 0 ? current - dimProduct + dimProduct * cur : current - dimProduct;
            linkOffset = this.nodePosWithLoopbackLimiter(next) + j;
            useUp = false;
          }
          break;
        }
        dimProduct *= cur;
      }
      if (this.hasLimiter) out.push(this.up[this.nodePosWithLoopback(current)]!);
      this.net.addLinkLatency(out, useUp ? this.up[linkOffset]! : this.down[linkOffset]!, lat);
      current = next;
    }
    if (this.hasLimiter) out.push(this.down[this.nodePosWithLoopback(t)]!);
    return { gwSrc: null, gwDst: null };
  }
}

interface FatTreeNode {
  id: number;
  level: number;
  position: number;
  label: number[];
  children: FatTreeLink[];
  parents: FatTreeLink[];
  limiter: number;
  loopback: number;
}
interface FatTreeLink {
  upNode: FatTreeNode;
  downNode: FatTreeNode;
  upLink: number;
  downLink: number;
}

/** SimGrid's FatTreeZone. */
class FatTreeZone extends ClusterZone {
  private readonly levels: number;
  private readonly childCount: number[];
  private readonly upCount: number[];
  private readonly ports: number[];
  private readonly nodes: FatTreeNode[] = [];
  private readonly compute: FatTreeNode[] = [];
  private readonly byLevel: number[] = [];
  constructor(net: RoutedNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
    super(net, d, c, parent);
    const expected = '"levels;children per level;parents per level;ports per level", e.g. "2;4,4;1,2;1,2"';
    const parts = c.topo_parameters.split(';');
    if (parts.length !== 4) this.paramError(expected);
    this.levels = this.ints(parts[0]!, ';', 1, expected)[0]!;
    this.childCount = this.ints(parts[1]!, ',', this.levels, expected);
    this.upCount = this.ints(parts[2]!, ',', this.levels, expected);
    this.ports = this.ints(parts[3]!, ',', this.levels, expected);
    if (this.levels <= 0 || [...this.childCount, ...this.upCount, ...this.ports].some((x) => x <= 0)) this.paramError(expected);
    const total = this.childCount.reduce((a, b) => a * b, 1);
    if (total !== d.hosts.length) net.fail(`cluster ${d.id}: fat-tree ${c.topo_parameters} has ${total} nodes, the cluster has ${d.hosts.length} hosts`);
    const leaves = this.fillLeaves(d);
    leaves.forEach((l, i) => {
      const node: FatTreeNode = {
        id: i,
        level: 0,
        position: net.fatTreePositions++,
        label: new Array<number>(this.levels).fill(0),
        children: [],
        parents: new Array(this.upCount[0]! * this.ports[0]!),
        limiter: l.limiter,
        loopback: l.loopback,
      };
      this.compute.push(node);
      this.nodes.push(node);
    });
    this.generateSwitches();
    this.generateLabels();
    let k = 0;
    for (let i = 0; i < this.levels; i++)
      for (let j = 0; j < this.byLevel[i]!; j++) {
        this.connectToParents(this.nodes[k]!);
        k++;
      }
    // a leaf hangs from the switch of its first parent link
    const base = net.newSwitch();
    for (let s = 1; s < 2 * this.compute.length; s++) net.newSwitch();
    this.compute.forEach((leaf, i) => {
      net.switchOf[net.host(d.hosts[i]!)] = base + (leaf.parents[0]?.upNode.id ?? leaf.id);
    });
  }
  private generateSwitches(): void {
    this.byLevel.length = this.levels + 1;
    this.byLevel[0] = this.childCount.reduce((a, b) => a * b, 1);
    for (let i = 0; i < this.levels; i++) {
      let n = 1;
      for (let j = 0; j <= i; j++) n *= this.upCount[j]!;
      for (let j = i + 1; j < this.levels; j++) n *= this.childCount[j]!;
      this.byLevel[i + 1] = n;
    }
    let k = 2 * this.compute.length;
    for (let i = 0; i < this.levels; i++)
      for (let j = 0; j < this.byLevel[i + 1]!; j++) {
        k--;
        const limiter = this.hasLimiter ? this.net.addLink(`${this.name}_link_${k}_limiter`, this.c.limiter_link!, 0, 'SHARED') : -1;
        this.nodes.push({
          id: k,
          level: i + 1,
          position: j,
          label: new Array<number>(this.levels).fill(0),
          children: new Array(this.childCount[i]! * this.ports[i]!),
          parents: i !== this.levels - 1 ? new Array(this.upCount[i + 1]! * this.ports[i + 1]!) : [],
          limiter,
          loopback: -1,
        });
      }
  }
  private generateLabels(): void {
    const max = new Array<number>(this.levels).fill(0);
    let k = 0;
    for (let i = 0; i <= this.levels; i++) {
      const cur = new Array<number>(this.levels).fill(0);
      for (let j = 0; j < this.levels; j++) max[j] = j + 1 > i ? this.childCount[j]! : this.upCount[j]!;
      for (let j = 0; j < this.byLevel[i]!; j++) {
        this.nodes[k]!.label = cur.slice();
        let remainder = true;
        let pos = 0;
        while (remainder && pos < this.levels) {
          cur[pos]!++;
          if (cur[pos]! >= max[pos]!) {
            cur[pos] = 0;
            remainder = true;
            pos++;
          } else {
            pos = 0;
            remainder = false;
          }
        }
        k++;
      }
    }
  }
  private related(parent: FatTreeNode, child: FatTreeNode): boolean {
    if (parent.level !== child.level + 1) return false;
    for (let i = 0; i < this.levels; i++) if (parent.label[i] !== child.label[i] && i + 1 !== parent.level) return false;
    return true;
  }
  private connectToParents(node: FatTreeNode): void {
    const level = node.level;
    let p = this.byLevel.slice(0, level + 1).reduce((a, b) => a + b, 0);
    for (let i = 0; i < this.byLevel[level + 1]!; i++, p++) {
      const parent = this.nodes[p]!;
      if (!this.related(parent, node)) continue;
      for (let j = 0; j < this.ports[level]!; j++) {
        const parentPort = node.label[level]! + j * this.childCount[level]!;
        const childPort = parent.label[level]! + j * this.upCount[level]!;
        const [up, down] = this.linkPair(`link_from_${node.id}_${parent.id}_${this.net.fatTreeLinkIds++}`, this.c.bw);
        const link: FatTreeLink = { upNode: parent, downNode: node, upLink: up, downLink: down };
        parent.children[parentPort] = link;
        node.parents[childPort] = link;
      }
    }
  }
  private inSubTree(root: FatTreeNode, node: FatTreeNode): boolean {
    if (root.level <= node.level) return false;
    for (let i = 0; i < node.level; i++) if (root.label[i] !== node.label[i]) return false;
    for (let i = root.level; i < this.levels; i++) if (root.label[i] !== node.label[i]) return false;
    return true;
  }
  localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute {
    if (src.kind === 'router' || dst.kind === 'router') return { gwSrc: null, gwDst: null };
    const source = this.compute[src.position]!;
    const destination = this.compute[dst.position]!;
    if (source.id === destination.id && this.hasLoopback) {
      this.net.addLinkLatency(out, source.loopback, lat);
      return { gwSrc: null, gwDst: null };
    }
    let cur = source;
    while (!this.inSubTree(cur, destination)) {
      let d = destination.position;
      for (let i = 0; i < cur.level; i++) d = Math.trunc(d / this.upCount[i]!);
      const k = this.upCount[cur.level]! * this.ports[cur.level]!;
      d %= k;
      if (cur.limiter >= 0) out.push(cur.limiter);
      const link = cur.parents[d];
      if (!link) this.net.fail(`cluster ${this.name}: fat-tree ${this.c.topo_parameters}: SimGrid's route from ${src.name} to ${dst.name} is undefined`);
      this.net.addLinkLatency(out, link.upLink, lat);
      cur = link.upNode;
    }
    while (cur !== destination) {
      const d = source.position % this.ports[cur.level - 1]!;
      for (let i = d * this.childCount[cur.level - 1]!; i < cur.children.length; i++) {
        if (i % this.childCount[cur.level - 1]! === destination.label[cur.level - 1]) {
          const link = cur.children[i]!;
          this.net.addLinkLatency(out, link.downLink, lat);
          if (cur.limiter >= 0) out.push(cur.limiter);
          cur = link.downNode;
        }
      }
    }
    if (cur.limiter >= 0) out.push(cur.limiter);
    return { gwSrc: null, gwDst: null };
  }
}

interface DragonflyRouter {
  group: number;
  chassis: number;
  blade: number;
  limiter: number;
  myNodes: number[];
  green: number[];
  black: number[];
  blue: number;
}

/** SimGrid's DragonflyZone. */
class DragonflyZone extends ClusterZone {
  private readonly groups: number;
  private readonly blueLinks: number;
  private readonly chassis: number;
  private readonly blackLinks: number;
  private readonly blades: number;
  private readonly greenLinks: number;
  private readonly nodesPerBlade: number;
  private readonly linksPerLink: number;
  private readonly routers: DragonflyRouter[] = [];
  constructor(net: RoutedNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
    super(net, d, c, parent);
    const expected = '"groups,blue links;chassis,black links;routers,green links;nodes", e.g. "3,1;2,1;2,1;2"';
    const parts = c.topo_parameters.split(';');
    if (parts.length !== 4) this.paramError(expected);
    [this.groups, this.blueLinks] = this.ints(parts[0]!, ',', 2, expected) as [number, number];
    [this.chassis, this.blackLinks] = this.ints(parts[1]!, ',', 2, expected) as [number, number];
    [this.blades, this.greenLinks] = this.ints(parts[2]!, ',', 2, expected) as [number, number];
    this.nodesPerBlade = this.ints(parts[3]!, ';', 1, expected)[0]!;
    if ([this.groups, this.blueLinks, this.chassis, this.blackLinks, this.blades, this.greenLinks, this.nodesPerBlade].some((x) => x <= 0))
      this.paramError(expected);
    this.linksPerLink = this.splitDuplex() ? 2 : 1;
    const total = this.groups * this.chassis * this.blades * this.nodesPerBlade;
    if (total !== d.hosts.length) net.fail(`cluster ${d.id}: dragonfly ${c.topo_parameters} has ${total} nodes, the cluster has ${d.hosts.length} hosts`);
    this.fillLeaves(d);
    // routers, with their limiters (ids counted down from 2 * nodes)
    let id = 2 * total;
    for (let i = 0; i < this.groups; i++)
      for (let j = 0; j < this.chassis; j++)
        for (let k = 0; k < this.blades; k++) {
          let limiter = -1;
          if (this.hasLimiter) {
            id--;
            limiter = net.addLink(`${this.name}_link_${id}_limiter`, c.limiter_link!, 0, 'SHARED');
          }
          this.routers.push({ group: i, chassis: j, blade: k, limiter, myNodes: [], green: [], black: [], blue: -1 });
        }
    this.generateLinks();
    const base = net.newSwitch();
    for (let s = 1; s < this.routers.length; s++) net.newSwitch();
    d.hosts.forEach((h, i) => {
      const c = this.coords(i);
      net.switchOf[net.host(h)] = base + c.group * this.chassis * this.blades + c.chassis * this.blades + c.blade;
    });
  }
  private pair(id: string, count: number): [number, number] {
    return this.linkPair(id, this.c.bw * count);
  }
  private generateLinks(): void {
    const nRouters = this.groups * this.chassis * this.blades;
    for (let i = 0; i < nRouters; i++) {
      const r = this.routers[i]!;
      for (let j = 0; j < this.linksPerLink * this.nodesPerBlade; j += this.linksPerLink) {
        const [up, down] = this.pair(`local_link_from_router_${i}_to_node_${j / this.linksPerLink}_${this.net.dragonflyLinkIds}`, 1);
        r.myNodes[j] = up;
        if (this.splitDuplex()) r.myNodes[j + 1] = down;
        this.net.dragonflyLinkIds++;
      }
    }
    for (let i = 0; i < this.groups * this.chassis; i++)
      for (let j = 0; j < this.blades; j++)
        for (let k = j + 1; k < this.blades; k++) {
          const [up, down] = this.pair(`green_link_in_chassis_${i % this.chassis}_between_routers_${j}_and_${k}_${this.net.dragonflyLinkIds}`, this.greenLinks);
          this.routers[i * this.blades + j]!.green[k] = up;
          this.routers[i * this.blades + k]!.green[j] = down;
          this.net.dragonflyLinkIds++;
        }
    for (let i = 0; i < this.groups; i++)
      for (let j = 0; j < this.chassis; j++)
        for (let k = j + 1; k < this.chassis; k++)
          for (let l = 0; l < this.blades; l++) {
            const [up, down] = this.pair(`black_link_in_group_${i}_between_chassis_${j}_and_${k}_blade_${l}_${this.net.dragonflyLinkIds}`, this.blackLinks);
            this.routers[i * this.blades * this.chassis + j * this.blades + l]!.black[k] = up;
            this.routers[i * this.blades * this.chassis + k * this.blades + l]!.black[j] = down;
            this.net.dragonflyLinkIds++;
          }
    for (let i = 0; i < this.groups; i++)
      for (let j = i + 1; j < this.groups; j++) {
        const ri = i * this.blades * this.chassis + j;
        const rj = j * this.blades * this.chassis + i;
        const [up, down] = this.pair(`blue_link_between_group_${i}_and_${j}_routers_${ri}_and_${rj}_${this.net.dragonflyLinkIds}`, this.blueLinks);
        if (!this.routers[ri] || !this.routers[rj])
          this.net.fail(
            `cluster ${this.name}: dragonfly ${this.c.topo_parameters}: SimGrid needs at least ${this.groups - 1} routers per group (chassis x routers) for the blue links`,
          );
        this.routers[ri]!.blue = up;
        this.routers[rj]!.blue = down;
        this.net.dragonflyLinkIds++;
      }
  }
  private coords(rank: number): { group: number; chassis: number; blade: number; node: number } {
    const perGroup = this.chassis * this.blades * this.nodesPerBlade;
    const group = Math.floor(rank / perGroup);
    rank %= perGroup;
    const chassis = Math.floor(rank / (this.blades * this.nodesPerBlade));
    rank %= this.blades * this.nodesPerBlade;
    return { group, chassis, blade: Math.floor(rank / this.nodesPerBlade), node: rank % this.nodesPerBlade };
  }
  private router(i: number, src: NetPoint, dst: NetPoint): DragonflyRouter {
    const r = this.routers[i];
    if (!r)
      this.net.fail(
        `cluster ${this.name}: dragonfly ${this.c.topo_parameters}: SimGrid's route from ${src.name} to ${dst.name} goes through a router that does not exist`,
      );
    return r;
  }
  private add(out: number[], link: number | undefined, lat: { v: number }, src: NetPoint, dst: NetPoint): void {
    if (link === undefined || link < 0)
      this.net.fail(
        `cluster ${this.name}: dragonfly ${this.c.topo_parameters}: SimGrid's route from ${src.name} to ${dst.name} uses a link that does not exist`,
      );
    this.net.addLinkLatency(out, link, lat);
  }
  localRoute(src: NetPoint, dst: NetPoint, out: number[], lat: { v: number }): LocalRoute {
    if (src.kind === 'router' || dst.kind === 'router') return { gwSrc: null, gwDst: null };
    if (src.position === dst.position && this.hasLoopback) {
      this.net.addLinkLatency(out, this.up[this.nodePos(src.position)]!, lat);
      return { gwSrc: null, gwDst: null };
    }
    const my = this.coords(src.position);
    const target = this.coords(dst.position);
    const cb = this.chassis * this.blades;
    const myRouter = this.routers[my.group * cb + my.chassis * this.blades + my.blade]!;
    const targetRouter = this.routers[target.group * cb + target.chassis * this.blades + target.blade]!;
    let cur = myRouter;
    if (this.hasLimiter) out.push(this.up[this.nodePosWithLoopback(src.position)]!);
    this.add(out, myRouter.myNodes[my.node * this.linksPerLink], lat, src, dst);
    if (targetRouter !== myRouter) {
      if (targetRouter.group !== cur.group) {
        if (cur.blade !== target.group) {
          if (cur.limiter >= 0) out.push(cur.limiter);
          this.add(out, cur.green[target.group], lat, src, dst);
          cur = this.router(my.group * cb + my.chassis * this.blades + target.group, src, dst);
        }
        if (cur.chassis !== 0) {
          if (cur.limiter >= 0) out.push(cur.limiter);
          this.add(out, cur.black[0], lat, src, dst);
          cur = this.router(my.group * cb + target.group, src, dst);
        }
        this.add(out, cur.blue, lat, src, dst);
        if (cur.limiter >= 0) out.push(cur.limiter);
        cur = this.router(target.group * cb + my.group, src, dst);
      }
      if (targetRouter.blade !== cur.blade) {
        if (cur.limiter >= 0) out.push(cur.limiter);
        this.add(out, cur.green[target.blade], lat, src, dst);
        cur = this.router(target.group * cb + target.blade, src, dst);
      }
      if (targetRouter.chassis !== cur.chassis) {
        if (cur.limiter >= 0) out.push(cur.limiter);
        this.add(out, cur.black[target.chassis], lat, src, dst);
      }
    }
    if (targetRouter.limiter >= 0) out.push(targetRouter.limiter);
    this.add(out, targetRouter.myNodes[target.node * this.linksPerLink + this.linksPerLink - 1], lat, src, dst);
    if (this.hasLimiter) out.push(this.down[this.nodePosWithLoopback(dst.position)]!);
    return { gwSrc: null, gwDst: null };
  }
}

const networks = new WeakMap<object, RoutedNetwork>();

/**
 * The routed network of a platform (built once per platform): its hosts are the platform's nodes.
 * Throws an `InputError` when the platform has no network.
 */
export function platformNetwork(p: { name: string; description: { network?: ZoneDescription | undefined } }): RoutedNetwork {
  let n = networks.get(p);
  if (!n) {
    const root = p.description.network;
    if (!root) throw new InputError('the platform has no network (a SimGrid XML platform, or a native one with `network`)', p.name);
    n = new RoutedNetwork(root, p.name);
    networks.set(p, n);
  }
  return n;
}
