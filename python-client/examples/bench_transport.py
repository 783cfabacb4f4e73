#!/usr/bin/env python3
"""The bridge's two transports side by side: ZMTP spoken by the server itself against libzmq.

    python3 examples/bench_transport.py [--sizes 100,20000] [--envs 1,8] [--k N] [--seconds S] [--rounds R] [--ipc]

Starts two ``dist/bench/bridgeEcho.js`` processes: one whose bridge uses ``--transport zmtp`` (the
default), one with ``--transport libzmq``. Each also serves a raw echo on zeromq.js's ROUTER (libzmq,
the issue's "raw ZeroMQ round trip", as in ``bench_wire.py``) and the same raw echo on the bridge's
ZMTP ROUTER (``bridge/zmtp.ts``). Measured, in interleaved slices so that every variant sees the same
machine:

* ``raw``: a pyzmq DEALER sends a message of each ``--sizes`` byte count and receives a reply of the
  same size, from the zeromq.js ROUTER (``raw_libzmq``) and from the ZMTP ROUTER (``raw_zmtp``);
* ``bridge``: the real Python client steps ``clustergym/Job-v0`` (``--k``, first valid action; ``step``
  for one env, ``step_batch`` for several) on the zmtp bridge and on the libzmq bridge, and the two raw
  echoes carry the bytes of that very step (request and reply captured from the bridge).

Prints ONE JSON line: microseconds per round trip of each variant, the ratios, and the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import _common  # noqa: F401
from bench_wire import BridgeLoop, RawLoop, timed

REPO = Path(__file__).resolve().parents[2]


def start(transport: str, ipc_dir: "str | None") -> "Tuple[subprocess.Popen[bytes], str, str, str]":
    script = REPO / "dist" / "bench" / "bridgeEcho.js"
    if not script.is_file():
        sys.exit(f"{script} is missing: run `npm run build` first")
    node = os.environ.get("CLUSTERGYM_NODE", "node")
    args = [node, str(script), "--transport", transport]
    if ipc_dir is not None:
        args += ["--ipc", ipc_dir]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=str(REPO))
    assert p.stdout is not None
    lines = [p.stdout.readline().decode().strip() for _ in range(3)]
    if not all(x.startswith(("tcp://", "ipc://")) for x in lines):
        p.kill()
        sys.exit(f"the benchmark servers ({transport}) did not start")
    return p, lines[0], lines[1], lines[2]


def stop(p: "subprocess.Popen[bytes]") -> None:
    p.terminate()
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()


def interleave(loops: Dict[str, Any], per: int, rounds: int) -> Dict[str, float]:
    """Runs each loop `per` round trips, in turn, `rounds` times; microseconds per round trip of each."""
    total = {k: 0.0 for k in loops}
    for _ in range(rounds):
        for k, loop in loops.items():
            total[k] += timed(loop, per)
    return {k: round(v / (per * rounds) * 1e6, 1) for k, v in total.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="100,20000", help="comma-separated raw message sizes (bytes)")
    p.add_argument("--envs", default="1,8", help="comma-separated env counts for the bridge step")
    p.add_argument("--k", type=int, default=128)
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per variant and case")
    p.add_argument("--rounds", type=int, default=10, help="interleaved slices per variant")
    p.add_argument("--ipc", action="store_true", help="Unix sockets (ipc://, the local server's default) instead of 127.0.0.1 ports")
    a = p.parse_args()
    ipc_dir = tempfile.mkdtemp(prefix="clustergym-bench-") if a.ipc else None
    if ipc_dir:
        for sub in ("z", "l"):
            os.mkdir(os.path.join(ipc_dir, sub))
    load_before = [round(x, 2) for x in os.getloadavg()]
    pz, bridge_zmtp, raw_libzmq, raw_zmtp = start("zmtp", os.path.join(ipc_dir, "z") if ipc_dir else None)
    pl, bridge_libzmq, _, _ = start("libzmq", os.path.join(ipc_dir, "l") if ipc_dir else None)
    raw: List[Dict[str, Any]] = []
    bridge: List[Dict[str, Any]] = []
    try:
        for size in [int(x) for x in a.sizes.split(",")]:
            req, rep = b"q" * size, b"r" * size
            loops = {"raw_libzmq": RawLoop(raw_libzmq, req, rep), "raw_zmtp": RawLoop(raw_zmtp, req, rep)}
            for loop in loops.values():
                loop.run(500)
            t = timed(loops["raw_libzmq"], 500) / 500
            per = max(50, int(a.seconds / a.rounds / t))
            us = interleave(loops, per, a.rounds)
            raw.append({"bytes": size, "us_per_round_trip": us, "zmtp_over_libzmq": round(us["raw_zmtp"] / us["raw_libzmq"], 3), "round_trips": per * a.rounds})
            for loop in loops.values():
                loop.close()
        for n in [int(x) for x in a.envs.split(",")]:
            bz = BridgeLoop(bridge_zmtp, "clustergym/Job-v0", {"k": a.k}, n)
            bl = BridgeLoop(bridge_libzmq, "clustergym/Job-v0", {"k": a.k}, n)
            bz.run(200)
            bl.run(200)
            req, rep = bz.sample()
            loops = {
                "bridge_zmtp": bz,
                "bridge_libzmq": bl,
                "raw_libzmq": RawLoop(raw_libzmq, req, rep),
                "raw_zmtp": RawLoop(raw_zmtp, req, rep),
            }
            t = timed(bz, 200) / 200
            per = max(20, int(a.seconds / a.rounds / t))
            us = interleave(loops, per, a.rounds)
            bridge.append({
                "envs": n,
                "request_bytes": len(req),
                "reply_bytes": len(rep),
                "us_per_round_trip": us,
                "bridge_zmtp_over_libzmq": round(us["bridge_zmtp"] / us["bridge_libzmq"], 3),
                "raw_zmtp_over_libzmq": round(us["raw_zmtp"] / us["raw_libzmq"], 3),
                "round_trips": per * a.rounds,
            })
            for k in ("raw_libzmq", "raw_zmtp"):
                loops[k].close()
            bz.close()
            bl.close()
    finally:
        stop(pz)
        stop(pl)
        if ipc_dir:
            import shutil

            shutil.rmtree(ipc_dir, ignore_errors=True)
    print(json.dumps({
        "endpoints": "ipc" if a.ipc else "tcp 127.0.0.1",
        "client": "pyzmq DEALER (raw); the clustergym Python client (bridge)",
        "raw": raw,
        "bridge_job_v0": bridge,
        "load_average": {"start": load_before, "end": [round(x, 2) for x in os.getloadavg()]},
    }))


if __name__ == "__main__":
    main()
