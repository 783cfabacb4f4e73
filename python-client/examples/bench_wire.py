#!/usr/bin/env python3
"""The bridge against raw ZeroMQ, side by side (issue 18's yardstick).

    python3 examples/bench_wire.py [--env ID] [--k N] [--envs 1,8,64] [--seconds S] [--rounds R] [--workload FILE]

Starts ONE Node process (``dist/bench/bridgeEcho.js``) that serves both the clustergym bridge and a
raw ZeroMQ ROUTER answering every message with a fixed reply. For each env count:

* ``bridge``: the real Python client (``clustergym.make`` / ``make_vec`` over that server) steps with
  the first valid action of the mask (``step`` for one env, ``step_batch`` for several; episodes
  that end are reset, inside the timing);
* ``raw``: a pyzmq DEALER sends a message of the size of a real ``step``/``step_batch`` request
  and receives a reply of the size of a real reply (captured from the bridge, installed on the raw
  server), without decoding it: the wire alone.

* ``raw_busy``: the same raw ping-pong, the raw server keeping the CPU busy before each reply for
  as long as the envs' own ``step``/``reset`` took per bridge round trip in the slice just before:
  wire plus the simulator's computing, without the bridge. On a loaded machine a process that
  computes between messages is woken later than an idle one, so this is the fair yardstick of what
  the bridge itself adds (``bridge_over_raw_busy``).

* ``raw_sim``: the same raw ping-pong, the raw server stepping its own in-process copies of the envs
  (same id and config, first valid action) before each reply: the wire plus the simulator's real
  work, no bridge code. ``raw_sim_over_raw`` is the most any bridge could reach with this simulator on
  this machine; ``bridge_over_raw_sim`` is what the bridge itself (server handling and Python client)
  keeps of it.

The four alternate in ``--rounds`` short slices (bridge, raw, raw_busy, raw_sim, bridge, ...), so all
see the same machine. Prints ONE JSON line: per env count, bridge, raw and raw_busy round trips/s,
env-steps/s, the ratios, and where a bridge round trip goes (the server's ``stats`` op: time in the
envs' own ``step``/``reset``, i.e. the simulator, and the rest of the server's handling).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import zmq

import _common  # noqa: F401
import clustergym
from clustergym import binary, wire
from clustergym.libzmq import PyzmqDealer

REPO = Path(__file__).resolve().parents[2]


def start_servers() -> "tuple[subprocess.Popen[bytes], str, str]":
    script = REPO / "dist" / "bench" / "bridgeEcho.js"
    if not script.is_file():
        sys.exit(f"{script} is missing: run `npm run build` first")
    node = os.environ.get("CLUSTERGYM_NODE", "node")
    p = subprocess.Popen([node, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=str(REPO))
    assert p.stdout is not None
    bridge = p.stdout.readline().decode().strip()
    raw = p.stdout.readline().decode().strip()
    if not bridge.startswith("tcp://") or not raw.startswith("tcp://"):
        p.kill()
        sys.exit("the benchmark servers did not start")
    return p, bridge, raw


def first_valid(masks: np.ndarray) -> Any:
    return masks.argmax(axis=-1)


class BridgeLoop:
    """Steps through the real client; `run(n)` does n round trips."""

    def __init__(self, address: str, env_id: str, config: Dict[str, Any], n: int) -> None:
        self.n = n
        if n == 1:
            self.env: Any = clustergym.make(env_id, config, address=address)
            self.env.reset(seed=0)
        else:
            self.env = clustergym.make_vec(env_id, n, config, address=address, autoreset_mode="SameStep")
            self.env.reset(seed=0)

    def run(self, count: int) -> None:
        env = self.env
        if self.n == 1:
            for _ in range(count):
                _, _, term, trunc, _ = env.step(int(first_valid(env.action_masks())))
                if term or trunc:
                    env.reset()
        else:
            for _ in range(count):
                env.step(first_valid(env.action_masks()))

    def sample(self) -> "tuple[bytes, bytes]":
        """One real request and its reply, as bytes on the wire (binary frames when the client uses them)."""
        c = self.env.client
        masks = self.env.action_masks()
        if self.n == 1:
            a = [int(first_valid(masks))]
            layout, numbers, op = self.env._layout, self.env._handle_number, "step"  # noqa: SLF001
            handles = [self.env.handle]
        else:
            a = [int(x) for x in first_valid(masks)]
            layout, numbers, op = self.env._layout, self.env._handle_numbers, "step_batch"  # noqa: SLF001
            handles = list(self.env.handles)
        if layout is not None:
            # the flags of the real step (info columns when the vector env asks for them)
            columns = bool(getattr(self.env, "_columns", False))
            raw_req = binary.encode_request(op, 1, numbers, a, True, c._token_bytes, columns)  # noqa: SLF001
        else:
            req: Dict[str, Any] = {"id": 1, "op": op}
            req.update({"env": handles[0], "action": a[0]} if self.n == 1 else {"envs": handles, "actions": a, "autoreset": True})
            if c._token is not None:  # noqa: SLF001
                req["token"] = c._token  # noqa: SLF001
            raw_req = wire.pack(req)
        c._sock.send(raw_req)  # noqa: SLF001 -- the benchmark reads the wire itself
        raw_rep = c._sock.recv()  # noqa: SLF001
        if self.n == 1:
            ended = binary.decode_step(layout, raw_rep)[2:4] if layout is not None else [wire.unpack(raw_rep).get(k) for k in ("terminated", "truncated")]
            if any(ended):
                self.env.reset()
            else:
                self.env._mask = None  # noqa: SLF001 -- the mask moved with the step
        else:
            self.env._masks = None  # noqa: SLF001
        return raw_req, raw_rep

    def close(self) -> None:
        self.env.close()


class RawLoop:
    def __init__(self, address: str, request: bytes, reply: bytes, busy_us: float = 0.0, sim: str = "") -> None:
        # pyzmq's DEALER (libzmq) to zeromq.js's ROUTER: the "raw ZeroMQ round trip"
        self.dealer = PyzmqDealer(address)
        self.sock = self.dealer.socket
        self.sock.send_multipart([b"set", reply])
        self.sock.recv()
        # the echo server is one process for all raw sockets: each message says nothing of busy, so
        # a busy loop gets its own server-side setting by sending it before each slice (see run)
        self.busy_us = busy_us
        self.request = request
        # raw_sim: the server steps its own in-process envs (made once, here, outside the timing)
        self.sim = sim.encode()
        self.sock.send_multipart([b"sim", self.sim])
        self.sock.recv()

    def run(self, count: int) -> None:
        s, req = self.sock, self.request
        s.send_multipart([b"busy", str(self.busy_us).encode()])
        s.recv()
        s.send_multipart([b"sim", self.sim])
        s.recv()
        # pyzmq's compiled send (not its Python wrapper): the wire alone
        send = self.dealer.send
        for _ in range(count):
            send(req)
            s.recv()

    def close(self) -> None:
        self.sock.close(linger=0)


def timed(loop: Any, count: int) -> float:
    t0 = time.perf_counter()
    loop.run(count)
    return time.perf_counter() - t0


def decode_us(b: "BridgeLoop", raw: bytes, reps: int = 2000) -> float:
    """Python's decoding of one real reply (binary frame or msgpack), infos batched as the vector env
    does, in microseconds (the client's own CPU per step besides the socket)."""
    from clustergym.infos import batch_infos

    layout = getattr(b.env, "_layout", None)
    if b.n == 1:
        f = (lambda: binary.decode_step(layout, raw)) if layout is not None else (lambda: wire.unpack(raw))
    elif layout is not None:
        f = lambda: batch_infos(binary.decode_step_batch(layout, raw, b.n)["infos"], b.n)  # noqa: E731
    else:
        f = lambda: batch_infos(wire.unpack(raw)["infos"], b.n)  # noqa: E731
    f()
    t0 = time.perf_counter()
    for _ in range(reps):
        f()
    return (time.perf_counter() - t0) / reps * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="clustergym/Job-v0")
    p.add_argument("--k", type=int, default=128)
    p.add_argument("--envs", default="1,8,64", help="comma-separated env counts")
    p.add_argument("--seconds", type=float, default=4.0, help="timed seconds per side and env count")
    p.add_argument("--rounds", type=int, default=8, help="interleaved slices per side")
    p.add_argument("--workload", default=None)
    p.add_argument("--msgpack", action="store_true", help="step over msgpack maps, not the binary frames")
    a = p.parse_args()
    if a.msgpack:
        os.environ["CLUSTERGYM_BINARY"] = "0"
    config: Dict[str, Any] = {"k": a.k}
    if a.workload:
        config["workload"] = a.workload
    proc, bridge_addr, raw_addr = start_servers()
    results: List[Dict[str, Any]] = []
    load_before = [round(x, 2) for x in os.getloadavg()]
    client_transport = None
    try:
        for n in [int(x) for x in a.envs.split(",")]:
            b = BridgeLoop(bridge_addr, a.env, config, n)
            b.run(200)
            req, rep = b.sample()
            r = RawLoop(raw_addr, req, rep)
            r.run(200)
            c = b.env.client
            client_transport = c.transport
            # calibrate a slice to ~seconds/rounds on the bridge side, and the envs' time per trip
            s0 = c.request("stats")
            t = timed(b, 200)
            s1 = c.request("stats")
            per = max(20, int(a.seconds / a.rounds / (t / 200)))
            rb = RawLoop(raw_addr, req, rep, busy_us=(s1["env_s"] - s0["env_s"]) / 200 * 1e6)
            rb.run(50)
            rs = RawLoop(raw_addr, req, rep, sim=json.dumps({"env_id": a.env, "config": config, "n": n}))
            rs.run(50)
            bt = rt = rbt = rst = 0.0
            env_s = handle_s = encode_s = cpu_s = raw_cpu_s = 0.0
            for _ in range(a.rounds):
                s0 = c.request("stats")
                c0 = time.process_time()
                bt += timed(b, per)
                cpu_s += time.process_time() - c0
                s1 = c.request("stats")
                env_s += s1["env_s"] - s0["env_s"]
                handle_s += s1["handle_s"] - s0["handle_s"]
                encode_s += s1.get("encode_s", 0.0) - s0.get("encode_s", 0.0)
                c0 = time.process_time()
                rt += timed(r, per)
                raw_cpu_s += time.process_time() - c0
                # as busy as the envs were in this very slice
                rb.busy_us = (s1["env_s"] - s0["env_s"]) / per * 1e6
                rbt += timed(rb, per)
                rst += timed(rs, per)
            trips = per * a.rounds
            dec = decode_us(b, rep)
            results.append({
                "envs": n,
                "op": "step" if n == 1 else "step_batch",
                "request_bytes": len(req),
                "reply_bytes": len(rep),
                "bridge_round_trips_per_s": round(trips / bt, 1),
                "raw_round_trips_per_s": round(trips / rt, 1),
                "raw_busy_round_trips_per_s": round(trips / rbt, 1),
                "raw_sim_round_trips_per_s": round(trips / rst, 1),
                "bridge_steps_per_s": round(trips * n / bt, 1),
                "raw_steps_per_s": round(trips * n / rt, 1),
                "bridge_over_raw": round(rt / bt, 3),
                # the bridge against raw ZeroMQ whose server computes as long as the envs do
                "bridge_over_raw_busy": round(rbt / bt, 3),
                # raw_sim against raw: the most any bridge could reach with this simulator on this
                # machine (the wire plus the envs' real steps in the server, no bridge code at all)
                "raw_sim_over_raw": round(rt / rst, 3),
                "bridge_over_raw_sim": round(rst / bt, 3),
                # where a bridge round trip goes: the envs' own step/reset calls (the simulator), the
                # rest of the server's handling (decode, checks, encode), and everything else (wire, Python)
                "us_per_trip": {
                    "total": round(bt / trips * 1e6, 1),
                    "raw_total": round(rt / trips * 1e6, 1),
                    "raw_busy_total": round(rbt / trips * 1e6, 1),
                    "raw_busy_cpu": round(env_s / trips * 1e6, 1),
                    "raw_sim_total": round(rst / trips * 1e6, 1),
                    "server_env": round(env_s / trips * 1e6, 1),
                    "server_bridge": round((handle_s - env_s) / trips * 1e6, 1),
                    # the server's bridge time split: encoding the reply (observations, masks, info)
                    # and the rest (request decoding, checks, dispatch)
                    "server_encode": round(encode_s / trips * 1e6, 1),
                    "server_dispatch": round((handle_s - env_s - encode_s) / trips * 1e6, 1),
                    # the Python client: its CPU per step (socket calls included) and the decoding of
                    # one reply (infos batched as the vector env does)
                    "python_cpu": round(cpu_s / trips * 1e6, 1),
                    # the raw ping-pong's Python CPU per trip (socket calls, no decoding): the client's
                    # own cost is python_cpu minus this
                    "raw_python_cpu": round(raw_cpu_s / trips * 1e6, 1),
                    "python_decode": round(dec, 1),
                },
                # issue 31's yardstick: the Python step time against the raw ZeroMQ round trip with the
                # same payload plus the same envs' in-process step (raw_sim: one ping-pong whose server
                # steps its own copies of the envs), target <= 1.25; and against raw + the envs' step
                # time measured inside the bridge (the two added, not measured as one)
                "python_step_over_raw_sim": round(bt / rst, 3),
                "python_step_over_raw_plus_env": round(bt / (rt + env_s), 3),
                "within_1_25": bool(bt / rst <= 1.25),
                # the bridge against raw ZeroMQ plus the envs' own time: what the bridge itself costs
                "bridge_over_raw_plus_env": round((rt + env_s) / bt, 3),
            })
            r.close()
            rb.close()
            rs.close()
            b.close()
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps({
        "env": a.env,
        "k": a.k,
        "workload": a.workload or "embedded default",
        "frames": "msgpack" if a.msgpack else "binary",
        # the Python client's DEALER (zmtp: ZMTP spoken directly; libzmq: pyzmq); the raw baseline is
        # always pyzmq's DEALER against zeromq.js's ROUTER
        "client_transport": client_transport,
        "results": results,
        # the machine's 1, 5 and 15-minute load averages when the run started and ended
        "load_average": {"start": load_before, "end": [round(x, 2) for x in os.getloadavg()]},
    }))


if __name__ == "__main__":
    main()
