/**
 * Platform files: the native format (DESIGN §2.1), IRMaSim's `platform`/`node`/`processor` group
 * format, loaded unchanged, and SimGrid platform XML (`simgridXml.ts`, DESIGN §11). The JSON formats
 * are validated with zod; all produce a `PlatformDescription`, then a compiled `Platform`. Every error
 * names the file and the JSON path (or XML element) of the bad field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError, inputErrorFromIssues, jsonPath } from '../core/errors.js';
import { parseJsonText, readJsonFile } from '../core/json.js';
import { ZoneSchema, zoneHosts } from './network.js';
import {
  DEFAULT_COMM_BW,
  DEFAULT_MODELS,
  Platform,
  type ClusterDescription,
  type ContentionCoefficients,
  type ModelsConfig,
  type NodeDescription,
  type PlatformDescription,
  type ProcessorDescription,
} from './platform.js';
import { isSimGridXml, parseSimGridPlatform } from './simgridXml.js';

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
    count: count.default(1),
    id: z.string().min(1).optional(),
    type: z.string().optional(),
    memory_gb: positive,
    comm_bw: positive.default(DEFAULT_COMM_BW),
    processors: z.array(NativeProcessorSchema).min(1),
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

function fromNative(data: z.infer<typeof NativePlatformSchema>, where: string): PlatformDescription {
  const clusters: ClusterDescription[] = data.clusters.map((c, ci) => {
    const nodes: NodeDescription[] = [];
    c.nodes.forEach((n, ni) => {
      const procs: ProcessorDescription[] = [];
      n.processors.forEach((p, pi) => {
        const d = processorDescription(p, where, ['clusters', ci, 'nodes', ni, 'processors', pi]);
        for (let k = 0; k < p.count; k++) procs.push(d);
      });
      for (let k = 0; k < n.count; k++) {
        const idx = nodes.length;
        const name = n.id !== undefined ? (n.count === 1 ? n.id : `${n.id}${k}`) : `node${idx}`;
        const node: NodeDescription = { name, type: n.type, memory_gb: n.memory_gb, comm_bw: n.comm_bw, processors: procs };
        if (n.pstates !== undefined) node.pstates = n.pstates;
        if (n.pstate !== undefined) node.pstate = n.pstate;
        if (n.wattage_off !== undefined) node.wattage_off = n.wattage_off;
        if (n.properties !== undefined) node.properties = n.properties;
        nodes.push(node);
      }
    });
    return { name: c.id ?? `cluster${ci}`, nodes };
  });
  const desc: PlatformDescription = { name: data.name, models: mergeModels(data.models), clusters };
  if (data.network !== undefined) {
    desc.network = data.network;
    checkNetworkHosts(desc, where);
  }
  return desc;
}

/** A platform with a network: node names are unique and are exactly the network's hosts. */
function checkNetworkHosts(desc: PlatformDescription, where: string): void {
  const nodes = new Set<string>();
  for (const c of desc.clusters)
    for (const n of c.nodes) {
      if (nodes.has(n.name))
        throw new InputError(`$.clusters: node name ${JSON.stringify(n.name)} is used twice; a platform with a network needs unique node names`, where);
      nodes.add(n.name);
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
    const nodes: NodeDescription[] = [];
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
      for (let k = 0; k < entry.number; k++) {
        const idx = nodes.length;
        const nodeName = entry.id !== undefined ? (entry.number === 1 ? entry.id : `${entry.id}${k}`) : `node${idx}`;
        nodes.push({
          name: nodeName,
          type: entry.type,
          memory_gb: nodeType.memory.capacity,
          comm_bw: nodeType.comm_bw ?? DEFAULT_COMM_BW,
          processors: procs,
        });
      }
    });
    return { name: c.id ?? `cluster${ci}`, nodes };
  });
  return { name, models: mergeModels(plat.models), clusters };
}

/** Parses platform JSON already read (`where` names it in errors). Detects the format. */
export function parsePlatform(data: unknown, where: string, options: { platformName?: string; models?: Partial<ModelsConfig> } = {}): Platform {
  let desc: PlatformDescription;
  if (data !== null && typeof data === 'object' && 'platform' in data && !('clusters' in data)) {
    const r = IrmaSimPlatformFileSchema.safeParse(data);
    if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
    desc = fromIrmaSim(r.data, where, options.platformName);
  } else {
    const r = NativePlatformSchema.safeParse(data);
    if (!r.success) throw inputErrorFromIssues(where, r.error.issues);
    desc = fromNative(r.data, where);
  }
  return Platform.fromDescription(desc, options.models);
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
  if (n.pstates !== undefined) out.pstates = n.pstates;
  if (n.pstate !== undefined) out.pstate = n.pstate;
  if (n.wattage_off !== undefined) out.wattage_off = n.wattage_off;
  if (n.properties !== undefined) out.properties = n.properties;
  return out;
}

/**
 * A description as a native platform file (JSON-ready) that loads back into the same platform. Runs of
 * identical nodes named `P0, P1, ..., P(k-1)` are written once with `id: P, count: k`.
 */
export function writeNativePlatform(desc: PlatformDescription): Record<string, unknown> {
  const clusters = desc.clusters.map((c, ci) => {
    const nodes: Record<string, unknown>[] = [];
    let i = 0;
    while (i < c.nodes.length) {
      const n = c.nodes[i]!;
      const body = nativeNode(n);
      const key = JSON.stringify(body);
      const m = /^(.+?)0$/.exec(n.name);
      let count = 1;
      if (m)
        while (i + count < c.nodes.length && c.nodes[i + count]!.name === `${m[1]}${count}` && JSON.stringify(nativeNode(c.nodes[i + count]!)) === key) count++;
      // with no id the native loader names a node `node<index in cluster>`: keep that implicit when it holds
      const implicit = count === 1 && n.name === `node${i}`;
      const head: Record<string, unknown> = count > 1 ? { count, id: m![1] } : implicit ? {} : { id: n.name };
      nodes.push({ ...head, ...body });
      i += count;
    }
    return { id: c.name === `cluster${ci}` ? undefined : c.name, nodes };
  });
  const out: Record<string, unknown> = { name: desc.name, models: desc.models, clusters };
  if (desc.network !== undefined) out.network = desc.network;
  return out;
}
