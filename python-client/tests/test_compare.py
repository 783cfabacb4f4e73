"""A full episode with a Python FCFS agent gives exactly the metrics the TypeScript CLI reports for
the same trajectory: `clustergym compare --json` (and `clustergym simulate --json` on that
trajectory written out)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import clustergym

from conftest import PKG_ROOT, REPO

sys.path.insert(0, str(PKG_ROOT / "examples"))
from fcfs_agent import run_episode  # noqa: E402

MAIN_JS = REPO / "dist" / "cli" / "main.js"
PLATFORM = REPO / "data" / "platforms" / "hetero-20.json"
WORKLOAD = REPO / "data" / "workloads" / "mixed-300.json"
ORIGIN, LENGTH = 40, 120


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["node", str(MAIN_JS), *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def trajectory_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Jobs ORIGIN .. ORIGIN+LENGTH of the default workload, submit times rebased to the first, as
    the env's trajectories are (same float operation, so the same doubles)."""
    wl = json.loads(WORKLOAD.read_text())
    jobs: List[Dict[str, Any]] = wl["jobs"][ORIGIN : ORIGIN + LENGTH]
    t0 = jobs[0]["subtime"]
    for j in jobs:
        j["subtime"] = j["subtime"] - t0
    wl["jobs"] = jobs
    p = tmp_path_factory.mktemp("trajectory") / "trajectory.json"
    p.write_text(json.dumps(wl))
    return p


@pytest.fixture(scope="module")
def python_fcfs(address: str) -> Dict[str, Any]:
    """Metrics of one Job-v0 episode (the default workload, trajectory ORIGIN/LENGTH) driven by the
    Python strict-FCFS agent."""
    config = {"k": 16, "trajectory": {"length": LENGTH, "origin": ORIGIN}}
    with clustergym.make("clustergym/Job-v0", config, address=address) as env:
        r = run_episode(env, seed=0)
    assert r["terminated"]
    return r["info"]["metrics"]


def test_python_fcfs_equals_simulate(python_fcfs: Dict[str, Any], trajectory_file: Path) -> None:
    p = _cli("simulate", "--platform", str(PLATFORM), "--workload", str(trajectory_file), "--json")
    assert p.returncode == 0, p.stderr
    ts = json.loads(p.stdout)
    assert python_fcfs["jobs_finished"] == LENGTH
    assert set(ts) <= set(python_fcfs)
    for k, v in ts.items():
        assert python_fcfs[k] == v, f"{k}: Python FCFS {python_fcfs[k]!r} != simulate {v!r}"


def test_python_fcfs_equals_compare(python_fcfs: Dict[str, Any]) -> None:
    """`compare` cuts the same trajectory itself (--origin/--length) and runs its FCFS list scheduler."""
    p = _cli("compare", "--platform", str(PLATFORM), "--workload", str(WORKLOAD), "--policies", "fcfs", "--origin", str(ORIGIN), "--length", str(LENGTH), "--json")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    (row,) = [r for r in report["policies"] if r["name"].split(":")[0] == "fcfs"]
    (traj,) = row["per_trajectory"]
    assert traj["trajectory"] == str(ORIGIN) and traj["jobs"] == LENGTH
    compared = 0
    for k, v in traj.items():
        if k in python_fcfs:
            assert python_fcfs[k] == v, f"{k}: Python FCFS {python_fcfs[k]!r} != compare {v!r}"
            compared += 1
    assert compared >= 8, traj  # jobs_finished, killed, rejected, bsld, max bsld, wait, utilisation, makespan, energy
    for k in ("mean_bsld", "mean_wait", "utilisation", "makespan", "energy"):
        assert python_fcfs[k] == row[k]
