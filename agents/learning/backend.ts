/**
 * tfjs backend selection (DESIGN §7). In order, unless a backend is asked for:
 *
 * 1. `tensorflow`: `@tensorflow/tfjs-node` (native libtensorflow), an optional dependency used when it
 *    is importable. Its install script downloads libtensorflow, so where that download is impossible
 *    npm drops it and clustergym goes on without it.
 * 2. `wasm`: `@tensorflow/tfjs-backend-wasm`. In Node the `.wasm` files are loaded from the
 *    package's `dist/` directory in `node_modules` (`setWasmPaths`), never from the network.
 * 3. `cpu`: tfjs' plain JavaScript backend (always there, slowest).
 *
 * `tf` is the one `@tensorflow/tfjs` module every part of the agent uses; tfjs-node, when present,
 * registers its backend into it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import type { BackendChoice } from './config.js';

export { tf };

/** The backend in use and how it was chosen. */
export interface BackendInfo {
  /** tfjs' name of the backend: `tensorflow`, `wasm` or `cpu`. */
  name: string;
  /** tfjs version. */
  version: string;
  /** Backends tried before this one, with why they were passed over. */
  skipped: { name: string; reason: string }[];
}

let current: BackendInfo | null = null;

const require = createRequire(import.meta.url);

/** The directory of the wasm backend's `.wasm` files (with a trailing slash, as `setWasmPaths` wants). */
export function wasmDirectory(): string {
  return `${join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist')}/`;
}

async function tryNode(): Promise<string | null> {
  const name = '@tensorflow/tfjs-node';
  try {
    await import(name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ERR_MODULE_NOT_FOUND'
      ? 'not installed, an optional dependency: see docs/agents.md'
      : `not loadable: ${(e as Error).message.split('\n')[0]}`;
  }
  return (await tf.setBackend('tensorflow')) ? null : 'tfjs-node loaded but its backend did not initialise';
}

async function tryWasm(): Promise<string | null> {
  try {
    setWasmPaths(wasmDirectory());
    return (await tf.setBackend('wasm')) ? null : 'the wasm backend did not initialise';
  } catch (e) {
    return `not available: ${(e as Error).message.split('\n')[0]}`;
  }
}

/**
 * Selects a backend (once per process: later calls return the first choice unless another backend
 * is asked for explicitly). `auto` takes the first that works of tensorflow, wasm, cpu; an explicit
 * choice that fails throws.
 */
export async function selectBackend(choice: BackendChoice = 'auto'): Promise<BackendInfo> {
  if (current && (choice === 'auto' || choice === current.name)) return current;
  tf.enableProdMode();
  const skipped: { name: string; reason: string }[] = [];
  const order: ('tensorflow' | 'wasm' | 'cpu')[] = choice === 'auto' ? ['tensorflow', 'wasm', 'cpu'] : [choice];
  for (const name of order) {
    const reason =
      name === 'tensorflow' ? await tryNode() : name === 'wasm' ? await tryWasm() : (await tf.setBackend('cpu')) ? null : 'the cpu backend did not initialise';
    if (reason === null) {
      await tf.ready();
      current = { name: tf.getBackend(), version: tf.version.tfjs, skipped };
      return current;
    }
    if (choice !== 'auto') throw new Error(`tfjs backend ${name}: ${reason}`);
    skipped.push({ name, reason });
  }
  throw new Error(`no tfjs backend could be initialised: ${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')}`);
}

/** A one-line description of the backend, e.g. `tfjs 4.22.0, backend wasm (tensorflow: not installed ...)`. */
export function describeBackend(b: BackendInfo): string {
  const skipped = b.skipped.length ? ` (${b.skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')})` : '';
  return `tfjs ${b.version}, backend ${b.name}${skipped}`;
}
