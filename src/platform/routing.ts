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
 *
 * This module holds the network (links, netpoints, the route between zones, the cache); each zone's
 * own routing is in `routingZones.ts` (Full, flat clusters) and `routingTopologies.ts` (torus,
 * fat-tree, dragonfly).
 */
import { InputError } from '../core/errors.js';
import type { LinkRef, LinkSharing, ZoneDescription } from './network.js';
import { DragonflyZone, FatTreeZone, TorusZone } from './routingTopologies.js';
import { FullZone, type NetPoint, type NetPointKind, StarZone, type Zone, type ZoneNetwork } from './routingZones.js';

/** A route: its links (ids into the network's link arrays, in order, repeats kept) and its latency, s. */
export interface Route {
  readonly links: readonly number[];
  readonly latency: number;
}

/** SimGrid's default loopback link of `Full` zones (`network/loopback-bw`, `network/loopback-lat`). */
export const MODEL_LOOPBACK = { id: '__loopback__', bandwidth: 10e9, latency: 0 } as const;

/** The links and routes of a platform's network, with SimGrid's routing. */
export class RoutedNetwork implements ZoneNetwork {
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
