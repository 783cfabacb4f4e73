/**
 * The cluster topologies of a routed network (`routing.ts`), routed as SimGrid 3.32 does: torus
 * (dimension-order), fat-tree (d-mod-k up, then down, with SimGrid's labelling and port numbering) and
 * dragonfly (green/black links to the router holding the blue link, then down). Each is a
 * `ClusterZone` (`routingZones.ts`).
 */
import type { ClusterNetworkDescription, ZoneDescription } from './network.js';
import { ClusterZone, type LocalRoute, type NetPoint, type Zone, type ZoneNetwork } from './routingZones.js';

/** SimGrid's TorusZone. */
export class TorusZone extends ClusterZone {
  private readonly dims: number[];
  constructor(net: ZoneNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
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
export class FatTreeZone extends ClusterZone {
  private readonly levels: number;
  private readonly childCount: number[];
  private readonly upCount: number[];
  private readonly ports: number[];
  private readonly nodes: FatTreeNode[] = [];
  private readonly compute: FatTreeNode[] = [];
  private readonly byLevel: number[] = [];
  constructor(net: ZoneNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
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
export class DragonflyZone extends ClusterZone {
  private readonly groups: number;
  private readonly blueLinks: number;
  private readonly chassis: number;
  private readonly blackLinks: number;
  private readonly blades: number;
  private readonly greenLinks: number;
  private readonly nodesPerBlade: number;
  private readonly linksPerLink: number;
  private readonly routers: DragonflyRouter[] = [];
  constructor(net: ZoneNetwork, d: ZoneDescription, c: ClusterNetworkDescription, parent: Zone | null) {
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
