/**
 * Compiles the project once before the suites run: CLI tests spawn `node dist/cli/main.js`
 * and worker-thread tests load compiled modules, so they must see the current sources. Type errors
 * are reported here but do not stop the suites (`npm test` type-checks strictly before vitest runs).
 */
import { execFileSync } from 'node:child_process';
import { ROOT } from './helpers.js';

export default function setup(): void {
  try {
    execFileSync(process.execPath, [`${ROOT}/node_modules/typescript/bin/tsc`, '-p', `${ROOT}/tsconfig.json`], { stdio: 'pipe' });
  } catch (e) {
    const out = (e as { stdout?: Buffer }).stdout?.toString() ?? String(e);
    console.warn(`tsc reported errors (dist/ was still emitted):\n${out.slice(0, 4000)}`);
  }
}
