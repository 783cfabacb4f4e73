/**
 * Training checkpoints (train.ts): `OUT/checkpoints/step-NNNNNNNNN/` holds the model directory
 * (io.ts), Adam's state (`optimizer.json`: the weights' names and shapes, `optimizer.bin`: their values
 * as float32) and the trainer's progress (`trainer.json`: steps, updates, episodes, the reward
 * normaliser and the per-env discounted returns). Writing one, reading one back to resume, and finding
 * the latest one of a training directory.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError, inputErrorFromIssues } from '../../src/core/errors.js';
import { tf } from './backend.js';
import { parsePpoConfig, type PpoConfig } from './config.js';
import { type PolicyMeta, saveModelDir } from './io.js';
import type { PolicyNetwork } from './network.js';

/** trainer.json of a checkpoint. */
const TrainerStateSchema = z
  .object({
    steps: z.number().int().min(0),
    updates: z.number().int().min(0),
    episodes: z.number().int().min(0),
    reward_rms: z.object({ mean: z.number(), var: z.number(), count: z.number() }).strict(),
    returns: z.array(z.number()),
  })
  .strict();

/** The trainer's progress, as trainer.json holds it. */
export type TrainerState = z.infer<typeof TrainerStateSchema>;

/** The progress of a fresh run of `numEnvs` envs. */
export function initialTrainerState(numEnvs: number): TrainerState {
  return { steps: 0, updates: 0, episodes: 0, reward_rms: { mean: 0, var: 1, count: 1e-4 }, returns: new Array<number>(numEnvs).fill(0) };
}

/**
 * The checkpoint directory meant by `dir`: a checkpoint itself (it has trainer.json) or a training
 * output directory (its latest checkpoint). Throws an `InputError` when there is none.
 */
export function resolveCheckpoint(dir: string): string {
  if (!existsSync(dir)) throw new InputError('no such checkpoint or training directory', dir);
  if (existsSync(join(dir, 'trainer.json'))) return dir;
  const ck = join(dir, 'checkpoints');
  const steps = existsSync(ck) ? readdirSync(ck).filter((d) => /^step-\d+$/.test(d) && existsSync(join(ck, d, 'trainer.json'))) : [];
  if (steps.length === 0) throw new InputError('neither a checkpoint (trainer.json) nor a training directory with checkpoints/step-N/', dir);
  steps.sort();
  return join(ck, steps[steps.length - 1]!);
}

/** Reads the training configuration stored in a checkpoint. */
export function checkpointConfig(checkpoint: string): PpoConfig {
  const file = join(checkpoint, 'config.json');
  if (!existsSync(file)) throw new InputError('config.json is missing', checkpoint);
  return parsePpoConfig(JSON.parse(readFileSync(file, 'utf8')), file);
}

/** The training output directory a checkpoint belongs to (`OUT/checkpoints/step-N` -> `OUT`). */
export function runDirOf(checkpoint: string): string {
  const abs = resolve(checkpoint);
  return dirname(dirname(abs));
}

/** The directory of the checkpoint at `steps` in output directory `outDir`. */
export function checkpointDir(outDir: string, steps: number): string {
  return join(outDir, 'checkpoints', `step-${String(steps).padStart(9, '0')}`);
}

/** Writes a checkpoint: the model directory plus Adam's state and the trainer's progress. */
export async function saveCheckpoint(
  dir: string,
  network: PolicyNetwork,
  optimizer: tf.Optimizer,
  state: TrainerState,
  c: PpoConfig,
  limits: PolicyMeta['limits'],
  backend: string,
): Promise<void> {
  await saveModelDir(dir, network, { config: c, limits, steps: state.steps, backend });
  const weights = await optimizer.getWeights();
  const specs = weights.map((w) => ({ name: w.name, shape: w.tensor.shape }));
  const total = weights.reduce((a, w) => a + w.tensor.size, 0);
  const data = new Float32Array(total);
  let o = 0;
  for (const w of weights) {
    const d = w.tensor.dataSync() as Float32Array;
    data.set(d, o);
    o += d.length;
  }
  // the iteration count comes as a fresh scalar; the moments are the optimizer's own variables
  for (const w of weights) if (!(w.tensor instanceof tf.Variable)) w.tensor.dispose();
  writeFileSync(join(dir, 'optimizer.json'), `${JSON.stringify({ optimizer: 'adam', weights: specs })}\n`);
  writeFileSync(join(dir, 'optimizer.bin'), new Uint8Array(data.buffer));
  writeFileSync(join(dir, 'trainer.json'), `${JSON.stringify(state)}\n`);
}

const OptimizerJsonSchema = z
  .object({ optimizer: z.literal('adam'), weights: z.array(z.object({ name: z.string(), shape: z.array(z.number().int().min(0)) }).strict()) })
  .strict();

/** Restores Adam's state from checkpoint `dir`. */
export async function loadOptimizer(dir: string, optimizer: tf.Optimizer): Promise<void> {
  const file = join(dir, 'optimizer.json');
  if (!existsSync(file)) throw new InputError('optimizer.json is missing: not a checkpoint', dir);
  const r = OptimizerJsonSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  const bin = readFileSync(join(dir, 'optimizer.bin'));
  const data = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
  let o = 0;
  const named = r.data.weights.map((w) => {
    const size = w.shape.reduce((a, b) => a * b, 1);
    const t = tf.tensor(data.subarray(o, o + size), w.shape);
    o += size;
    return { name: w.name, tensor: t };
  });
  if (o !== data.length) throw new InputError(`optimizer.bin holds ${data.length} values, optimizer.json describes ${o}`, dir);
  await optimizer.setWeights(named);
  for (const w of named) w.tensor.dispose(); // setWeights made variables of them
}

/** Reads the trainer's progress from checkpoint `dir` (per-env returns restart when the number of envs changed). */
export function readTrainerState(dir: string, numEnvs: number): TrainerState {
  const file = join(dir, 'trainer.json');
  const r = TrainerStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw inputErrorFromIssues(file, r.error.issues);
  const s = r.data;
  if (s.returns.length !== numEnvs) s.returns = new Array<number>(numEnvs).fill(0);
  return s;
}
