"""clustergym on a Dask cluster (DESIGN §17): one clustergym server per Dask worker for env fleets,
and the leaderboard's episodes swept over the workers.

* :func:`start_servers` registers a worker plugin (:class:`ServerPlugin`) that starts ``clustergym
  serve`` on each worker, bound to the worker's own host (a free port), protected by a token that
  only this client knows, and returns their addresses for :func:`clustergym.make_vec`
  (``addresses=...``). The plugin's teardown stops the server when its worker closes (with the
  cluster, or :func:`stop_servers`), and the server exits by itself when its worker process is gone
  (``--parent-pid``): no server outlives its worker.
* :func:`leaderboard` maps ``clustergym leaderboard --shard I/N`` over the workers (shard ``I`` on
  worker ``I mod W``) and merges the pieces with ``clustergym leaderboard --merge`` on this machine:
  the same JSON as one machine's run, number for number (agents/leaderboard/shard.ts).

Needs ``distributed`` (Debian: ``python3-distributed``), the ``clustergym`` package importable on the
workers (``PYTHONPATH``) and the server there (``CLUSTERGYM_SERVER``, a built repository, or
``clustergym`` on ``PATH``: see :mod:`clustergym.server`).

::

    from dask.distributed import Client
    import clustergym
    from clustergym.dask import start_servers

    client = Client(scheduler_file="scheduler.json")
    addresses = start_servers(client)
    venv = clustergym.make_vec("clustergym/Job-v0", 16, addresses=addresses, seeds=0)
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from .server import LocalServer, find_server_command, remember_token

__all__ = ["ServerPlugin", "start_servers", "stop_servers", "server_pids", "leaderboard", "PLUGIN_NAME"]

#: The name the server plugin is registered under.
PLUGIN_NAME = "clustergym-server"

try:  # the plugin is a WorkerPlugin when distributed is importable
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - only without distributed
    _WorkerPlugin = object  # type: ignore[assignment, misc]


def _host_of(address: str) -> str:
    """The host of a Dask address (``tcp://10.0.0.5:34567``, ``tcp://[::1]:1``)."""
    rest = address.split("://", 1)[-1]
    host = rest.rsplit(":", 1)[0]
    return host[1:-1] if host.startswith("[") else host


def _loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


class ServerPlugin(_WorkerPlugin):  # type: ignore[misc, valid-type]
    """A Dask worker plugin: ``clustergym serve`` on the worker's host while the worker runs.

    Args:
        token: the shared secret every request must carry (written to a 0600 file on the worker).
        host: the address to bind (default: the worker's own host, as the scheduler knows it).
        data_roots: the folders whose files configs may name (default: the worker's working
            directory).
        extra_args: more ``clustergym serve`` flags.
    """

    name = PLUGIN_NAME

    def __init__(self, token: str, host: Optional[str] = None, data_roots: Optional[Sequence[str]] = None, extra_args: Sequence[str] = ()) -> None:
        self.token = token
        self.host = host
        self.data_roots = list(data_roots) if data_roots is not None else None
        self.extra_args = list(extra_args)
        self.server: Optional[LocalServer] = None

    def setup(self, worker: Any) -> None:
        host = self.host or _host_of(worker.address)
        # the token keeps others out (docs/protocol.md, "Across hosts"), so the address may be the node's
        args = [*self.extra_args] + ([] if _loopback(host) else ["--allow-remote"])
        bind = f"tcp://[{host}]:0" if ":" in host else f"tcp://{host}:0"
        roots = self.data_roots if self.data_roots is not None else [os.getcwd()]
        self.server = LocalServer(bind=bind, extra_args=args, data_roots=roots, private=True, token=self.token)

    def teardown(self, worker: Any) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def _plugin_info(dask_worker: Any) -> Optional[Dict[str, Any]]:
    p = dask_worker.plugins.get(PLUGIN_NAME)
    s = getattr(p, "server", None)
    if s is None:
        return None
    return {"address": s.address, "pid": s.pid, "worker_pid": os.getpid()}


def start_servers(client: Any, *, host: Optional[str] = None, data_roots: Optional[Sequence[str]] = None, extra_args: Sequence[str] = ()) -> List[str]:
    """Starts one clustergym server per Dask worker of ``client`` (also on workers that join later)
    and returns the servers' addresses, one per worker in the order of the workers' addresses. The
    servers' token is remembered in this process, so ``make_vec(..., addresses=...)`` sends it.

    Args:
        host: the address the servers bind (default: each worker's own host).
        data_roots: the folders whose files configs may name, on the workers.
        extra_args: more ``clustergym serve`` flags (``["--max-envs", "8192"]``).
    """
    token = secrets.token_hex(24)
    client.register_worker_plugin(ServerPlugin(token, host=host, data_roots=data_roots, extra_args=extra_args), name=PLUGIN_NAME)
    info = client.run(_plugin_info)
    missing = sorted(w for w, i in info.items() if i is None)
    if missing:
        raise RuntimeError(f"the clustergym server did not start on the Dask workers {', '.join(missing)} (see their logs)")
    addresses = [info[w]["address"] for w in sorted(info)]
    for a in addresses:
        remember_token(a, token)
    return addresses


def server_pids(client: Any) -> Dict[str, Dict[str, Any]]:
    """Per worker address: its server's ``address``, ``pid`` and the worker's ``worker_pid`` (None for a
    worker without a server)."""
    return dict(client.run(_plugin_info))


def stop_servers(client: Any) -> None:
    """Stops the servers of :func:`start_servers` (the plugin's teardown on every worker)."""
    for i in server_pids(client).values():
        if i is not None:
            remember_token(i["address"], None)
    client.unregister_worker_plugin(PLUGIN_NAME)


def _leaderboard_shard(index: int, count: int, args: Sequence[str]) -> str:
    """Runs ``clustergym leaderboard --shard index/count --json ARGS`` here; its piece (JSON text)."""
    with tempfile.TemporaryDirectory(prefix="clustergym-shard-") as out:
        cmd = [*find_server_command(), "leaderboard", *args, "--shard", f"{index}/{count}", "--json", "--out", out]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited with {r.returncode}: {r.stderr.strip()[-2000:]}")
        return r.stdout


def leaderboard(client: Any, args: Sequence[str] = (), *, shards: Optional[int] = None, out: Optional[str] = None) -> Dict[str, Any]:
    """The leaderboard (``clustergym leaderboard ARGS --json``) computed in ``shards`` pieces on the
    Dask workers (default: one per worker) and merged here: the document one machine's run gives,
    wall times aside. ``args`` are the run's flags (``["--settings", "rlsched", "--episodes",
    "20"]``); ``out`` keeps the merged leaderboard's files (leaderboard.json, .md, SVGs) there."""
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    n = shards or len(workers)
    futures = [client.submit(_leaderboard_shard, i, n, list(args), workers=[workers[i % len(workers)]], pure=False) for i in range(n)]
    pieces = client.gather(futures)
    with tempfile.TemporaryDirectory(prefix="clustergym-merge-") as tmp:
        files = []
        for i, text in enumerate(pieces):
            f = os.path.join(tmp, f"shard-{i}-of-{n}.json")
            with open(f, "w") as fh:
                fh.write(text)
            files.append(f)
        cmd = [*find_server_command(), "leaderboard", "--merge", *files, "--json", "--out", out or os.path.join(tmp, "merged")]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"clustergym leaderboard --merge exited with {r.returncode}: {r.stderr.strip()[-2000:]}")
        return json.loads(r.stdout)  # type: ignore[no-any-return]
