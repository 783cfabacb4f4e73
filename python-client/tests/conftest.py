"""Fixtures of the Python client tests: ONE real server subprocess (127.0.0.1, free port) shared by
the session, small deterministic configurations, and process helpers."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

PKG_ROOT = Path(__file__).resolve().parents[1]
REPO = PKG_ROOT.parent
if str(PKG_ROOT) not in sys.path:
    sys.path.insert(0, str(PKG_ROOT))

import clustergym  # noqa: E402

ENV_IDS = ["clustergym/JobNode-v0", "clustergym/Job-v0", "clustergym/PolicyPair-v0"]

#: Small episodes of the embedded default workload (hetero-20 platform).
SMALL: Dict[str, Any] = {"trajectory": {"length": 30, "origin": 0}}


def small_config(env_id: str, **extra: Any) -> Dict[str, Any]:
    """A small config for ``env_id`` (K = 8 for the job-picking envs)."""
    c: Dict[str, Any] = {"trajectory": dict(SMALL["trajectory"])}
    if env_id != "clustergym/PolicyPair-v0":
        c["k"] = 8
    c.update(extra)
    return c


@pytest.fixture(scope="session")
def server() -> Iterator[clustergym.LocalServer]:
    """One local server for the session; configs may name files of the repository and of ../shared."""
    # TCP for the session server (the transport of a remote server); the local default, ipc://, is
    # tested in test_lifecycle.py
    with clustergym.LocalServer(bind="tcp://127.0.0.1:0", data_roots=[str(REPO), str(REPO.parent / "shared")]) as s:
        assert s.address.startswith("tcp://127.0.0.1:")
        yield s


@pytest.fixture(scope="session")
def address(server: clustergym.LocalServer) -> str:
    return server.address


@pytest.fixture
def client(address: str) -> Iterator[clustergym.Client]:
    with clustergym.Client(address, timeout=30) as c:
        yield c


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc").is_dir():
        try:
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return False
        return state not in ("Z", "X", "x")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """Waits until ``pid`` is gone; returns whether it is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)
