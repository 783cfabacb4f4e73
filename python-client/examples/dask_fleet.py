#!/usr/bin/env python3
"""An env fleet on a Dask cluster: one clustergym server per Dask worker
(``clustergym.dask.start_servers``), then a learner command run here with the servers' addresses in
``CLUSTERGYM_ADDRESSES`` and their token in ``CLUSTERGYM_TOKEN`` (the Dask twin of
deploy/slurm/fleet.sbatch); the servers are stopped when the learner exits.

    dask-scheduler --scheduler-file sched.json &   # and dask-worker --scheduler-file sched.json on each node
    python3 examples/dask_fleet.py --scheduler-file sched.json -- python3 examples/ppo_torch.py --num-envs 16
    python3 examples/dask_fleet.py --scheduler-file sched.json -- python3 examples/sb3_maskable_ppo.py --envs 8

The workers need the ``clustergym`` package (``PYTHONPATH``) and the server (``CLUSTERGYM_SERVER``,
a built repository, or ``clustergym`` on ``PATH``). Exits with the learner's exit code.
"""
import argparse
import os
import subprocess
import sys

import _common  # noqa: F401
from clustergym import dask as cgdask
from clustergym.server import token_for


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scheduler-file", required=True, help="the Dask scheduler's file (dask-scheduler --scheduler-file)")
    p.add_argument("--data-root", action="append", help="a folder the servers' configs may name files in (repeatable)")
    p.add_argument("learner", nargs=argparse.REMAINDER, help="the learner command (after --)")
    a = p.parse_args()
    learner = a.learner[1:] if a.learner[:1] == ["--"] else a.learner
    if not learner:
        p.error("give the learner command after --")
    from distributed import Client

    with Client(scheduler_file=a.scheduler_file) as client:
        addresses = cgdask.start_servers(client, data_roots=a.data_root)
        print(f"dask_fleet: {len(addresses)} servers: {','.join(addresses)}", file=sys.stderr, flush=True)
        env = {**os.environ, "CLUSTERGYM_ADDRESSES": ",".join(addresses), "CLUSTERGYM_TOKEN": token_for(addresses[0]) or ""}
        try:
            code = subprocess.call(learner, env=env)
        finally:
            cgdask.stop_servers(client)
    sys.exit(code)


if __name__ == "__main__":
    main()
