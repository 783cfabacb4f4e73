/**
 * Platform files: the native format (DESIGN §2.1), IRMaSim's `platform`/`node`/`processor` group
 * format, loaded unchanged, SimGrid platform XML (`simgridXml.ts`, DESIGN §11) and node-group platforms
 * (the Slurm model's `{groups, partitions}`, src/slurm/platform.ts; `views.ts`). The JSON formats are validated with zod; all
 * produce a `PlatformDescription`, then a compiled `Platform`. Every error names the file and the JSON
 * path (or XML element) of the bad field.
 *
 * Native node entries are node groups (`nodeGroups.ts`): an entry with `count` describes that many
 * identical nodes once. Naming fields: `id` (one node's name, or with `count` the prefix of `id0`,
 * `id1`, ...), `names` (the nodes' names, one each), `group` (the group's name; default `id`, else
 * `node[i-j]`). Other node fields: `memory_gb`, `comm_bw`, `processors`, `type`, `gpus` (`{count,
 * type, memory_gb, idle_power, busy_power}`, `gpus.ts`), SimGrid's `pstates`, `pstate`, `wattage_off`,
 * `properties`. Top level: `name`, `models`, `clusters`, `network`, `partitions` (`partitions.ts`).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { parseJsonText, readJsonFile } from '../core/json.js';
import { GpuSchema } from './gpus.js';
import { ZoneSchema, zoneHosts } from './network.js';
import { implicitGroupName, type NodeNaming, namingOf, nodeNameOf, ruleNaming } from './nodeGroups.js';
import { PartitionSchema } from './partitions.js';
import {
  DEFAULT_COMM_BW,
  DEFAULT_MODELS,
  Platform,
  type ClusterDescription,
  type ContentionCoefficients,
  type ModelsConfig,
  type NodeDescription,
  type NodeGroupDescription,
  type PlatformDescription,
  type ProcessorDescription,
} from './platform.js';
import { isSimGridXml, parseSimGridPlatform } from './simgridXml.js';
import { isNodeGroupSpec, nodeGroupSpecDescription } from './views.js';

const positive = z.number().finite().positive();
const nonNegative = z.number().finite().nonnegative();
const count = z.number().int().positive();

/** `models` block of a platform file; every field optional. */
export const ModelsSchema = z
  .object({
    memory: z.enum(['irmasim-v1', 'none']).optional(),
    comm: z.enum(['step', 'shared', 'flow']).optional(),
    comm_penalty: z.number().gt(0).lte(1).optional(),
  })
  .strict();

const contentionShape = {
  b: z.number().finite().optional(),
  c: z.number().finite().optional(),
  da: z.number().finite().optional(),
  db: z.number().finite().optional(),
  dc: z.number().finite().optional(),
  dd: z.number().finite().optional(),
};

const processorShape = {
  cores: count,
  clock_rate: positive,
  dpflops_per_cycle: positive,
  static_power: nonNegative.default(0),
  dynamic_power: nonNegative.default(0),
  min_power: z.number().min(0).max(1).default(0),
  ...contentionShape,
};

const NativeProcessorSchema = z.object({ count: count.default(1), type: z.string().optional(), ...processorShape }).passthrough();

const NativeNodeSchema = z
  .object({
    count: count.optional(),
    id: z.string().min(1).optional(),
    group: z.string().min(1).optional(),
    names: z.array(z.string().min(1)).min(1).optional(),
    type: z.string().optional(),
    memory_gb: positive,
    comm_bw: positive.default(DEFAULT_COMM_BW),
    processors: z.array(NativeProcessorSchema).min(1),
    gpus: GpuSchema.optional(),
    pstates: z
      .array(z.object({ speed: nonNegative, idle: nonNegative.optional(), epsilon: nonNegative.optional(), all_cores: nonNegative.optional() }).strict())
      .min(1)
      .optional(),
    pstate: z.number().int().nonnegative().optional(),
    wattage_off: nonNegative.optional(),
    properties: z.record(z.string()).optional(),
  })
  .strict();

/** Native platform file. */
export const NativePlatformSchema = z
  .object({
    name: z.string().min(1).default('platform'),
    models: ModelsSchema.default({}),
    clusters: z.array(z.object({ id: z.string().min(1).optional(), nodes: z.array(NativeNodeSchema).min(1) }).strict()).min(1),
    network: ZoneSchema.optional(),
    partitions: z.array(PartitionSchema).optional(),
  })
  .strict();

const IrmaProcessorSchema = z.object({ ...processorShape, id: z.string().optional(), type: z.string().optional() }).passthrough();
const IrmaNodeSchema = z
  .object({
    id: z.string().optional(),
    processors: z.array(z.object({ type: z.string(), number: count.default(1) }).passthrough()).min(1),
    memory: z.object({ capacity: positive }).passthrough(),
    comm_bw: positive.optional(),
  })
  .passthrough();
const IrmaPlatformSchema = z
  .object({
    id: z.string().optional(),
    clusters: z
      .array(
        z
          .object({
            id: z.string().optional(),
            nodes: z.array(z.object({ type: z.string(), number: count.default(1), id: z.string().optional() }).passthrough()).min(1),
          })
          .passthrough(),
      )
      .min(1),
    model_name: z.string().optional(),
    models: ModelsSchema.optional(),
  })
  .passthrough();

/** IRMaSim's group format: `{ platform: {name: ...}, node: {type: ...}, processor: {type: ...} }`. */
export const IrmaSimPlatformFileSchema = z
  .object({
    platform: z.record(IrmaPlatformSchema),
    node: z.record(IrmaNodeSchema),
    processor: z.record(IrmaProcessorSchema),
  })
  .passthrough();

type ProcessorFields = { [K in keyof typeof contentionShape]?: number | undefined } & {
  cores: number;
  clock_rate: number;
  dpflops_per_cycle: number;
  static_power: number;
  dynamic_power: number;
  min_power: number;
};

const COEFFS = ['b', 'c', 'da', 'db', 'dc', 'dd'] as const;

function contentionOf(p: ProcessorFields, where: string, path: (string | number)[]): ContentionCoefficients | null {
  const present = COEFFS.filter((k) => p[k] !== undefined);
  if (present.length === 0) return null;
  if (present.length < COEFFS.length) {
    const missing = COEFFS.filter((k) => p[k] === undefined);
    throw new InputError(
      `${jsonPath(path)}: memory-contention coefficients must be given all together (b, c, da, db, dc, dd) or not at all; missing ${missing.join(', ')}`,
      where,
    );
  }
  return { b: p.b!, c: p.c!, da: p.da!, db: p.db!, dc: p.dc!, dd: p.dd! };
}

function processorDescription(p: ProcessorFields & { type?: string | undefined }, where: string, path: (string | number)[]): ProcessorDescription {
  return {
    cores: p.cores,
    clock_rate: p.clock_rate,
    dpflops_per_cycle: p.dpflops_per_cycle,
    static_power: p.static_power,
    dynamic_power: p.dynamic_power,
    min_power: p.min_power,
    contention: contentionOf(p, where, path),
    type: p.type,
  };
}

function mergeModels(m: Partial<ModelsConfig> | undefined): ModelsConfig {
  const out = { ...DEFAULT_MODELS };
  if (m?.memory) out.memory = m.memory;
  if (m?.comm) out.comm = m.comm;
  if (m?.comm_penalty !== undefined) out.comm_penalty = m.comm_penalty;
  return out;
}

/** A native node entry's naming fields. */
interface EntryNames {
  count?: number | undefined;
  id?: string | undefined;
  group?: string | undefined;
  names?: string[] | undefined;
}

/**
 * The group of native (or IRMaSim) node entry `n` whose first node is the `first`-th of its cluster
 * (`path` its JSON path): `count` nodes (default: the number of `names`, else 1) named by `names`, else
 * `id` (one node) or `id0, id1, ...`, else `node<first>, node<first + 1>, ...`; the group is named
 * `group`, else `id`, else `implicitGroupName`.
 */
function entryGroup(n: EntryNames, first: number, where: string, path: (string | number)[]): { name: string; count: number; naming: NodeNaming } {
  const count = n.count ?? n.names?.length ?? 1;
  let naming: NodeNaming;
  if (n.names !== undefined) {
    if (n.id !== undefined) throw new InputError(`${jsonPath([...path, 'names'])}: give either \`id\` or \`names\` (the nodes' names), not both`, where);
    if (n.names.length !== count) throw new InputError(`${jsonPath([...path, 'names'])}: expected ${count} names (count), found ${n.names.length}`, where);
    naming = namingOf(n.names);
  } else if (n.id !== undefined) naming = count === 1 ? namingOf([n.id]) : ruleNaming(n.id, 0, '', count);
  else naming = ruleNaming('node', first, '', count);
  return { name: n.group ?? n.id ?? implicitGroupName(first, count), count, naming };
}

function fromNative(data: z.infer<typeof NativePlatformSchema>, where: string): PlatformDescription {
  const clusters: ClusterDescription[] = data.clusters.map((c, ci) => {
    const groups: NodeGroupDescription[] = [];
    let first = 0;
    c.nodes.forEach((n, ni) => {
      const procs: ProcessorDescription[] = [];
      n.processors.forEach((p, pi) => {
        const d = processorDescription(p, where, ['clusters', ci, 'nodes', ni, 'processors', pi]);
        for (let k = 0; k < p.count; k++) procs.push(d);
      });
      const g: NodeGroupDescription = {
        ...entryGroup(n, first, where, ['clusters', ci, 'nodes', ni]),
        type: n.type,
        memory_gb: n.memory_gb,
        comm_bw: n.comm_bw,
        processors: procs,
      };
      if (n.gpus !== undefined) g.gpus = n.gpus;
      if (n.pstates !== undefined) g.pstates = n.pstates;
      if (n.pstate !== undefined) g.pstate = n.pstate;
      if (n.wattage_off !== undefined) g.wattage_off = n.wattage_off;
      if (n.properties !== undefined) g.properties = n.properties;
      groups.push(g);
      first += g.count;
    });
    return { name: c.id ?? `cluster${ci}`, groups };
  });
  const desc: PlatformDescription = { name: data.name, models: mergeModels(data.models), clusters };
  if (data.network !== undefined) {
    desc.network = data.network;
    checkNetworkHosts(desc, where);
  }
  if (data.partitions !== undefined) desc.partitions = data.partitions;
  return desc;
}

/** A platform with a network: node names are unique and are exactly the network's hosts. */
function checkNetworkHosts(desc: PlatformDescription, where: string): void {
  const nodes = new Set<string>();
  for (const c of desc.clusters)
    for (const g of c.groups)
      for (let k = 0; k < g.count; k++) {
        const name = nodeNameOf(g.naming, k);
        if (nodes.has(name))
          throw new InputError(`$.clusters: node name ${JSON.stringify(name)} is used twice; a platform with a network needs unique node names`, where);
        nodes.add(name);
      }
  const hosts = zoneHosts(desc.network!);
  const inNetwork = new Set(hosts);
  for (const h of hosts) if (!nodes.has(h)) throw new InputError(`$.network: host ${JSON.stringify(h)} is not a node of the platform`, where);
  for (const n of nodes) if (!inNetwork.has(n)) throw new InputError(`$.network: node ${JSON.stringify(n)} is in no zone of the network`, where);
}

function fromIrmaSim(data: z.infer<typeof IrmaSimPlatformFileSchema>, where: string, platformName?: string): PlatformDescription {
  const names = Object.keys(data.platform);
  let name = platformName;
  if (name === undefined) {
    if (names.length !== 1)
      throw new InputError(`$.platform: the file defines ${names.length} platforms (${names.join(', ')}); choose one with --platform-name`, where);
    name = names[0]!;
  }
  const plat = data.platform[name];
  if (!plat) throw new InputError(`$.platform: no platform named ${JSON.stringify(name)}; the file defines ${names.join(', ')}`, where);
  const clusters: ClusterDescription[] = plat.clusters.map((c, ci) => {
    const groups: NodeGroupDescription[] = [];
    let first = 0;
    c.nodes.forEach((entry, ni) => {
      const nodePath = ['platform', name!, 'clusters', ci, 'nodes', ni, 'type'];
      const nodeType = data.node[entry.type];
      if (!nodeType)
        throw new InputError(
          `${jsonPath(nodePath)}: unknown node type ${JSON.stringify(entry.type)}; expected one of ${Object.keys(data.node).join(', ') || '(none defined)'}`,
          where,
        );
      const procs: ProcessorDescription[] = [];
      nodeType.processors.forEach((pe, pi) => {
        const procType = data.processor[pe.type];
        if (!procType)
          throw new InputError(
            `${jsonPath(['node', entry.type, 'processors', pi, 'type'])}: unknown processor type ${JSON.stringify(pe.type)}; expected one of ${Object.keys(data.processor).join(', ') || '(none defined)'}`,
            where,
          );
        const d = processorDescription({ ...procType, type: pe.type }, where, ['processor', pe.type]);
        for (let k = 0; k < pe.number; k++) procs.push(d);
      });
      const g = entryGroup({ count: entry.number, id: entry.id }, first, where, ['platform', name!, 'clusters', ci, 'nodes', ni]);
      groups.push({ ...g, type: entry.type, memory_gb: nodeType.memory.capacity, comm_bw: nodeType.comm_bw ?? DEFAULT_COMM_BW, processors: procs });
      first += g.count;
    });
    return { name: c.id ?? `cluster${ci}`, groups };
  });
  return { name, models: mergeModels(plat.models), clusters };
}

/**
 * Parses platform JSON already read (`where` names it in errors). Detects the format: IRMaSim's group
 * format (`platform`, `node`, `processor`), a node-group platform (`groups` and `partitions`, the Slurm
 * engine's format, `views.ts`), else the native format.
 */
export function parsePlatform(data: unknown, where: string, options: { platformName?: string; models?: Partial<ModelsConfig> } = {}): Platform {
  let desc: PlatformDescription;
  if (isNodeGroupSpec(data)) desc = nodeGroupSpecDescription(data, where);
  else if (data !== null && typeof data === 'object' && 'platform' in data && !('clusters' in data)) {
    const r = IrmaSimPlatformFileSchema.safeParse(data);
    if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
    desc = fromIrmaSim(r.data, where, options.platformName);
  } else {
    const r = NativePlatformSchema.safeParse(data);
    if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
    desc = fromNative(r.data, where);
  }
  return Platform.fromDescription(desc, options.models, where);
}

/** Loads a platform file: native JSON, IRMaSim JSON, or SimGrid XML (a `.xml` name, or text starting with `<`). */
export function loadPlatform(file: string, options: { platformName?: string; models?: Partial<ModelsConfig> } = {}): Platform {
  if (!/\.json$/i.test(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`, file);
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (isSimGridXml(file, text)) return Platform.fromDescription(parseSimGridPlatform(text, file), options.models);
    return parsePlatform(parseJsonText(text, file), file, options);
  }
  return parsePlatform(readJsonFile(file), file, options);
}

function nativeNode(n: NodeDescription): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (n.type !== undefined) out.type = n.type;
  out.memory_gb = n.memory_gb;
  out.comm_bw = n.comm_bw;
  out.processors = n.processors.map((p) => {
    const q: Record<string, unknown> = {};
    if (p.type !== undefined) q.type = p.type;
    Object.assign(q, {
      cores: p.cores,
      clock_rate: p.clock_rate,
      dpflops_per_cycle: p.dpflops_per_cycle,
      static_power: p.static_power,
      dynamic_power: p.dynamic_power,
      min_power: p.min_power,
    });
    if (p.contention) Object.assign(q, p.contention);
    return q;
  });
  if (n.gpus !== undefined) out.gpus = n.gpus;
  if (n.pstates !== undefined) out.pstates = n.pstates;
  if (n.pstate !== undefined) out.pstate = n.pstate;
  if (n.wattage_off !== undefined) out.wattage_off = n.wattage_off;
  if (n.properties !== undefined) out.properties = n.properties;
  return out;
}

/**
 * The shortest naming fields of a native node entry that read back (`entryGroup`) into group `g`, whose
 * first node is the `first`-th of its cluster: nothing (`node<first>...`), `id`, `id` and `count`, then
 * with `group`, else `group` and the nodes' `names`.
 */
function entryHead(g: NodeGroupDescription, first: number): Record<string, unknown> {
  const count = g.count > 1 ? { count: g.count } : {};
  const naming = g.naming;
  const id = g.count === 1 ? nodeNameOf(naming, 0) : 'names' in naming || naming.first !== 0 || naming.suffix !== '' ? undefined : naming.prefix;
  const candidates: EntryNames[] = [{}];
  if (id !== undefined) candidates.push({ id }, { group: g.name, id });
  const same = (a: NodeNaming, b: NodeNaming) => JSON.stringify(a) === JSON.stringify(b);
  for (const c of candidates) {
    const r = entryGroup({ ...c, count: g.count }, first, 'writer', []);
    if (r.name === g.name && same(r.naming, naming)) return { ...c, ...count };
  }
  return { group: g.name, ...count, names: Array.from({ length: g.count }, (_, k) => nodeNameOf(naming, k)) };
}

/**
 * A description as a native platform file (JSON-ready) that loads back into the same description: one
 * node entry per node group (`count` nodes, named as briefly as `entryHead` can), the partitions and the
 * network as described.
 */
export function writeNativePlatform(desc: PlatformDescription): Record<string, unknown> {
  const clusters = desc.clusters.map((c, ci) => {
    let first = 0;
    const nodes = c.groups.map((g) => {
      const entry = { ...entryHead(g, first), ...nativeNode(g) };
      first += g.count;
      return entry;
    });
    return { id: c.name === `cluster${ci}` ? undefined : c.name, nodes };
  });
  const out: Record<string, unknown> = { name: desc.name, models: desc.models, clusters };
  if (desc.network !== undefined) out.network = desc.network;
  if (desc.partitions !== undefined && desc.partitions.length > 0) out.partitions = desc.partitions;
  return out;
}
