/**
 * `clustergym slurm-agent --bridge ENDPOINT`: the policy is a Python process serving
 * `clustergym.policy_server.serve_policy(policy, ENDPOINT)` (python-client/). At each decision point
 * the agent sends it the env's observation and `info` (`action_mask`, `time`,
 * `queue_length`, `running`) in the bridge's wire form (msgpack maps, typed arrays as `__ndarray__`
 * maps shaped by the observation space: bridge/ndarray.ts), which the Python side decodes exactly as
 * `clustergym.Env.step` returns them in training; the reply is the env's action. A ZeroMQ REQ socket
 * connects to the policy; `hello` first (env id and spaces), `bye` at the end. A policy that does not
 * answer within `timeoutMs`, or answers an error, stops the agent with that message.
 */
import { Packr, Unpackr } from 'msgpackr';
import { Request } from 'zeromq';
import { z } from 'zod';
import type { SpaceDescriptor } from '../../bridge/protocol.js';
import { encodeValue } from '../../bridge/server.js';
import type { ClusterEnv } from '../../envs/env.js';
import type { Observation } from '../../envs/observation.js';
import { type LivePolicy, PolicyError } from './agent.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

const ReplySchema = z.union([z.object({ action: z.number().int() }), z.object({ error: z.string() }), z.object({ ok: z.literal(true) })]);

/** The Python policy behind `--bridge`. */
export class BridgePolicy implements LivePolicy {
  readonly name: string;
  private readonly sock = new Request();

  private constructor(
    readonly endpoint: string,
    readonly timeoutMs: number,
  ) {
    this.name = `Python policy at ${endpoint}`;
    this.sock.receiveTimeout = timeoutMs;
    this.sock.sendTimeout = timeoutMs;
    this.sock.linger = 0;
  }

  /** Connects to the policy at `endpoint` and says hello (the env's id and spaces). */
  static async start(endpoint: string, env: ClusterEnv, timeoutMs = 30_000): Promise<BridgePolicy> {
    const p = new BridgePolicy(endpoint, timeoutMs);
    p.sock.connect(endpoint);
    await p.call({ op: 'hello', env_id: env.id, observation_space: env.observationSpace, action_space: env.actionSpace });
    return p;
  }

  private async call(msg: Record<string, unknown>): Promise<z.infer<typeof ReplySchema>> {
    let raw: Buffer;
    try {
      await this.sock.send(packr.pack(msg));
      [raw] = (await this.sock.receive()) as [Buffer];
    } catch (e) {
      throw new PolicyError(
        `the Python policy at ${this.endpoint} did not answer ${String(msg.op)} within ${this.timeoutMs / 1000} s (${(e as Error).message}); is serve_policy running there?`,
      );
    }
    const r = ReplySchema.safeParse(unpackr.unpack(raw));
    if (!r.success)
      throw new PolicyError(
        `the Python policy at ${this.endpoint} answered ${String(msg.op)} with something else than {action: int}, {error: str} or {ok: true}`,
      );
    if ('error' in r.data) throw new PolicyError(`the Python policy at ${this.endpoint} failed: ${r.data.error}`);
    return r.data;
  }

  async act(env: ClusterEnv, observation: Observation): Promise<number> {
    const info = { action_mask: env.actionMask(), time: env.sim.now, queue_length: env.sim.queue.length, running: env.sim.runningCount };
    const r = await this.call({
      op: 'act',
      observation: encodeValue(observation, env.observationSpace as unknown as SpaceDescriptor),
      info: encodeValue(info),
    });
    if (!('action' in r)) throw new PolicyError(`the Python policy at ${this.endpoint} answered act without an action`);
    return r.action;
  }

  async close(): Promise<void> {
    try {
      await this.call({ op: 'bye' });
    } catch {
      // the policy may be gone already
    }
    this.sock.close();
  }
}
