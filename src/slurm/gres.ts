/**
 * Slurm's generic resources in slurm.conf (`man slurm.conf`, Slurm 22.05): `GresTypes=gpu,mps` and a node
 * line's `Gres=gpu:v100:4,mps:400` onto the platform's GPUs (`src/platform/gpus.ts`). `slurmConf.ts`
 * calls `nodeLineGpus` for each `NodeName` line and `undeclaredGpus` once; `slurmConfPlatform` builds the
 * platform of a read slurm.conf with its nodes' GPUs.
 *
 * A `Gres` value is a comma-separated list of `NAME[:TYPE][:no_consume]:COUNT[K|M|G|T|P][(S:SOCKETS)]`
 * (a count omitted is 1; `K` multiplies by 1024, and so on; the socket binding is read and dropped).
 * `gpu` items become the node's GPUs: `gpu:v100:4` is 4 GPUs of type `v100`, `gpu:4` 4 of the untyped
 * type `gpu`; several `gpu` items of one type add up. A node with GPUs of two types is not modelled (the
 * platform has one GPU type per node): an `InputError` that says to split the node line. Other resources
 * (`mps`, `shard`, a site's own) are not modelled and are listed as ignored. GPUs on nodes while
 * `GresTypes` does not list `gpu` are read, and listed as ignored too (slurmctld would not manage them).
 */
import { InputError } from '../core/errors.js';
import { type GpuDescription, UNTYPED_GPU } from '../platform/gpus.js';
import { namingOf } from '../platform/nodeGroups.js';
import { Platform } from '../platform/platform.js';
import { nodeGroupSpecDescription } from '../platform/views.js';
import { splitTopLevel } from './hostList.js';
import type { SlurmPlatformSpec } from './platform.js';

/** What these functions read of a node line (`slurmConf.ts`'s `ConfNodeLine`). */
interface NodeLineGpus {
  names: readonly string[];
  gpus?: GpuDescription | undefined;
  line: number;
}

/** What `slurmConfPlatform` reads of a read slurm.conf (`slurmConf.ts`'s `SlurmConf`). */
interface ConfGroups {
  file: string;
  nodeLines: readonly NodeLineGpus[];
  platform: SlurmPlatformSpec;
  groupNodes: readonly (readonly string[])[];
}

/** One generic resource of a node line. */
export interface GresItem {
  name: string;
  type: string | undefined;
  count: number;
  noConsume: boolean;
}

const SUFFIX: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };

/** Splits at commas outside parentheses (`gpu:2(S:0,1),mps:100`). */
function items(value: string): string[] {
  return splitTopLevel(value, '(', ')')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Parses a `Gres` value (see the module comment); a malformed item throws an `Error` saying what was expected. */
export function parseGres(value: string): GresItem[] {
  return items(value).map((item) => {
    const spec = item.replace(/\(S:[^)]*\)$/i, '');
    const parts = spec.split(':');
    const name = parts.shift()!.trim();
    if (!/^[A-Za-z][\w.-]*$/.test(name))
      throw new Error(`Gres item ${JSON.stringify(item)}: expected NAME[:TYPE]:COUNT, found the name ${JSON.stringify(name)}`);
    let count = 1;
    const last = parts.at(-1);
    const m = last === undefined ? null : /^(\d+)([KMGTP])?$/i.exec(last);
    if (m) {
      parts.pop();
      count = Number(m[1]) * (m[2] ? SUFFIX[m[2].toUpperCase()]! : 1);
    }
    let noConsume = false;
    const types: string[] = [];
    for (const p of parts) {
      if (/^no_consume$/i.test(p)) noConsume = true;
      else if (p === '') throw new Error(`Gres item ${JSON.stringify(item)}: empty field`);
      else types.push(p);
    }
    if (types.length > 1) throw new Error(`Gres item ${JSON.stringify(item)}: expected NAME[:TYPE][:no_consume]:COUNT, found ${types.length} types`);
    return { name, type: types[0], count, noConsume };
  });
}

/**
 * The GPUs of a node line's `Gres` value (undefined without `gpu` items; `where` is its file and line).
 * `ignore` is told each resource that is not a GPU.
 */
export function nodeLineGpus(gres: string | undefined, where: string, ignore: (item: GresItem) => void = () => {}): GpuDescription | undefined {
  if (gres === undefined || /^\(null\)$/i.test(gres.trim())) return undefined;
  let list: GresItem[];
  try {
    list = parseGres(gres);
  } catch (e) {
    throw new InputError(`Gres: ${(e as Error).message}`, where);
  }
  let gpus: GpuDescription | undefined;
  for (const it of list) {
    if (it.name.toLowerCase() !== 'gpu') {
      ignore(it);
      continue;
    }
    const type = it.type ?? UNTYPED_GPU;
    if (gpus !== undefined && gpus.type !== type)
      throw new InputError(
        `Gres=${gres}: GPUs of two types (${gpus.type}, ${type}) on one node are not modelled (one GPU type per node); split the NodeName line by type`,
        where,
      );
    gpus = { count: (gpus?.count ?? 0) + it.count, type };
  }
  return gpus;
}

/**
 * The node lines whose GPUs `GresTypes` (`gresTypes`, as written) does not declare, with the reason:
 * slurmctld does not manage a GRES of a type it was not told about. The GPUs are read all the same; the
 * reader lists these lines among the settings it ignores.
 */
export function undeclaredGpus(gresTypes: string | undefined, nodeLines: readonly NodeLineGpus[]): { value: string; line: number; why: string }[] {
  const declared = new Set((gresTypes ?? '').split(',').map((s) => s.trim().toLowerCase()));
  if (declared.has('gpu')) return [];
  const why = `GresTypes ${gresTypes === undefined ? 'is not set' : `(${gresTypes}) does not list gpu`}: slurmctld would not manage these GPUs without GresTypes=gpu`;
  return nodeLines.filter((l) => l.gpus !== undefined).map((l) => ({ value: `gpu:${l.gpus!.type}:${l.gpus!.count}`, line: l.line, why }));
}

/**
 * The platform of a read slurm.conf (`SlurmConf.platform`, the engine's node groups and partitions), its
 * groups carrying their nodes' GPUs (`ConfNodeLine.gpus`: all the nodes of a group share them).
 */
export function slurmConfPlatform(conf: ConfGroups): Platform {
  const lineOf = new Map<string, GpuDescription | undefined>();
  for (const l of conf.nodeLines) for (const n of l.names) lineOf.set(n, l.gpus);
  const spec = {
    ...conf.platform,
    // a node group's nodes as the platform has them: their CPUs (a whole-node conf counts each node as one
    // unit for the engine), their GPUs; memory is the platform's default node memory
    groups: conf.platform.groups.map((g, i) => {
      const gpus = lineOf.get(conf.groupNodes[i]![0]!);
      return { name: g.name, count: g.count, cores: g.cpus ?? g.cores, ...(gpus === undefined ? {} : { gpus }) };
    }),
  };
  const desc = nodeGroupSpecDescription(spec, conf.file, 'slurm.conf');
  // the engine counts a group's nodes as `<group>0...`; the conf's names are the nodes' own
  desc.clusters[0]!.groups = desc.clusters[0]!.groups.map((g, i) => ({ ...g, naming: namingOf(conf.groupNodes[i]!) }));
  return Platform.fromDescription(desc, undefined, conf.file);
}
