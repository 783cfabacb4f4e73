#!/usr/bin/env python3
"""Runs a set of flows in SimGrid (Debian's python3-simgrid, SimGrid 3.32) and prints their completion times.

    simgrid_flows.py PLATFORM.xml FLOWS.json {cm02|lv08} [actors|driver] > RESULT.json

FLOWS.json is clustergym netsim's input: [{"id", "src", "dst", "size", "start"}] (host names, bytes, seconds).
Two ways to drive SimGrid, with the same completion times up to rounding (test/tools/netsim.test.ts):

- `actors` (the default, SimGrid's usual style): each flow is one actor that sleeps until its start, then
  sends `size` bytes from `src` to `dst` with Comm.sendto (host to host, no mailbox) and records the clock
  when the transfer completes. The Python bindings run every actor in its own thread (contexts/factory
  thread), so 10,000 flows are 10,000 threads and most of the time is the kernel switching them.
- `driver`: one actor walks the flows in start order, sleeps until each start and launches the transfer
  with Comm.sendto_async, then waits for all of them; a flow's completion time is its Comm's finish_time.
  The fastest way we found to run many transfers through the Python bindings.

The output is netsim's: {"flows": [{"id", "src", "dst", "size", "start", "finish"}], "seconds": wall time of
the simulation}. The model is SimGrid's network/model (CM02 or LV08) with its defaults (crosstraffic on,
TCP-gamma 4194304).
"""
import json
import sys
import time

from simgrid import Actor, Comm, Engine, this_actor


def main() -> None:
    platform, flows_file, model = sys.argv[1], sys.argv[2], sys.argv[3]
    driver = sys.argv[4] if len(sys.argv) > 4 else "actors"
    if driver not in ("actors", "driver"):
        sys.exit(f"simgrid_flows.py: the 4th argument must be actors or driver, not {driver!r}")
    with open(flows_file, encoding="utf8") as f:
        flows = json.load(f)
    t0 = time.perf_counter()
    e = Engine(["simgrid_flows", "--log=root.thresh:critical", f"--cfg=network/model:{ {'cm02': 'CM02', 'lv08': 'LV08'}[model] }"])
    e.load_platform(platform)
    finish = [0.0] * len(flows)
    host = e.all_hosts[0]

    if driver == "actors":

        def flow(i: int) -> None:
            fl = flows[i]
            if fl["start"] > 0:
                this_actor.sleep_until(fl["start"])
            Comm.sendto(e.host_by_name(fl["src"]), e.host_by_name(fl["dst"]), int(fl["size"]))
            finish[i] = e.clock

        for i in range(len(flows)):
            Actor.create(f"flow{i}", host, flow, i)
        e.run()
    else:
        comms = [None] * len(flows)

        def drive() -> None:
            # by start, ties in input order (sorted is stable)
            for i in sorted(range(len(flows)), key=lambda i: flows[i]["start"]):
                fl = flows[i]
                if fl["start"] > e.clock:
                    this_actor.sleep_until(fl["start"])
                comms[i] = Comm.sendto_async(e.host_by_name(fl["src"]), e.host_by_name(fl["dst"]), int(fl["size"]))
            Comm.wait_all(comms)

        Actor.create("driver", host, drive)
        e.run()
        finish = [c.finish_time for c in comms]
    out = [{**fl, "finish": finish[i]} for i, fl in enumerate(flows)]
    json.dump({"flows": out, "seconds": time.perf_counter() - t0}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
