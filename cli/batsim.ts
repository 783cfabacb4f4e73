/**
 * `clustergym batsim -p PLATFORM -w WORKLOAD [-w ...] [-s ENDPOINT] [-e PREFIX] [-E] [...]`: plays
 * Batsim's role for a Batsim scheduler (pybatsim, batsched...) on clustergym's model (docs/batsim.md).
 * The flags keep Batsim's names (`batsim --help`); `--timeout` is clustergym's: a scheduler that does
 * not answer within it ends the run (Batsim would wait forever).
 *
 * Exit codes: 0 when the simulation ended (SIMULATION_ENDS acknowledged; `PREFIX_jobs.csv` and
 * `PREFIX_schedule.csv` written), 1 when the scheduler broke the protocol, asked for something Batsim
 * refuses, left the simulation stuck, or stopped answering (one line says which), 2 on bad input.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option } from 'commander';
import { z } from 'zod';
import { InputError } from '../src/core/errors.js';
import { readJsonFile } from '../src/core/json.js';
import { loadPlatform } from '../src/platform/loader.js';
import { BatsimWorkloadSchema } from '../src/workload/batsim.js';
import { inputErrorFromIssues } from '../src/core/errors.js';
import type { CliCommandModule } from './common.js';
import { endpointProblem } from './serve.js';

const VERBOSITY = ['quiet', 'network-only', 'information', 'debug'] as const;

/** The flag values of `batsim`, validated. */
const FlagsSchema = z
  .object({
    platform: z.string({ required_error: 'Required (the platform: SimGrid XML or clustergym JSON)' }).min(1),
    workload: z.array(z.string().min(1)).min(1, 'Required (at least one Batsim workload)'),
    socketEndpoint: z.string().superRefine((s, ctx) => {
      const why = endpointProblem(s.replace('tcp://localhost:', 'tcp://127.0.0.1:'));
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }),
    export: z.string().min(1),
    masterHost: z.string(),
    energy: z.boolean(),
    forwardProfilesOnSubmission: z.boolean(),
    enableDynamicJobs: z.boolean(),
    acknowledgeDynamicJobs: z.boolean(),
    enableProfileReuse: z.boolean(),
    schedCfg: z.string().optional(),
    timeout: z.coerce.number().finite().positive(),
    latency: z.coerce.number().finite().nonnegative(),
    verbosity: z.enum(VERBOSITY),
    quiet: z.boolean(),
  })
  .strict();

/** The command line's long name of each value, for messages. */
const FLAG_NAMES: Record<string, string> = {
  platform: '--platform',
  workload: '--workload',
  socketEndpoint: '--socket-endpoint',
  export: '--export',
  timeout: '--timeout',
  latency: '--latency',
  verbosity: '--verbosity',
};

export const command: CliCommandModule = {
  configure(cmd, done) {
    const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];
    cmd
      .usage('-p PLATFORM -w WORKLOAD [-w WORKLOAD...] [flags]')
      .addOption(new Option('-p, --platform <FILE>', 'the platform: SimGrid XML or clustergym JSON (required)'))
      .addOption(new Option('-w, --workload <FILE>', 'a Batsim workload (JSON); repeat for several (required)').argParser(collect))
      .addOption(new Option('-s, --socket-endpoint <ENDPOINT>', "the scheduler's socket endpoint (it binds, Batsim connects)").default('tcp://localhost:28000'))
      .addOption(new Option('-e, --export <PREFIX>', 'prefix of the output files PREFIX_jobs.csv and PREFIX_schedule.csv').default('out'))
      .addOption(new Option('-m, --master-host <NAME>', 'the host that is not a compute resource').default('master_host'))
      .addOption(new Option('-E, --energy', 'energy mode: power states (SET_RESOURCE_STATE) and QUERY consumed_energy'))
      .addOption(new Option('--forward-profiles-on-submission', 'attach the job profile to JOB_SUBMITTED'))
      .addOption(new Option('--enable-dynamic-jobs', 'let the scheduler register jobs and profiles (REGISTER_JOB, REGISTER_PROFILE)'))
      .addOption(new Option('--acknowledge-dynamic-jobs', 'answer each REGISTER_JOB with a JOB_SUBMITTED'))
      .addOption(new Option('--enable-profile-reuse', 'dynamic jobs may reuse the profiles of other jobs'))
      .addOption(new Option('--sched-cfg <STRING>', "forwarded to the scheduler as the configuration's sched-config"))
      .addOption(
        new Option(
          '--latency <S>',
          "seconds between an event and the request that tells it (Batsim's SimGrid message latency; pybatsim's batsim.sched schedulers need > 0 when jobs arrive at 0)",
        ).default('0'),
      )
      .addOption(new Option('--timeout <S>', 'seconds to wait for each reply of the scheduler before ending the run').default('60'))
      .addOption(new Option('-v, --verbosity <LEVEL>', `${VERBOSITY.join(', ')}: network-only and debug print every message on stderr`).default('information'))
      .addOption(new Option('-q, --quiet', 'shortcut for --verbosity quiet'))
      .action(async (options: Record<string, unknown>) => {
        const r = FlagsSchema.safeParse({
          energy: false,
          forwardProfilesOnSubmission: false,
          enableDynamicJobs: false,
          acknowledgeDynamicJobs: false,
          enableProfileReuse: false,
          quiet: false,
          workload: [],
          ...options,
        });
        if (!r.success)
          throw new InputError(r.error.issues.map((i) => `${FLAG_NAMES[String(i.path[0])] ?? `--${String(i.path[0])}`}: ${i.message}`).join('; '));
        done(await runBatsimCommand(r.data));
      });
  },
};

/** Runs the command with validated flags; returns the exit code. */
async function runBatsimCommand(f: z.output<typeof FlagsSchema>): Promise<number> {
  const { BatsimSession } = await import('../bridge/batsim/session.js');
  const { runSession, SchedulerTimeoutError } = await import('../bridge/batsim/run.js');
  const { BatsimProtocolError } = await import('../bridge/batsim/protocol.js');
  const { writeBatsimOutputs } = await import('../bridge/batsim/outputs.js');
  const platform = loadPlatform(f.platform);
  const workloads = f.workload.map((file, i) => {
    const data = readJsonFile(file);
    const w = BatsimWorkloadSchema.safeParse(data);
    if (!w.success) throw inputErrorFromIssues(file, w.error.issues);
    return { name: `w${i}`, path: resolve(file), jobs: w.data.jobs as Record<string, unknown>[], profiles: w.data.profiles };
  });
  const verbosity = f.quiet ? 'quiet' : f.verbosity;
  const t0 = performance.now();
  const session = new BatsimSession({
    platform,
    workloads,
    energy: f.energy,
    masterHost: f.masterHost,
    forwardProfiles: f.forwardProfilesOnSubmission,
    dynamicJobs: f.enableDynamicJobs,
    acknowledgeDynamicJobs: f.acknowledgeDynamicJobs,
    profileReuse: f.enableProfileReuse,
    schedConfig: f.schedCfg,
    latency: f.latency,
  });
  const trace =
    verbosity === 'network-only' || verbosity === 'debug'
      ? (dir: 'send' | 'recv', text: string) => console.error(`${dir === 'send' ? '>>>' : '<<<'} ${text}`)
      : undefined;
  let stats: { messages: number; schedulingTime: number };
  try {
    stats = await runSession(session, { endpoint: f.socketEndpoint, timeout: f.timeout, latency: f.latency, trace });
  } catch (e) {
    if (e instanceof BatsimProtocolError || e instanceof SchedulerTimeoutError) {
      console.error(`clustergym batsim: error at t=${session.now}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const simulationTime = (performance.now() - t0) / 1000;
  mkdirSync(dirname(resolve(f.export)), { recursive: true });
  const files = writeBatsimOutputs(f.export, {
    rows: session.rows,
    version: BatsimSession.version,
    consumedJoules: session.energyAtLastCompletion - session.energyAtFirstSubmission,
    machines: session.machines.count,
    groupedSwitches: session.groupedSwitches,
    machineSwitches: session.machineSwitches,
    schedulingTime: stats.schedulingTime,
    simulationTime,
    timeInStates: session.machines.timeInStates(session.now),
  });
  if (verbosity !== 'quiet') {
    const ok = session.rows.filter((r) => r.finalState === 'COMPLETED_SUCCESSFULLY').length;
    console.log(
      `Simulation is finished: ${session.rows.length} jobs (${ok} successful), makespan ${session.lastCompletion}, ${stats.messages} messages, ` +
        `scheduling time ${stats.schedulingTime.toFixed(3)} s, simulation time ${simulationTime.toFixed(3)} s; wrote ${files.join(', ')}`,
    );
  }
  return 0;
}
