"""Issue 18's robustness defects, each over a real server (`clustergym serve` subprocess) with the
real client: limits, whole-batch validation, file access, timeouts, seeds, masks, ping."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

import clustergym
from clustergym.errors import BadRequestError, ClusterGymTimeoutError, ForbiddenError, LimitExceededError, ServerError, UnauthorizedError

from conftest import REPO, small_config

JOB = "clustergym/Job-v0"
JOBNODE = "clustergym/JobNode-v0"


@pytest.fixture(scope="module")
def limited() -> Iterator[clustergym.LocalServer]:
    """A server with small limits, its data root the repository."""
    with clustergym.LocalServer(data_roots=[str(REPO)], extra_args=["--max-envs", "6", "--max-envs-per-client", "4", "--max-jobs", "500", "--max-request-bytes", "200000", "--quiet"]) as s:
        yield s


def test_generator_over_max_jobs_is_refused_at_once(limited: clustergym.LocalServer) -> None:
    t0 = time.monotonic()
    with pytest.raises(LimitExceededError) as ei:
        clustergym.make(JOB, {"generator": {"model": "poisson", "jobs": 10**9}}, address=limited.address)
    assert time.monotonic() - t0 < 5
    assert ei.value.details["flag"] == "--max-jobs" and ei.value.details["max"] == 500
    assert "--max-jobs" in ei.value.message
    with clustergym.Client(limited.address) as c:
        c.ping()  # still serving


def test_envs_per_client_and_per_server_are_capped(limited: clustergym.LocalServer) -> None:
    a = clustergym.Client(limited.address)
    b = clustergym.Client(limited.address)
    envs = [clustergym.make(JOB, small_config(JOB), client=a) for _ in range(4)]
    with pytest.raises(LimitExceededError) as ei:
        clustergym.make(JOB, small_config(JOB), client=a)
    assert ei.value.details["flag"] == "--max-envs-per-client"
    more = [clustergym.make(JOB, small_config(JOB), client=b) for _ in range(2)]
    with pytest.raises(LimitExceededError) as ei:
        clustergym.make(JOB, small_config(JOB), client=b)
    assert ei.value.details["flag"] == "--max-envs"
    for e in envs + more:
        e.close()
    e = clustergym.make(JOB, small_config(JOB), client=a)  # closing gave the room back
    e.close()
    a.close()
    b.close()


def test_request_size_is_capped(limited: clustergym.LocalServer) -> None:
    """Over --max-request-bytes: a limit_exceeded reply naming the flag. Over the hard cap (the limit
    plus at least 1 MiB) the server drops the connection unread and no reply comes: the direct
    transport sees the connection closed at once, pyzmq's DEALER (which reconnects in the
    background) times out; the server goes on."""
    with clustergym.Client(limited.address) as c:
        with pytest.raises(LimitExceededError) as ei:
            c.request("make", env_id=JOB, config={"name": "x" * 300_000})
        assert ei.value.details["flag"] == "--max-request-bytes"
    for transport, error in (("zmtp", ServerError), ("libzmq", ClusterGymTimeoutError)):
        with clustergym.Client(limited.address, timeout=1.5, transport=transport) as c:
            with pytest.raises(error):
                c.request("make", env_id=JOB, config={"name": "x" * 1_400_000})
    with clustergym.Client(limited.address) as c:
        assert c.request("ping")["pong"] is True
        assert c.server_info["capabilities"]["limits"]["max_request_bytes"] == 200000


def test_batch_of_envs_with_different_spaces_moves_no_env(address: str) -> None:
    with clustergym.Client(address) as c:
        a = clustergym.make(JOB, small_config(JOB), client=c)
        b = clustergym.make(JOB, small_config(JOB, k=16), client=c)
        a.reset(seed=1)
        b.reset(seed=1)
        before = a.client.request("action_mask", env=a.handle)["mask"].copy()
        with pytest.raises(BadRequestError) as ei:
            c.request("step_batch", envs=[a.handle, b.handle], actions=[int(np.argmax(before)), 0])
        assert "same spaces" in ei.value.message
        with pytest.raises(BadRequestError):
            c.request("reset_batch", envs=[a.handle, b.handle], seeds=[5, 5])
        # nothing moved: a steps from where it was
        _, _, _, _, info = a.step(int(np.argmax(before)))
        assert info["steps"] == 1
        a.close()
        b.close()


@pytest.mark.parametrize("path", ["/etc/passwd", "/dev/zero", "/proc/self/environ"])
def test_files_outside_the_roots_are_refused_without_content(limited: clustergym.LocalServer, path: str) -> None:
    address = limited.address
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    t0 = time.monotonic()
    for field in ("platform", "workload"):
        with pytest.raises(ForbiddenError) as ei:
            clustergym.make(JOB, {field: path}, address=address)
        assert path in ei.value.message and "root" in ei.value.message
        if path == "/etc/passwd":
            first = Path(path).read_text().splitlines()[0]
            assert first not in ei.value.message
    assert time.monotonic() - t0 < 5


def test_fifo_inside_the_root_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "w.swf"
    os.mkfifo(fifo)
    with clustergym.LocalServer(extra_args=["--data-root", str(tmp_path), "--quiet"], private=True) as s:
        with pytest.raises(ForbiddenError) as ei:
            clustergym.make(JOB, {"workload": str(fifo)}, address=s.address)
        assert "not a regular file" in ei.value.message
        # a regular file under the root is read
        good = tmp_path / "w.swf.json"
        good.write_text((REPO / "data" / "workloads" / "mixed-300.json").read_text())
        with clustergym.make(JOB, {"workload": str(good), "k": 8}, address=s.address) as env:
            env.reset(seed=0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_server_fails_fast_naming_the_address() -> None:
    addr = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    with pytest.raises(ClusterGymTimeoutError) as ei:
        clustergym.make(JOB, address=addr)
    assert time.monotonic() - t0 < 8
    assert addr in ei.value.message
    t0 = time.monotonic()
    with pytest.raises(ClusterGymTimeoutError):
        clustergym.Client(addr, connect_timeout=0.5)
    assert time.monotonic() - t0 < 2


def test_ping(client: clustergym.Client) -> None:
    assert 0 <= client.ping() < 5
    assert "ping" in client.hello()["capabilities"]["ops"]


def test_seeds_up_to_2_64(address: str) -> None:
    with clustergym.make(JOB, small_config(JOB, trajectory={"length": 30, "origin": "random"}), address=address) as env:
        big = 2**60 + 12345
        o1, _ = env.reset(seed=big)
        o2, _ = env.reset(seed=big)
        np.testing.assert_array_equal(o1["jobs"], o2["jobs"])
        env.reset(seed=2**64 - 1)
        with pytest.raises(ValueError):
            env.reset(seed=2**64)


def test_negative_seed_is_refused_before_the_server_moves(address: str) -> None:
    with clustergym.make(JOB, small_config(JOB), address=address) as env:
        env.reset(seed=3)
        env.step(int(np.argmax(env.action_masks())))
        with pytest.raises(ValueError):
            env.reset(seed=-1)
        _, _, _, _, info = env.step(int(np.argmax(env.action_masks())))
        assert info["steps"] == 2  # the episode went on: the bad reset did not reach the server
        with pytest.raises(BadRequestError) as ei:
            env.client.request("reset", env=env.handle, seed=-1)
        assert "non-negative" in ei.value.message
        _, _, _, _, info = env.step(int(np.argmax(env.action_masks())))
        assert info["steps"] == 3


def test_unseeded_first_reset_draws_entropy(address: str) -> None:
    cfg = small_config(JOB, trajectory={"length": 30, "origin": "random"})
    # seeded resets are reproducible; unseeded first resets are not all the same episode
    with clustergym.make(JOB, cfg, address=address) as a, clustergym.make(JOB, cfg, address=address) as b:
        oa, _ = a.reset(seed=7)
        ob, _ = b.reset(seed=7)
        np.testing.assert_array_equal(oa["jobs"], ob["jobs"])
    seen = set()
    for _ in range(6):
        with clustergym.make(JOB, cfg, address=address) as env:
            obs, _ = env.reset()
            seen.add(obs["jobs"].tobytes())
    assert len(seen) > 1


def test_action_masks_is_bool(address: str) -> None:
    with clustergym.make(JOB, small_config(JOB), address=address) as env:
        env.reset(seed=0)
        m = env.action_masks()
        assert m.dtype == np.bool_ and m.shape == (env.action_space.n,)
    with clustergym.make_vec(JOB, 2, small_config(JOB), address=address) as venv:
        venv.reset(seed=0)
        assert venv.action_masks().dtype == np.bool_


def test_non_loopback_bind_and_bad_port_exit_2() -> None:
    cmd = clustergym.server.find_server_command()
    for bind, needle in [("tcp://0.0.0.0:0", "--allow-remote"), ("tcp://*:0", "--allow-remote"), ("tcp://127.0.0.1:99999", "out of range")]:
        r = subprocess.run([*cmd, "serve", "--bind", bind], capture_output=True, text=True, timeout=30)
        assert r.returncode == 2, (bind, r.stderr)
        assert needle in r.stderr


def test_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cret-token-0123456789"
    f = tmp_path / "token"
    f.write_text(secret + "\n")
    monkeypatch.delenv("CLUSTERGYM_TOKEN", raising=False)
    with clustergym.LocalServer(extra_args=["--token-file", str(f), "--quiet"]) as s:
        with pytest.raises(UnauthorizedError):
            clustergym.Client(s.address)
        with pytest.raises(UnauthorizedError):
            clustergym.Client(s.address, token="wrong-token-0123456789")
        with clustergym.make(JOB, small_config(JOB), address=s.address, client=clustergym.Client(s.address, token=secret)) as env:
            env.reset(seed=0)
        monkeypatch.setenv("CLUSTERGYM_TOKEN", secret)
        with clustergym.make(JOB, small_config(JOB), address=s.address) as env:
            env.reset(seed=0)
            env.step(int(np.argmax(env.action_masks())))


def test_short_token_file_exits_2(tmp_path: Path) -> None:
    f = tmp_path / "token"
    f.write_text("short\n")
    cmd = clustergym.server.find_server_command()
    r = subprocess.run([*cmd, "serve", "--bind", "tcp://127.0.0.1:0", "--token-file", str(f)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "at least 16" in r.stderr


def test_local_server_is_private_and_reads_any_regular_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make() without an address: the server is this process's own (a random token keeps other
    local users out) and reads files anywhere (outside the working directory too), devices never."""
    monkeypatch.delenv("CLUSTERGYM_TOKEN", raising=False)
    w = tmp_path / "elsewhere.json"
    w.write_text((REPO / "data" / "workloads" / "mixed-300.json").read_text())
    with clustergym.make(JOB, {"workload": str(w), "k": 8}) as env:
        env.reset(seed=0)
        assert env.server is not None and env.server.token
        with pytest.raises(UnauthorizedError):  # another client without the token
            c = clustergym.Client(env.client.address, token="not-the-token-0123456789")
        with pytest.raises(ForbiddenError):
            clustergym.make(JOB, {"workload": "/dev/zero"}, client=env.client)


def test_private_local_server_token_wins_over_env_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """make() without an address with CLUSTERGYM_TOKEN set (for some other server): the private
    local server's own token is sent to it, not the environment's."""
    monkeypatch.setenv("CLUSTERGYM_TOKEN", "a-token-for-another-server-0123")
    with clustergym.make(JOB, small_config(JOB)) as env:
        env.reset(seed=0)
        assert env.server is not None and env.server.token and env.server.token != os.environ["CLUSTERGYM_TOKEN"]
        env.step(int(np.argmax(env.action_masks())))


def test_token_sent_to_a_server_without_token_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token-less server ignores a token, in msgpack requests (hello, make, reset) as in binary frames."""
    monkeypatch.delenv("CLUSTERGYM_TOKEN", raising=False)
    with clustergym.LocalServer(extra_args=["--quiet"]) as s:
        assert s.token is None
        c = clustergym.Client(s.address, token="unneeded-token-0123456789")
        with clustergym.make(JOB, small_config(JOB), address=s.address, client=c) as env:
            env.reset(seed=0)
            env.step(int(np.argmax(env.action_masks())))


def test_explicit_local_server_defaults_to_the_working_directory(tmp_path: Path) -> None:
    w = tmp_path / "elsewhere.json"
    w.write_text((REPO / "data" / "workloads" / "mixed-300.json").read_text())
    with clustergym.LocalServer(extra_args=["--quiet"]) as s:
        assert s.token is None
        with pytest.raises(ForbiddenError) as ei:
            clustergym.make(JOB, {"workload": str(w), "k": 8}, address=s.address)
        assert "--data-root" in ei.value.message
