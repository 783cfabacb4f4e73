/**
 * Model directories (DESIGN §7): a trained policy on disk, written and read through a custom tfjs IO
 * handler on `node:fs` (tfjs' own `file://` handler needs tfjs-node, which is optional).
 *
 * ```
 * DIR/model.json    tfjs LayersModel format: { modelTopology, weightsManifest: [{ paths: ["weights.bin"], weights }], format, generatedBy }
 * DIR/weights.bin   the weights, little-endian float32, in the manifest's order
 * DIR/policy.json   what the network expects: env id, row and pooled feature names, K and N it was
 *                   trained with, the normalisation limits, training steps
 * DIR/config.json   the training configuration (agents/learning/config.ts), env config included
 * ```
 *
 * `model.json` + `weights.bin` is exactly what `tf.loadLayersModel('file://DIR/model.json')` reads
 * under tfjs-node. A checkpoint is a model directory plus `optimizer.json` + `optimizer.bin` (Adam's
 * moments) and `trainer.json` (progress, reward normaliser), see `train.ts`.
 *
 * Loading checks everything before building anything: a missing directory or file, a policy.json
 * that is not ours, or a network whose input shape disagrees with policy.json is an `InputError`
 * (exit 2) naming the file.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { tf } from './backend.js';
import { loadPpoConfig, PPO_ENV_IDS, type PpoConfig, portableConfig } from './config.js';
import { POOLED_FEATURES, POOLED_SIZE, rowFeatureNames, rowLayout, type RowLayout } from './features.js';
import { PolicyNetwork } from './network.js';

/** The `format` tag of policy.json. */
export const POLICY_FORMAT = 'clustergym-ppo';
/** Version of the model-directory layout. */
export const POLICY_VERSION = 1;

const positive = z.number().finite().positive();

/** policy.json. */
export const PolicyMetaSchema = z
  .object({
    format: z.literal(POLICY_FORMAT),
    version: z.literal(POLICY_VERSION),
    env_id: z.enum(PPO_ENV_IDS),
    /** Queue window and nodes of the training env (the network itself serves any K and N). */
    k: z.number().int().positive(),
    nodes: z.number().int().positive(),
    row_features: z.array(z.string()),
    pooled_features: z.array(z.string()),
    /** The env's normalisation limits during training (evaluation reuses them). */
    limits: z
      .object({
        req_time: z.number().finite().min(0),
        ntasks: z.number().finite().min(0),
        mem: z.number().finite().min(0),
        mem_vol: z.number().finite().min(0),
      })
      .strict(),
    /** Environment steps trained. */
    steps: z.number().int().min(0),
    /** Backend that trained it (information). */
    backend: z.string(),
    /** tfjs version that wrote it (information). */
    tfjs: z.string(),
  })
  .strict();

/** The contents of policy.json. */
export type PolicyMeta = z.infer<typeof PolicyMetaSchema>;

/** A loaded model directory. */
export interface LoadedPolicy {
  network: PolicyNetwork;
  meta: PolicyMeta;
  config: PpoConfig;
  dir: string;
}

/** The limits as the env config's `limits` wants them (a limit of 0 is left to the workload). */
export function limitsForConfig(limits: PolicyMeta['limits']): Record<string, number> {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => positive.safeParse(v).success));
}

function joinWeights(data: tf.io.WeightData): ArrayBuffer {
  return Array.isArray(data) ? tf.io.CompositeArrayBuffer.join(data) : (data as ArrayBuffer);
}

/** A tfjs IO handler that writes `model.json` and `weights.bin` into `dir` (created if needed). */
export function directorySaveHandler(dir: string): tf.io.IOHandler {
  return {
    save: async (artifacts: tf.io.ModelArtifacts): Promise<tf.io.SaveResult> => {
      if (!(artifacts.modelTopology && artifacts.weightSpecs && artifacts.weightData)) throw new Error('the model gave no topology or weights to save');
      mkdirSync(dir, { recursive: true });
      const weights = joinWeights(artifacts.weightData);
      const modelJson: tf.io.ModelJSON = {
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: artifacts.weightSpecs }],
        format: artifacts.format ?? 'layers-model',
        generatedBy: artifacts.generatedBy ?? `TensorFlow.js tfjs-layers v${tf.version.tfjs}`,
        convertedBy: null,
      };
      writeFileSync(join(dir, 'weights.bin'), new Uint8Array(weights));
      writeFileSync(join(dir, 'model.json'), `${JSON.stringify(modelJson)}\n`);
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts) };
    },
  };
}

/** A tfjs IO handler that reads `model.json` and its weight files from `dir`. */
export function directoryLoadHandler(dir: string): tf.io.IOHandler {
  return {
    load: async (): Promise<tf.io.ModelArtifacts> => {
      const file = join(dir, 'model.json');
      let json: tf.io.ModelJSON;
      try {
        json = JSON.parse(readFileSync(file, 'utf8')) as tf.io.ModelJSON;
      } catch (e) {
        throw new InputError(`cannot read the model: ${(e as Error).message}`, file);
      }
      if (typeof json !== 'object' || json === null || !json.modelTopology || !Array.isArray(json.weightsManifest))
        throw new InputError('not a tfjs layers model (expected modelTopology and weightsManifest)', file);
      return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
        const specs: tf.io.WeightsManifestEntry[] = [];
        const buffers: ArrayBuffer[] = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const p of group.paths) {
            const f = join(dir, p);
            if (!existsSync(f)) throw new InputError(`weights file ${p} named by model.json is missing`, dir);
            const b = readFileSync(f);
            buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
          }
        }
        return [specs, tf.io.CompositeArrayBuffer.join(buffers)];
      });
    },
  };
}

/** What `saveModelDir` needs besides the network. */
export interface SaveMeta {
  config: PpoConfig;
  limits: PolicyMeta['limits'];
  steps: number;
  backend: string;
}

/** Writes the model directory `dir` (model.json, weights.bin, policy.json, config.json). */
export async function saveModelDir(dir: string, network: PolicyNetwork, m: SaveMeta): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await network.model.save(directorySaveHandler(dir));
  const l = network.layout;
  const meta: PolicyMeta = {
    format: POLICY_FORMAT,
    version: POLICY_VERSION,
    env_id: l.envId,
    k: l.k,
    nodes: l.nodes,
    row_features: rowFeatureNames(l.envId, l.features),
    pooled_features: [...POOLED_FEATURES],
    limits: m.limits,
    steps: m.steps,
    backend: m.backend,
    tfjs: tf.version.tfjs,
  };
  writeFileSync(join(dir, 'policy.json'), `${JSON.stringify(meta, null, 1)}\n`);
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(portableConfig(m.config, dir), null, 1)}\n`);
}

function readJson(file: string, what: string): unknown {
  if (!existsSync(file))
    throw new InputError(`${what} is missing: not a clustergym PPO model directory (expected model.json, weights.bin, policy.json, config.json)`, file);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`not valid JSON: ${(e as Error).message}`, file);
  }
}

/** Reads and checks policy.json and config.json of a model directory (no tfjs). */
export function readModelMeta(dir: string): { meta: PolicyMeta; config: PpoConfig } {
  if (!existsSync(dir)) throw new InputError('no such model directory', dir);
  if (!statSync(dir).isDirectory())
    throw new InputError('not a directory (a model is a directory with model.json, weights.bin, policy.json, config.json)', dir);
  const policyFile = join(dir, 'policy.json');
  const r = PolicyMetaSchema.safeParse(readJson(policyFile, 'policy.json'));
  if (!r.success) throw inputErrorFromIssues(policyFile, r.error.issues);
  const meta = r.data;
  // relative platform and workload paths are relative to the model directory (a shipped model names its trace that way)
  const config = loadPpoConfig(join(dir, 'config.json'));
  if (config.env.id !== meta.env_id) throw new InputError(`config.json trains ${config.env.id} but policy.json says ${meta.env_id}`, dir);
  // the rows the model was trained on: its config's feature set (`base` for models older than the option)
  const expectRows = rowFeatureNames(meta.env_id, config.network.row_features);
  if (JSON.stringify(meta.row_features) !== JSON.stringify(expectRows))
    throw new InputError(
      `row features ${JSON.stringify(meta.row_features)} are not those of ${meta.env_id} with network.row_features ` +
        `${JSON.stringify(config.network.row_features)} in this version (${JSON.stringify(expectRows)})`,
      policyFile,
    );
  if (JSON.stringify(meta.pooled_features) !== JSON.stringify(POOLED_FEATURES))
    throw new InputError(`pooled features differ from this version's ${POOLED_SIZE} (${POOLED_FEATURES.join(', ')})`, policyFile);
  return { meta, config };
}

/**
 * Loads a model directory for an env of layout `layout` (default: the one it was trained on). The
 * env must be of the same kind (Job-v0 or JobNode-v0: the row features); K and N may differ. The
 * rows are always of the model's own feature set (`network.row_features` of its config), whatever
 * `layout.features` says.
 */
export async function loadModelDir(dir: string, layout?: RowLayout): Promise<LoadedPolicy> {
  const { meta, config } = readModelMeta(dir);
  const target = layout
    ? layout.envId === meta.env_id
      ? rowLayout(layout.envId, layout.k, layout.nodes, config.network.row_features)
      : layout
    : rowLayout(meta.env_id, meta.k, meta.nodes, config.network.row_features);
  if (target.envId !== meta.env_id)
    throw new InputError(
      `the model was trained on ${meta.env_id} (rows of ${meta.row_features.length} features: ${meta.row_features.join(', ')}); ` +
        `this env is ${target.envId} (rows of ${target.rowSize} features): train a model for ${target.envId}`,
      dir,
    );
  for (const f of ['model.json', 'weights.bin']) if (!existsSync(join(dir, f))) throw new InputError(`${f} is missing`, dir);
  let model: tf.LayersModel;
  try {
    model = await tf.loadLayersModel(directoryLoadHandler(dir));
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot build the network from model.json and weights.bin: ${(e as Error).message.split('\n')[0]}`, dir);
  }
  const inputs = model.inputs.map((t) => t.shape[1]);
  if (model.inputs.length !== 2 || inputs[0] !== target.rowSize || inputs[1] !== POOLED_SIZE || model.outputs.length !== 3) {
    model.dispose();
    throw new InputError(
      `the network in model.json takes inputs of ${JSON.stringify(inputs)} features with ${model.outputs.length} outputs; ` +
        `${target.envId} needs rows of ${target.rowSize} and pooled features of ${POOLED_SIZE} with 3 outputs (score, wait, value)`,
      dir,
    );
  }
  return { network: new PolicyNetwork(model, target), meta, config, dir };
}
