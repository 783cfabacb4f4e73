/**
 * `npm run bench`: runs the benchmarks and prints one JSON object of figures (and a readable
 * summary on stderr). `npm run bench -- core` runs one section. Sections are added as the
 * project grows; each is a function returning its figures.
 */
import { benchCore } from './core.js';

const SECTIONS: Record<string, () => Record<string, unknown> | Promise<Record<string, unknown>>> = {
  core: benchCore,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(w in SECTIONS));
  if (unknown.length) {
    console.error(`unknown bench section(s) ${unknown.join(', ')}; expected ${Object.keys(SECTIONS).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const out: Record<string, unknown> = { node: process.version };
  for (const [name, fn] of Object.entries(SECTIONS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const t0 = performance.now();
    out[name] = await fn();
    console.error(`bench ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  out.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify(out, null, 2));
}

void main();
