/**
 * The interconnect of a platform as SimGrid describes it (DESIGN §11): a tree of network zones, each with its
 * routing (explicit `Full` routes, or a cluster that computes its routes from a topology), its links (bandwidth in
 * bytes/s, latency in s, sharing policy) and its hosts and routers. Values are in SI units (the SimGrid XML reader
 * converts `"1GBps"`, `"50us"`); the same structure is the `network` field of a native platform file, so a SimGrid
 * platform converts to JSON and back one to one.
 *
 * A split-duplex link `L` is two links, `L_UP` and `L_DOWN`, as in SimGrid; routes name a link with a direction
 * (`UP`/`DOWN`) for split-duplex links and without one otherwise. Routing itself (which links a transfer between
 * two hosts crosses) is `src/platform/routing.ts`.
 */
import { z } from 'zod';

/** How the flows crossing a link share it: `SHARED` (max-min fair), `FATPIPE` (each flow gets the full bandwidth). */
export type LinkSharing = 'SHARED' | 'FATPIPE';
/** Sharing policies of SimGrid's `<link>` and `<cluster>`: `SPLITDUPLEX` makes two links, one per direction. */
export type SharingPolicy = LinkSharing | 'SPLITDUPLEX';

/** One link (a split-duplex link is two of these, `id_UP` and `id_DOWN`). */
export interface LinkDescription {
  id: string;
  /** Bytes per second. */
  bandwidth: number;
  /** Seconds. */
  latency: number;
  sharing_policy: LinkSharing;
}

/** A link named in a route: `direction` picks `id_UP` or `id_DOWN` of a split-duplex link. */
export interface LinkRef {
  id: string;
  direction?: 'UP' | 'DOWN' | undefined;
}

/** An explicit route between two hosts/routers (`<route>`) or two zones through gateways (`<zoneRoute>`). */
export interface RouteDescription {
  src: string;
  dst: string;
  /** Gateways of a zone route (a host or router inside `src` / `dst`). */
  gw_src?: string | undefined;
  gw_dst?: string | undefined;
  links: LinkRef[];
  /** The reverse route is the same links in reverse order, UP and DOWN swapped (SimGrid's default). */
  symmetrical: boolean;
}

/** Topologies of a SimGrid `<cluster>`. */
export type ClusterTopology = 'FLAT' | 'FAT_TREE' | 'TORUS' | 'DRAGONFLY';

/** The parameters of a SimGrid `<cluster>` (its hosts are the zone's `hosts`, in radical order). */
export interface ClusterNetworkDescription {
  topology: ClusterTopology;
  /** SimGrid's `topo_parameters`: fat-tree `h;m1,..,mh;w1,..,wh;p1,..,ph`, torus `d1,d2,..`, dragonfly `g,l;c,l;r,l;n`. */
  topo_parameters: string;
  /** Private links: bandwidth bytes/s, latency s, policy. */
  bw: number;
  lat: number;
  sharing_policy: SharingPolicy;
  /** Backbone of a flat cluster (absent: none). */
  bb_bw?: number | undefined;
  bb_lat?: number | undefined;
  bb_sharing_policy?: LinkSharing | undefined;
  /** Per-host limiter link bandwidth (absent: none). */
  limiter_link?: number | undefined;
  /** Per-host loopback link (absent: none). */
  loopback_bw?: number | undefined;
  loopback_lat?: number | undefined;
  /** Name of the cluster's router (flat clusters; default `prefix + id + "_router" + suffix`). */
  router_id?: string | undefined;
  /** The radical of each host (its number in link names such as `id_link_<radical>`), in host order. */
  radicals: number[];
}

/** A network zone: hosts, routers, links, routes, sub-zones; a cluster zone computes its own routes. */
export interface ZoneDescription {
  id: string;
  /** SimGrid routing: `Full`, `Floyd`, `Dijkstra`, `DijkstraCache`, `None`, `Vivaldi`, or `Cluster` for a `<cluster>`. */
  routing: string;
  hosts: string[];
  routers: string[];
  links: LinkDescription[];
  routes: RouteDescription[];
  zones: ZoneDescription[];
  cluster?: ClusterNetworkDescription | undefined;
}

const nonNeg = z.number().finite().nonnegative();
const LinkSchema = z
  .object({ id: z.string().min(1), bandwidth: nonNeg, latency: nonNeg, sharing_policy: z.enum(['SHARED', 'FATPIPE']).default('SHARED') })
  .strict();
const LinkRefSchema = z.object({ id: z.string().min(1), direction: z.enum(['UP', 'DOWN']).optional() }).strict();
const RouteSchema = z
  .object({
    src: z.string().min(1),
    dst: z.string().min(1),
    gw_src: z.string().min(1).optional(),
    gw_dst: z.string().min(1).optional(),
    links: z.array(LinkRefSchema),
    symmetrical: z.boolean().default(true),
  })
  .strict();
const ClusterSchema = z
  .object({
    topology: z.enum(['FLAT', 'FAT_TREE', 'TORUS', 'DRAGONFLY']).default('FLAT'),
    topo_parameters: z.string().default(''),
    bw: nonNeg,
    lat: nonNeg,
    sharing_policy: z.enum(['SHARED', 'SPLITDUPLEX', 'FATPIPE']).default('SPLITDUPLEX'),
    bb_bw: nonNeg.optional(),
    bb_lat: nonNeg.optional(),
    bb_sharing_policy: z.enum(['SHARED', 'FATPIPE']).optional(),
    limiter_link: nonNeg.optional(),
    loopback_bw: nonNeg.optional(),
    loopback_lat: nonNeg.optional(),
    router_id: z.string().optional(),
    radicals: z.array(z.number().int()),
  })
  .strict();

/** The `network` field of a native platform file: the root zone. */
export const ZoneSchema: z.ZodType<ZoneDescription, z.ZodTypeDef, unknown> = z.lazy(() =>
  z
    .object({
      id: z.string().min(1),
      routing: z.string().min(1).default('Full'),
      hosts: z.array(z.string().min(1)).default([]),
      routers: z.array(z.string().min(1)).default([]),
      links: z.array(LinkSchema).default([]),
      routes: z.array(RouteSchema).default([]),
      zones: z.array(ZoneSchema).default([]),
      cluster: ClusterSchema.optional(),
    })
    .strict(),
);

/** Every host of a zone tree, depth first in document order. */
export function zoneHosts(zone: ZoneDescription, out: string[] = []): string[] {
  out.push(...zone.hosts);
  for (const z of zone.zones) zoneHosts(z, out);
  return out;
}
