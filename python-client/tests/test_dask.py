"""clustergym.dask on a real Dask cluster on loopback (a `dask-scheduler` and two `dask-worker`
processes): one server per worker, a vector env over them giving one server's episodes, the
leaderboard swept over the workers merged into one machine's JSON, and no server outliving its
worker."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import numpy as np
import pytest

import clustergym
from clustergym.errors import UnauthorizedError
from conftest import PKG_ROOT, REPO, pid_alive, small_config, wait_gone

try:
    import distributed  # noqa: F401
except ImportError:  # pragma: no cover - CI installs python3-distributed
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise
    pytest.skip("distributed is not installed (Debian: apt-get install python3-distributed)", allow_module_level=True)

from distributed import Client  # noqa: E402

from clustergym import dask as cgdask  # noqa: E402

JOB = "clustergym/Job-v0"
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def _spawn(args: List[str], log: Path, env: Dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, "-m", *args], stdin=subprocess.DEVNULL, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Dict[str, Any]]:
    """A scheduler and two single-threaded workers on 127.0.0.1, each a process of its own."""
    tmp = Path(tempfile.mkdtemp(prefix="cg-dask-"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PKG_ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    env["CLUSTERGYM_SERVER"] = str(REPO / "dist" / "cli" / "main.js")
    sched_file = tmp / "scheduler.json"
    procs = [_spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)], tmp / "scheduler.log", env)]
    deadline = time.monotonic() + 60
    while not sched_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sched_file.exists(), (tmp / "scheduler.log").read_text()
    for k in range(2):
        procs.append(
            _spawn(
                ["distributed.cli.dask_worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard", "--no-nanny", "--name", f"w{k}", "--local-directory", str(tmp / f"w{k}")],
                tmp / f"worker{k}.log",
                env,
            )
        )
    client = Client(scheduler_file=str(sched_file), timeout=60)
    client.wait_for_workers(2, timeout=60)
    try:
        yield {"client": client, "procs": procs, "tmp": tmp}
    finally:
        client.close()
        for p in procs[::-1]:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def test_one_server_per_worker_whose_envs_give_one_servers_episodes(cluster: Dict[str, Any]) -> None:
    client = cluster["client"]
    addresses = cgdask.start_servers(client, data_roots=[str(REPO)])
    info = cgdask.server_pids(client)
    assert len(addresses) == 2 and len(set(addresses)) == 2
    assert sorted(i["address"] for i in info.values()) == sorted(addresses)
    worker_pids = {p.pid for p in cluster["procs"][1:]}
    assert {i["worker_pid"] for i in info.values()} == worker_pids  # one per worker process
    for i in info.values():
        assert pid_alive(i["pid"])
    # the token: only this client knows it
    with pytest.raises(UnauthorizedError, match="token"):
        clustergym.Client(addresses[0], token="x" * 20)
    cfg = small_config(JOB, trajectory={"length": 15, "origin": 0})
    rng = np.random.default_rng(0)
    first: List[Any] = []
    for where in ({"addresses": addresses}, {}):
        with clustergym.make_vec(JOB, 4, cfg, seeds=11, autoreset_mode="SameStep", **where) as venv:
            obs, _ = venv.reset()
            seen = [obs["jobs"].copy()]
            rng = np.random.default_rng(0)
            for _ in range(40):
                m = venv.action_masks()
                s = rng.random(m.shape)
                s[~m] = -1
                obs, r, te, tr, info_ = venv.step(s.argmax(axis=1))
                seen.append((obs["jobs"].copy(), r.copy(), te | tr))
            first.append(seen)
    for a, b in zip(*first):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b)
        else:
            assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert sum(int(x[2].sum()) for x in first[0][1:]) >= 4  # episodes ended and restarted
    cgdask.stop_servers(client)
    for i in info.values():
        assert wait_gone(i["pid"]), "a server outlived its plugin"
    assert all(i is None for i in cgdask.server_pids(client).values())


def test_the_leaderboard_swept_over_the_workers_is_one_machines(cluster: Dict[str, Any]) -> None:
    client = cluster["client"]
    args = ["--settings", "rlsched,malleable", "--episodes", "5", "--seed", "5"]
    swept = cgdask.leaderboard(client, args, shards=3)
    r = subprocess.run(["node", str(REPO / "dist" / "cli" / "main.js"), "leaderboard", *args, "--json", "--out", str(cluster["tmp"] / "one")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    one = json.loads(r.stdout)

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "seconds"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    assert json.dumps(strip(swept)) == json.dumps(strip(one))
    # rlsched's two shipped learned rows (es-linear and the neural imitation model) are in both
    assert [p["kind"] for p in one["settings"][0]["policies"]].count("learned") == 2


def test_dask_fleet_runs_a_learner_on_the_workers_servers(cluster: Dict[str, Any]) -> None:
    """examples/dask_fleet.py: the learner gets the servers' addresses and token, its exit code is
    the script's, and the servers are stopped after it."""
    learner = (
        "import os, sys, clustergym\n"
        "a = os.environ['CLUSTERGYM_ADDRESSES'].split(',')\n"
        "v = clustergym.make_vec('clustergym/Job-v0', 2, {'k': 8, 'trajectory': {'length': 10}}, addresses=a, seeds=0)\n"
        "v.reset(); v.step(v.action_masks().argmax(axis=1)); print(len(v.fleet.parts)); v.close(); sys.exit(7)\n"
    )
    sched = cluster["tmp"] / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": str(PKG_ROOT)}
    r = subprocess.run([PYTHON, str(PKG_ROOT / "examples" / "dask_fleet.py"), "--scheduler-file", str(sched), "--", PYTHON, "-c", learner], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 7, r.stderr
    assert r.stdout.strip() == "2"
    assert "dask_fleet: 2 servers: tcp://127.0.0.1:" in r.stderr
    assert all(i is None for i in cgdask.server_pids(cluster["client"]).values())


def test_a_worker_killed_takes_its_server_with_it(cluster: Dict[str, Any]) -> None:
    """SIGKILL of a worker (no teardown runs): its server exits too (the kernel's parent-death
    signal, and --parent-pid), leaving no process behind. Runs last: it kills a worker."""
    client = cluster["client"]
    cgdask.start_servers(client)
    info = cgdask.server_pids(client)
    victim = next(i for i in info.values() if i is not None)
    os.kill(victim["worker_pid"], signal.SIGKILL)
    assert wait_gone(victim["pid"], timeout=10), "the server outlived its killed worker"
