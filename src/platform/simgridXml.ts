/**
 * SimGrid platform XML (versions 4.x, as SimGrid 3.32 and Batsim read them) to a `PlatformDescription`.
 *
 * What is read:
 * - `<host id speed core pstate>` with `<prop>`s: `speed` lists one speed per power state (`"1Gf, 500Mf"`),
 *   `wattage_per_state` one `Idle:Epsilon:AllCores` (or `Idle:AllCores`, epsilon = idle) triple per state,
 *   `wattage_off` the power when off. A host becomes a node with one processor of `core` cores;
 *   the current power state gives its speed (`clock_rate = speed / 1e9` GHz, `dpflops_per_cycle = 1`,
 *   so a core runs `speed / 1e6` Mops) and its IRMaSim power figures, chosen so that the simulator's
 *   power equals SimGrid's energy plugin for every number `k` of busy cores out of `n`:
 *   `P(k) = epsilon + (k / n) (all_cores - epsilon)` = `static_power + k * dynamic_power` with
 *   `static_power = epsilon`, `dynamic_power = (all_cores - epsilon) / n`, and `P(0) = idle` =
 *   `min_power * static_power` with `min_power = idle / epsilon`.
 *   Optional props `memory_gb` (default 1024) and `comm_bw` (bytes/s, for the `step`/`shared` models;
 *   default: the cluster's `bw`, else 125 MB/s) fill what SimGrid does not describe, and so do the GPU
 *   props `gpus`, `gpu_type`, `gpu_memory_gb`, `gpu_idle_power`, `gpu_busy_power` (`gpus.ts`).
 * - `<link id bandwidth latency sharing_policy>` (a `SPLITDUPLEX` link becomes `id_UP` and `id_DOWN`),
 *   `<router>`, `<route>` and `<zoneRoute>` (`<ASroute>`) with their `<link_ctn id direction>`.
 * - `<zone>` (`<AS>`) trees with their routing, and `<cluster>` with all its attributes (`prefix`,
 *   `suffix`, `radical` such as `"0-99,200"`, `speed`, `core`, `bw`, `lat`, `sharing_policy`, `topology`,
 *   `topo_parameters`, `bb_bw`, `bb_lat`, `bb_sharing_policy`, `router_id`, `limiter_link`,
 *   `loopback_bw`, `loopback_lat`) and its `<prop>`s, which every host of the cluster gets.
 *
 * Each zone that holds hosts becomes one cluster of the platform (named by the zone id), hosts keep their
 * SimGrid names. A `<cluster>`'s hosts form one node group (named by the cluster id); a `<host>` is a
 * group of its own (named by the host). `<config>`, `<actor>`, `<trace>` are ignored; elements clustergym does not model
 * (`<cabinet>`, `<peer>`, `<bypassRoute>`, `<include>`, disks) are an error naming them.
 */
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { InputError } from '../core/errors.js';
import type { ClusterNetworkDescription, LinkDescription, LinkRef, LinkSharing, RouteDescription, SharingPolicy, ZoneDescription } from './network.js';
import { gpusFromProperties } from './gpus.js';
import { namingOf } from './nodeGroups.js';
import {
  type ClusterDescription,
  DEFAULT_COMM_BW,
  DEFAULT_MODELS,
  DEFAULT_NODE_MEMORY_GB,
  type ModelsConfig,
  type NodeDescription,
  type NodeGroupDescription,
  type PlatformDescription,
  type PowerStateDescription,
} from './platform.js';
import { parseSpeeds, parseUnit, type UnitKind } from './units.js';

/**
 * fast-xml-parser, loaded on first use from its one-file CommonJS build: its ES module build is some 40
 * files (with its dependencies) that cost Node's ES module loader about 25 ms of CPU per process, which
 * `clustergym netsim` and every command reading a platform would pay (the same package and version).
 */
let xmlParser: typeof import('fast-xml-parser') | undefined;
function fastXmlParser(): typeof import('fast-xml-parser') {
  xmlParser ??= createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  return xmlParser;
}

/** Memory of a SimGrid host without a `memory_gb` prop, GB (SimGrid does not model memory). */
export const DEFAULT_SIMGRID_MEMORY_GB = DEFAULT_NODE_MEMORY_GB;

/** A node of fast-xml-parser's `preserveOrder` output. */
type XmlNode = { [tag: string]: XmlNode[] } & { ':@'?: Record<string, string> };

interface Element {
  tag: string;
  attrs: Record<string, string>;
  children: Element[];
  /** `<zone id="AS0"> > <host id="h1">`, for errors. */
  path: string;
}

function elements(nodes: XmlNode[], parentPath: string): Element[] {
  const out: Element[] = [];
  for (const n of nodes) {
    const tag = Object.keys(n).find((k) => k !== ':@');
    if (tag === undefined || tag.startsWith('#') || tag.startsWith('?') || tag.startsWith('!')) continue;
    const attrs = n[':@'] ?? {};
    const label = attrs.id !== undefined ? `<${tag} id="${attrs.id}">` : `<${tag}>`;
    const path = parentPath ? `${parentPath} > ${label}` : label;
    out.push({ tag, attrs, children: elements(n[tag] ?? [], path), path });
  }
  return out;
}

/** Reads SimGrid XML text; `where` (the file) names it in errors. */
export class SimGridPlatformReader {
  private readonly where: string;
  private readonly groups: NodeGroupDescription[] = [];
  private readonly groupZone: string[] = [];
  private readonly names = new Set<string>();
  private readonly linkIds = new Set<string>();

  constructor(where: string) {
    this.where = where;
  }

  private fail(e: Element, message: string): never {
    throw new InputError(`${e.path}: ${message}`, this.where);
  }

  private attr(e: Element, name: string, fallback?: string): string {
    const v = e.attrs[name];
    if (v !== undefined) return v;
    if (fallback !== undefined) return fallback;
    return this.fail(e, `missing attribute ${name}`);
  }

  private unit(e: Element, name: string, kind: UnitKind, fallback?: string): number {
    const text = this.attr(e, name, fallback);
    try {
      return parseUnit(text, kind);
    } catch (err) {
      return this.fail(e, `attribute ${name}: ${(err as Error).message}`);
    }
  }

  private speeds(e: Element): number[] {
    const text = this.attr(e, 'speed');
    try {
      return parseSpeeds(text);
    } catch (err) {
      return this.fail(e, `attribute speed: ${(err as Error).message}`);
    }
  }

  private optionalUnit(e: Element, name: string, kind: UnitKind): number | undefined {
    const v = e.attrs[name];
    return v === undefined || v === '' ? undefined : this.unit(e, name, kind);
  }

  private int(e: Element, name: string, fallback: string): number {
    const text = this.attr(e, name, fallback);
    const v = Number(text);
    if (!Number.isFinite(v)) this.fail(e, `attribute ${name}: expected a number, found ${JSON.stringify(text)}`);
    return Math.trunc(v);
  }

  private props(e: Element): Record<string, string> {
    const out: Record<string, string> = {};
    for (const c of e.children) if (c.tag === 'prop') out[this.attr(c, 'id')] = this.attr(c, 'value');
    return out;
  }

  private newName(e: Element, name: string): void {
    if (this.names.has(name)) this.fail(e, `the name ${JSON.stringify(name)} is already used by another host or router`);
    this.names.add(name);
  }

  /**
   * Hosts `names` of element `e` (a `<host>`, or a `<cluster>`'s hosts: identical but for their names)
   * as one node group of `zone`, named `group`.
   */
  private addHosts(
    e: Element,
    zone: ZoneDescription,
    group: string,
    names: string[],
    speeds: number[],
    cores: number,
    pstate: number,
    props: Record<string, string>,
    clusterBw?: number,
  ): void {
    for (const name of names) this.newName(e, name);
    if (cores < 1) this.fail(e, `core must be at least 1, found ${cores}`);
    if (pstate < 0 || pstate >= speeds.length) this.fail(e, `pstate ${pstate} out of range: the host has ${speeds.length} power states`);
    const pstates: PowerStateDescription[] = speeds.map((speed) => ({ speed }));
    const wattage = props.wattage_per_state;
    if (wattage !== undefined && wattage.trim() !== '') {
      wattage.split(',').forEach((state, i) => {
        const values = state.split(':').map((s) => Number(s.trim()));
        if ((values.length !== 2 && values.length !== 3) || values.some((v) => !Number.isFinite(v)))
          this.fail(e, `prop wattage_per_state: power state ${i} is ${JSON.stringify(state.trim())}, expected Idle:AllCores or Idle:Epsilon:AllCores (W)`);
        if (i >= pstates.length) return; // SimGrid only checks the count with its energy plugin on
        const [idle, a, b] = values as [number, number, number | undefined];
        pstates[i] = { speed: speeds[i]!, idle, epsilon: b === undefined ? idle : a, all_cores: b === undefined ? a : b };
      });
    }
    const current = pstates[pstate]!;
    if (!(current.speed > 0)) this.fail(e, `the current power state (${pstate}) has speed ${current.speed}; a computing host needs a positive speed`);
    let staticPower = 0;
    let dynamicPower = 0;
    let minPower = 0;
    if (current.epsilon !== undefined) {
      const { idle = 0, epsilon, all_cores = epsilon } = current;
      if (epsilon === 0 && idle > 0)
        this.fail(e, `prop wattage_per_state: power state ${pstate} has epsilon 0 W and idle ${idle} W, which the IRMaSim power model cannot represent`);
      staticPower = epsilon;
      dynamicPower = (all_cores - epsilon) / cores;
      minPower = epsilon === 0 ? 0 : idle / epsilon;
    }
    let wattageOff: number | undefined;
    if (props.wattage_off !== undefined) {
      wattageOff = Number(props.wattage_off);
      if (!Number.isFinite(wattageOff)) this.fail(e, `prop wattage_off: expected watts, found ${JSON.stringify(props.wattage_off)}`);
    }
    const memory = props.memory_gb !== undefined ? Number(props.memory_gb) : DEFAULT_SIMGRID_MEMORY_GB;
    if (!(memory > 0)) this.fail(e, `prop memory_gb: expected a positive number of GB, found ${JSON.stringify(props.memory_gb)}`);
    const commBw = props.comm_bw !== undefined ? Number(props.comm_bw) : clusterBw !== undefined && clusterBw > 0 ? clusterBw : DEFAULT_COMM_BW;
    if (!(commBw > 0)) this.fail(e, `prop comm_bw: expected a positive bandwidth in bytes/s, found ${JSON.stringify(props.comm_bw)}`);
    const gpus = gpusFromProperties(props, (m) => this.fail(e, m));
    const node: NodeDescription = {
      type: props.type,
      memory_gb: memory,
      comm_bw: commBw,
      processors: [
        {
          cores,
          clock_rate: current.speed / 1e9,
          dpflops_per_cycle: 1,
          static_power: staticPower,
          dynamic_power: dynamicPower,
          min_power: minPower,
          contention: null,
        },
      ],
      pstates,
      pstate,
      wattage_off: wattageOff,
      properties: props,
    };
    if (gpus !== undefined) node.gpus = gpus;
    this.groups.push({ name: group, count: names.length, naming: namingOf(names), ...node });
    this.groupZone.push(zone.id);
    zone.hosts.push(...names);
  }

  private addLink(e: Element, zone: ZoneDescription, id: string, bandwidth: number, latency: number, policy: SharingPolicy): void {
    const ids = policy === 'SPLITDUPLEX' ? [`${id}_UP`, `${id}_DOWN`] : [id];
    for (const l of ids) {
      if (this.linkIds.has(l)) this.fail(e, `a link named ${JSON.stringify(l)} already exists`);
      this.linkIds.add(l);
      zone.links.push({ id: l, bandwidth, latency, sharing_policy: policy === 'SPLITDUPLEX' ? 'SHARED' : policy });
    }
  }

  private sharing(e: Element, name: string, fallback: string, allowed: readonly string[]): string {
    const v = this.attr(e, name, fallback);
    if (!allowed.includes(v)) this.fail(e, `attribute ${name}: expected one of ${allowed.join(', ')}, found ${JSON.stringify(v)}`);
    return v === 'FULLDUPLEX' ? 'SPLITDUPLEX' : v;
  }

  private linkRefs(e: Element): LinkRef[] {
    return e.children
      .filter((c) => c.tag === 'link_ctn')
      .map((c) => {
        const d = c.attrs.direction ?? 'NONE';
        if (!['UP', 'DOWN', 'NONE'].includes(d)) this.fail(c, `attribute direction: expected UP, DOWN or NONE, found ${JSON.stringify(d)}`);
        return d === 'NONE' ? { id: this.attr(c, 'id') } : { id: this.attr(c, 'id'), direction: d as 'UP' | 'DOWN' };
      });
  }

  private route(e: Element, zone: ZoneDescription, withGateways: boolean): void {
    const sym = this.attr(e, 'symmetrical', 'YES').toUpperCase();
    if (sym !== 'YES' && sym !== 'NO') this.fail(e, `attribute symmetrical: expected YES or NO, found ${JSON.stringify(e.attrs.symmetrical)}`);
    const r: RouteDescription = { src: this.attr(e, 'src'), dst: this.attr(e, 'dst'), links: this.linkRefs(e), symmetrical: sym === 'YES' };
    if (withGateways) {
      r.gw_src = this.attr(e, 'gw_src');
      r.gw_dst = this.attr(e, 'gw_dst');
    }
    zone.routes.push(r);
  }

  private radicals(e: Element): number[] {
    const text = this.attr(e, 'radical');
    const out: number[] = [];
    for (const group of text.split(',')) {
      const parts = group.split('-').map((s) => s.trim());
      const nums = parts.map(Number);
      if (parts.length > 2 || parts.some((p) => !/^\d+$/.test(p)))
        this.fail(e, `attribute radical: malformed group ${JSON.stringify(group)} (expected N or N-M)`);
      const [a, b = a] = nums as [number, number?];
      for (let i = a; i <= b!; i++) out.push(i);
    }
    return out;
  }

  private cluster(e: Element, parent: ZoneDescription): void {
    const id = this.attr(e, 'id');
    const prefix = this.attr(e, 'prefix');
    const suffix = this.attr(e, 'suffix');
    const radicals = this.radicals(e);
    const speeds = this.speeds(e);
    const topology = this.sharing(e, 'topology', 'FLAT', ['FLAT', 'TORUS', 'FAT_TREE', 'DRAGONFLY']) as ClusterNetworkDescription['topology'];
    const net: ClusterNetworkDescription = {
      topology,
      topo_parameters: this.attr(e, 'topo_parameters', ''),
      bw: this.unit(e, 'bw', 'bandwidth'),
      lat: this.unit(e, 'lat', 'time'),
      sharing_policy: this.sharing(e, 'sharing_policy', 'SPLITDUPLEX', ['SHARED', 'SPLITDUPLEX', 'FULLDUPLEX', 'FATPIPE']) as SharingPolicy,
      radicals,
    };
    const bbBw = this.optionalUnit(e, 'bb_bw', 'bandwidth');
    if (bbBw !== undefined) net.bb_bw = bbBw;
    const bbLat = this.optionalUnit(e, 'bb_lat', 'time');
    if (bbLat !== undefined) net.bb_lat = bbLat;
    if (e.attrs.bb_sharing_policy !== undefined) net.bb_sharing_policy = this.sharing(e, 'bb_sharing_policy', 'SHARED', ['SHARED', 'FATPIPE']) as LinkSharing;
    const limiter = this.optionalUnit(e, 'limiter_link', 'bandwidth');
    if (limiter !== undefined) net.limiter_link = limiter;
    const lbBw = this.optionalUnit(e, 'loopback_bw', 'bandwidth');
    if (lbBw !== undefined) net.loopback_bw = lbBw;
    const lbLat = this.optionalUnit(e, 'loopback_lat', 'time');
    if (lbLat !== undefined) net.loopback_lat = lbLat;
    if (e.attrs.router_id) net.router_id = e.attrs.router_id;
    const zone: ZoneDescription = { id, routing: 'Cluster', hosts: [], routers: [], links: [], routes: [], zones: [], cluster: net };
    const props = this.props(e);
    const cores = this.int(e, 'core', '1');
    this.addHosts(
      e,
      zone,
      id,
      radicals.map((r) => `${prefix}${r}${suffix}`),
      speeds,
      cores,
      0,
      props,
      net.bw,
    );
    if (topology === 'FLAT') {
      const router = net.router_id ?? `${prefix}${id}_router${suffix}`;
      this.newName(e, router);
      zone.routers.push(router);
    }
    parent.zones.push(zone);
  }

  private zone(e: Element): ZoneDescription {
    const zone: ZoneDescription = { id: this.attr(e, 'id'), routing: this.attr(e, 'routing'), hosts: [], routers: [], links: [], routes: [], zones: [] };
    for (const c of e.children) {
      switch (c.tag) {
        case 'prop':
        case 'trace':
        case 'trace_connect':
          break;
        case 'zone':
        case 'AS':
          zone.zones.push(this.zone(c));
          break;
        case 'cluster':
          this.cluster(c, zone);
          break;
        case 'host': {
          const speeds = this.speeds(c);
          if (c.children.some((d) => d.tag === 'disk' || d.tag === 'mount')) this.fail(c, 'disks are not modelled by clustergym');
          const id = this.attr(c, 'id');
          this.addHosts(c, zone, id, [id], speeds, this.int(c, 'core', '1'), this.int(c, 'pstate', '0'), this.props(c));
          break;
        }
        case 'router':
          this.newName(c, this.attr(c, 'id'));
          zone.routers.push(this.attr(c, 'id'));
          break;
        case 'link':
        case 'backbone':
          this.addLink(
            c,
            zone,
            this.attr(c, 'id'),
            this.unit(c, 'bandwidth', 'bandwidth'),
            this.unit(c, 'latency', 'time', '0'),
            this.sharing(c, 'sharing_policy', 'SHARED', ['SHARED', 'SPLITDUPLEX', 'FULLDUPLEX', 'FATPIPE']) as SharingPolicy,
          );
          break;
        case 'route':
          this.route(c, zone, false);
          break;
        case 'zoneRoute':
        case 'ASroute':
          this.route(c, zone, true);
          break;
        default:
          this.fail(
            c,
            `<${c.tag}> is not supported by clustergym's SimGrid reader (supported: zone, AS, cluster, host, router, link, backbone, route, zoneRoute, ASroute, prop)`,
          );
      }
    }
    return zone;
  }

  /** Reads the whole document. */
  read(source: string): PlatformDescription {
    // SimGrid (flex) accepts blank lines before the XML declaration; XML 1.0 does not
    const text = source.replace(/^\s+(?=<\?xml)/, '');
    const { XMLParser, XMLValidator } = fastXmlParser();
    const valid = XMLValidator.validate(text);
    if (valid !== true) throw new InputError(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`, this.where);
    const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false, trimValues: true });
    const top = elements(parser.parse(text) as XmlNode[], '');
    const platform = top.find((t) => t.tag === 'platform');
    if (!platform) throw new InputError(`no <platform> element (found ${top.map((t) => `<${t.tag}>`).join(', ') || 'nothing'})`, this.where);
    const version = Number(platform.attrs.version ?? '0');
    if (!(version >= 4))
      this.fail(
        platform,
        `platform version ${platform.attrs.version ?? '(none)'}: clustergym reads SimGrid platform versions 4.x (run SimGrid's simgrid_update_xml first)`,
      );
    const roots: ZoneDescription[] = [];
    for (const c of platform.children) {
      if (c.tag === 'zone' || c.tag === 'AS') roots.push(this.zone(c));
      else if (c.tag === 'cluster') {
        const holder: ZoneDescription = { id: '', routing: 'None', hosts: [], routers: [], links: [], routes: [], zones: [] };
        this.cluster(c, holder);
        roots.push(holder.zones[0]!);
      } else if (!['config', 'actor', 'process', 'trace', 'trace_connect', 'random'].includes(c.tag))
        this.fail(c, `<${c.tag}> is not supported by clustergym's SimGrid reader`);
    }
    if (roots.length !== 1) this.fail(platform, `expected one root <zone> (or <cluster>), found ${roots.length}`);
    if (this.groups.length === 0) this.fail(platform, 'the platform has no host');
    const clusters: ClusterDescription[] = [];
    const byZone = new Map<string, ClusterDescription>();
    this.groups.forEach((g, i) => {
      const z = this.groupZone[i]!;
      let c = byZone.get(z);
      if (!c) {
        c = { name: z, groups: [] };
        byZone.set(z, c);
        clusters.push(c);
      }
      c.groups.push(g);
    });
    const models: ModelsConfig = { ...DEFAULT_MODELS };
    return { name: basename(this.where).replace(/\.xml$/i, '') || 'platform', models, clusters, network: roots[0]! };
  }
}

/** Parses SimGrid platform XML text (`where` names the file in errors). */
export function parseSimGridPlatform(text: string, where: string): PlatformDescription {
  return new SimGridPlatformReader(where).read(text);
}

/** Whether a platform file is SimGrid XML: its name ends with `.xml`, or its text starts with `<`. */
export function isSimGridXml(file: string, text?: string): boolean {
  if (/\.xml$/i.test(file)) return true;
  return text !== undefined && text.trimStart().startsWith('<');
}

/** Every link of a zone tree, depth first. */
export function zoneLinks(zone: ZoneDescription, out: LinkDescription[] = []): LinkDescription[] {
  out.push(...zone.links);
  for (const z of zone.zones) zoneLinks(z, out);
  return out;
}
