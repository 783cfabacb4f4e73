#!/usr/bin/env python3
"""Prints the route SimGrid 3.32 computes between every pair of hosts of a platform (link names, latency).

    simgrid_routes.py PLATFORM.xml > ROUTES.json

Output: {"hosts": [names], "routes": [[src, dst, [link names], latency], ...]} for every ordered pair
(src == dst included), in the order of the platform's hosts.
"""
import json
import sys

from simgrid import Actor, Engine


def main() -> None:
    e = Engine(["simgrid_routes", "--log=root.thresh:critical"])
    e.load_platform(sys.argv[1])
    hosts = sorted(e.all_hosts, key=lambda h: h.name)
    routes = []

    def dump() -> None:
        # inside the simulation: the platform is sealed (Full zones have added their loopback routes)
        for a in hosts:
            for b in hosts:
                links, latency = a.route_to(b)
                routes.append([a.name, b.name, [l.name for l in links], latency])

    Actor.create("dump", hosts[0], dump)
    e.run()
    json.dump({"hosts": [h.name for h in hosts], "routes": routes}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
