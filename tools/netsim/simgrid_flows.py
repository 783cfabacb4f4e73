#!/usr/bin/env python3
"""Runs a set of flows in SimGrid (Debian's python3-simgrid, SimGrid 3.32) and prints their completion times.

    simgrid_flows.py PLATFORM.xml FLOWS.json {cm02|lv08} > RESULT.json

FLOWS.json is clustergym netsim's input: [{"id", "src", "dst", "size", "start"}] (host names, bytes, seconds).
Each flow is one actor that sleeps until its start, then sends `size` bytes from `src` to `dst` with
Comm.sendto (host to host, no mailbox) and records the clock when the transfer completes. The output is
netsim's: {"flows": [{"id", "src", "dst", "size", "start", "finish"}], "seconds": wall time of the simulation}.
The model is SimGrid's network/model (CM02 or LV08) with its defaults (crosstraffic on, TCP-gamma 4194304).
"""
import json
import sys
import time

from simgrid import Actor, Comm, Engine, this_actor


def main() -> None:
    platform, flows_file, model = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(flows_file, encoding="utf8") as f:
        flows = json.load(f)
    t0 = time.perf_counter()
    e = Engine(["simgrid_flows", "--log=root.thresh:critical", f"--cfg=network/model:{ {'cm02': 'CM02', 'lv08': 'LV08'}[model] }"])
    e.load_platform(platform)
    finish = [0.0] * len(flows)

    def flow(i: int) -> None:
        fl = flows[i]
        if fl["start"] > 0:
            this_actor.sleep_until(fl["start"])
        Comm.sendto(e.host_by_name(fl["src"]), e.host_by_name(fl["dst"]), int(fl["size"]))
        finish[i] = e.clock

    host = e.all_hosts[0]
    for i in range(len(flows)):
        Actor.create(f"flow{i}", host, flow, i)
    e.run()
    out = [{**fl, "finish": finish[i]} for i, fl in enumerate(flows)]
    json.dump({"flows": out, "seconds": time.perf_counter() - t0}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
