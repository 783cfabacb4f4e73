#!/usr/bin/env node
/**
 * Runs the Python client's tests (pytest, real server) without a shell: `node python-client/run_tests.mjs [pytest args]`.
 *
 * - Finds a Python with pyzmq, msgpack, numpy and pytest: `$CLUSTERGYM_PYTHON` when set (only it), else
 *   `/usr/bin/python3`, then `python3` on PATH.
 * - None found: prints `skipped: ...` and exits 0, unless CI is set (CI=true): then it fails.
 * - Needs the built server (`dist/cli/main.js`; `npm run build`).
 * - pytest's exit code 5 (no tests collected) is a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const MODULES = ['zmq', 'msgpack', 'numpy', 'pytest'];
const DEBIAN = 'apt-get install python3-zmq python3-msgpack python3-numpy python3-pytest';

function missingModules(python) {
  const code = `import importlib.util,sys\nm=[n for n in ${JSON.stringify(MODULES)} if importlib.util.find_spec(n) is None]\nprint(' '.join(m))\nsys.exit(0)`;
  const r = spawnSync(python, ['-c', code], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null; // no such interpreter
  return r.stdout.trim().split(/\s+/).filter(Boolean);
}

// An explicit $CLUSTERGYM_PYTHON is the only candidate; otherwise Debian's python3 first (its packages), then PATH's.
const candidates = (process.env.CLUSTERGYM_PYTHON ? [process.env.CLUSTERGYM_PYTHON] : ['/usr/bin/python3', 'python3']).filter((p) => !p.includes('/') || existsSync(p));
let python = null;
const tried = [];
for (const c of [...new Set(candidates)]) {
  const missing = missingModules(c);
  if (missing === null) {
    tried.push(`${c}: not runnable`);
    continue;
  }
  if (missing.length === 0) {
    python = c;
    break;
  }
  tried.push(`${c}: missing ${missing.join(', ')}`);
}

if (!python) {
  const why = `no Python with ${MODULES.join(', ')} (${tried.join('; ') || 'no python3 found'}); on Debian: ${DEBIAN}`;
  if (ci) {
    console.error(`error: Python client tests cannot run in CI: ${why}`);
    process.exit(1);
  }
  console.log(`skipped: Python client tests: ${why}`);
  process.exit(0);
}

const mainJs = join(repo, 'dist', 'cli', 'main.js');
if (!existsSync(mainJs) && !process.env.CLUSTERGYM_SERVER) {
  console.error(`error: the server is not built (${mainJs} is missing): run npm run build first`);
  process.exit(1);
}

const env = { ...process.env, PYTHONPATH: [here, process.env.PYTHONPATH].filter(Boolean).join(delimiter), PYTHONDONTWRITEBYTECODE: '1' };
const args = ['-m', 'pytest', join(here, 'tests'), '-p', 'no:cacheprovider', '-q', ...process.argv.slice(2)];
console.log(`python-client tests: ${python} ${args.join(' ')}`);
const r = spawnSync(python, args, { stdio: 'inherit', env, cwd: here });
if (r.error) {
  console.error(`error: cannot run ${python}: ${r.error.message}`);
  process.exit(1);
}
if (r.status === 5) {
  console.error('error: pytest collected no tests (exit code 5): the Python client tests are missing');
  process.exit(1);
}
process.exit(r.status ?? 1);
