/**
 * `clustergym netsim --platform FILE --flows FILE [--model cm02|lv08] [--json]`: runs transfers on a
 * platform's network with the flow model (src/platform/flows.ts, docs/model.md) and prints each one's
 * completion time: a table, or with `--json` `{flows: [{id, src, dst, size, start, finish}]}` (input
 * order). The flows file is `[{id, src, dst, size, start}]` (host names, bytes, seconds). This is what
 * tools/netsim validates against SimGrid.
 */
import { readFlowsFile, simulateFlows } from '../src/platform/flowScenario.js';
import { flowModel } from '../src/platform/flows.js';
import { loadPlatform } from '../src/platform/loader.js';
import { platformNetwork } from '../src/platform/routing.js';
import { defineCommand, defineFlags, formatTable, oneOf, text } from './common.js';

/** The flags of `netsim`. */
export const flags = defineFlags({
  platform: {
    value: 'FILE',
    schema: text(true),
    required: 'Required (a platform with a network: SimGrid XML or native JSON)',
    help: 'the platform (SimGrid XML, or native JSON with a network)',
  },
  flows: {
    value: 'FILE',
    schema: text(true),
    required: 'Required (the transfers: [{id, src, dst, size, start}])',
    help: 'the transfers: JSON [{id, src, dst, size, start}] (host names, bytes, seconds)',
  },
  model: {
    schema: oneOf(['cm02', 'lv08'] as const),
    default: 'cm02' as const,
    help: "SimGrid's flow model: cm02 (no correction factors) or lv08 (SimGrid's default)",
  },
  json: { help: 'print {flows: [{id, src, dst, size, start, finish}]} on stdout instead of the table' },
});

/** `clustergym netsim`. */
export const command = defineCommand(flags, (v) => {
  const platform = loadPlatform(v.platform);
  const net = platformNetwork(platform);
  const flows = readFlowsFile(v.flows, net);
  const out = simulateFlows(net, flowModel(v.model), flows);
  if (v.json) process.stdout.write(`${JSON.stringify({ flows: out })}\n`);
  else
    console.log(
      formatTable(
        ['id', 'src', 'dst', 'size', 'start', 'finish'],
        out.map((f) => [String(f.id), f.src, f.dst, f.size, f.start, f.finish]),
      ),
    );
  return 0;
});
