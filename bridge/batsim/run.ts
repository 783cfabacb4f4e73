/**
 * A `BatsimSession` on ZeroMQ, as Batsim runs it: a REQ socket connects to the scheduler's REP socket
 * (pybatsim binds `tcp://*:28000`; Batsim's default endpoint is `tcp://localhost:28000`), sends each
 * request and waits for the reply. A scheduler that does not answer within the timeout (dead, hung,
 * or never started) ends the run with a `SchedulerTimeoutError`; a protocol violation ends it with the
 * session's `BatsimProtocolError`. The socket is closed either way.
 */
import { Request } from 'zeromq';
import { BatsimProtocolError } from './protocol.js';
import type { BatsimSession } from './session.js';

/** The scheduler sent nothing within the timeout. */
export class SchedulerTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchedulerTimeoutError';
  }
}

/** What a run measured. */
export interface RunStats {
  /** Requests sent (replies received). */
  messages: number;
  /** Wall-clock seconds spent waiting for the scheduler (Batsim's `scheduling_time`). */
  schedulingTime: number;
}

/** Options of `runSession`. */
export interface RunOptions {
  endpoint: string;
  /** Seconds to wait for each reply (and for a request to be taken). */
  timeout: number;
  /** The session's latency (`--latency`), for the hint of a timeout at time 0. */
  latency?: number | undefined;
  /** Called with each message, for `--verbosity network-only`/`debug`. */
  trace?: ((direction: 'send' | 'recv', text: string) => void) | undefined;
}

/** Runs `session` against the scheduler at `options.endpoint` until SIMULATION_ENDS is acknowledged. */
export async function runSession(session: BatsimSession, options: RunOptions): Promise<RunStats> {
  const ms = Math.max(1, Math.round(options.timeout * 1000));
  const sock = new Request({ receiveTimeout: ms, sendTimeout: ms, linger: 0 });
  const stats: RunStats = { messages: 0, schedulingTime: 0 };
  try {
    sock.connect(options.endpoint);
    let request: string | null = session.start();
    while (request !== null) {
      options.trace?.('send', request);
      const t0 = performance.now();
      let reply: string;
      try {
        await sock.send(request);
        const [frame] = await sock.receive();
        reply = frame ? frame.toString('utf8') : '';
      } catch (e) {
        if ((e as { code?: string }).code === 'EAGAIN')
          throw new SchedulerTimeoutError(
            `the scheduler at ${options.endpoint} did not answer within ${options.timeout} s (it died, hangs, or is not listening there); the simulation stops at t=${session.now} after ${stats.messages} replies${
              stats.messages > 0 && session.now === 0 && (options.latency ?? 0) === 0
                ? " (pybatsim's batsim.sched schedulers stop on a job submitted at time 0: run with --latency 1e-6)"
                : ''
            }`,
          );
        throw e;
      }
      stats.schedulingTime += (performance.now() - t0) / 1000;
      stats.messages++;
      options.trace?.('recv', reply);
      request = session.reply(reply);
    }
    return stats;
  } finally {
    sock.close();
  }
}

export { BatsimProtocolError };
