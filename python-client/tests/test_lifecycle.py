"""make() without an address: the local server starts, and never outlives its env or its interpreter."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import clustergym
from clustergym.errors import ServerDiedError, ServerStartError

from conftest import PKG_ROOT, pid_alive, small_config, wait_gone

JOB = "clustergym/Job-v0"


def test_close_stops_the_local_server() -> None:
    env = clustergym.make(JOB, small_config(JOB))
    assert env.server is not None
    pid = env.server.pid
    assert pid_alive(pid)
    env.reset(seed=0)
    env.step(int(env.action_masks().argmax()))
    env.close()
    assert not pid_alive(pid)
    env.close()


def test_failed_make_stops_the_local_server() -> None:
    before = set(clustergym.server._live)
    with pytest.raises(clustergym.ConfigError):
        clustergym.make(JOB, {"k": -1})
    assert set(clustergym.server._live) == before


def test_vector_env_close_stops_the_local_server() -> None:
    venv = clustergym.make_vec(JOB, 2, small_config(JOB))
    pid = venv.server.pid
    venv.reset(seed=0)
    venv.close()
    assert not pid_alive(pid)


def _child(code: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PKG_ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)


def _server_pid_of(child: subprocess.Popen) -> int:
    line = child.stdout.readline()  # type: ignore[union-attr]
    if not line:
        raise AssertionError(f"the child printed nothing; stderr: {child.stderr.read()}")  # type: ignore[union-attr]
    return int(json.loads(line)["pid"])


CHILD_PRELUDE = """
import json, os, signal, sys, threading, time
import clustergym

def make():
    return clustergym.make("clustergym/Job-v0", {"k": 4, "trajectory": {"length": 10}})

def make_in_thread():
    box = []
    t = threading.Thread(target=lambda: box.append(make()))
    t.start()
    t.join()
    return box[0]
"""


def _run_child(make_call: str, then: str) -> int:
    """Runs a child interpreter that makes an env with ``make_call``, prints the server pid, then runs ``then``."""
    code = CHILD_PRELUDE + f"env = {make_call}\nenv.reset(seed=0)\nprint(json.dumps({{'pid': env.server.pid}}), flush=True)\n{then}\n"
    child = _child(code)
    try:
        pid = _server_pid_of(child)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return pid


def test_no_orphan_after_normal_exit_without_close() -> None:
    pid = _run_child("make()", "sys.exit(0)")
    assert wait_gone(pid, 10), f"server {pid} survived its interpreter (atexit)"


def test_no_orphan_after_sigkill() -> None:
    pid = _run_child("make()", "os.kill(os.getpid(), signal.SIGKILL)")
    assert wait_gone(pid, 10), f"server {pid} survived its SIGKILLed interpreter (PR_SET_PDEATHSIG)"


def test_no_orphan_after_sigkill_when_made_in_a_thread() -> None:
    """Made from a thread that has ended: no PDEATHSIG (the kernel ties it to the starting thread),
    so the server's own --parent-pid watch must end it."""
    pid = _run_child("make_in_thread()", "os.kill(os.getpid(), signal.SIGKILL)")
    assert wait_gone(pid, 15), f"server {pid} survived its SIGKILLed parent (the serve command needs --parent-pid)"


def test_server_death_is_reported_not_timed_out() -> None:
    env = clustergym.make(JOB, small_config(JOB), timeout=60)
    try:
        env.reset(seed=0)
        os.kill(env.server.pid, signal.SIGKILL)
        t0 = time.monotonic()
        with pytest.raises(ServerDiedError, match="exit code"):
            env.step(int(env.action_masks().argmax()))
        assert time.monotonic() - t0 < 5
    finally:
        env.close()


def test_start_failure_is_clear() -> None:
    with pytest.raises(ServerStartError, match="exited with code 3"):
        clustergym.make(JOB, server_command=[sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])
    with pytest.raises(ServerStartError, match="boom"):
        clustergym.LocalServer([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])


def test_the_local_server_binds_a_private_unix_socket_by_default_and_tcp_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """``LocalServer()`` binds ``ipc://`` in a fresh 0700 folder that ``stop()`` removes; the env steps
    over it as over TCP; ``CLUSTERGYM_LOCAL_TRANSPORT=tcp`` (or ``bind=``) gives loopback TCP."""
    with clustergym.LocalServer() as s:
        assert s.address.startswith("ipc://") and s.address.endswith("/serve.sock")
        folder = os.path.dirname(s.address[len("ipc://") :])
        assert os.stat(folder).st_mode & 0o777 == 0o700
        with clustergym.make("clustergym/Job-v0", small_config("clustergym/Job-v0"), address=s.address) as env:
            env.reset(seed=1)
            assert env._layout is not None  # noqa: SLF001 -- binary frames over ipc:// too
            assert env.step(int(env.action_masks().argmax()))[4]["steps"] == 1
    assert not os.path.exists(folder)
    # make() without an address: its private server is on ipc:// too
    with clustergym.make("clustergym/Job-v0", small_config("clustergym/Job-v0")) as env:
        assert env.server is not None and env.client.address.startswith("ipc://")
        env.reset(seed=1)
    monkeypatch.setenv("CLUSTERGYM_LOCAL_TRANSPORT", "tcp")
    with clustergym.LocalServer() as s:
        assert s.address.startswith("tcp://127.0.0.1:")

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the abstract socket namespace is Linux's")
@pytest.mark.parametrize("transport", ["zmtp", "libzmq"])
def test_an_abstract_unix_socket_address_works_from_python(transport: str) -> None:
    """``ipc://@NAME`` (Linux's abstract namespace, no file) as the server binds it: the client connects
    over either transport (the direct one used to take the ``@`` as a file name and time out)."""
    name = f"ipc://@clustergym-test-{os.getpid()}-{transport}"
    with clustergym.LocalServer(bind=name) as s:
        assert s.address == name
        with clustergym.Client(s.address, transport=transport, connect_timeout=5) as c:
            assert c.transport == transport
            assert c.ping() < 5
        with clustergym.make("clustergym/Job-v0", small_config("clustergym/Job-v0"), address=s.address) as env:
            env.reset(seed=3)
            assert env.step(int(env.action_masks().argmax()))[4]["steps"] == 1

