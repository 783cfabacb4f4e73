"""make_vec over several servers (clustergym.fleet): the same episodes, rewards, infos and masks as
on one server in every autoreset mode, every server's step_batch in flight at once, actions checked
before any server moves, and a lost server (killed, or silent past the heartbeat) an error naming it."""
from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Dict, Iterator, List

import numpy as np
import pytest

import clustergym
from clustergym import AutoresetMode
from clustergym.client import Client
from clustergym.errors import InvalidActionError, ServerLostError
from clustergym.fleet import split_envs

from conftest import REPO, pid_alive, small_config, wait_gone

JOB = "clustergym/Job-v0"
PAIR = "clustergym/PolicyPair-v0"
SERVERS = 3


@pytest.fixture(scope="module")
def servers() -> Iterator[List[clustergym.LocalServer]]:
    started = [clustergym.LocalServer(bind="tcp://127.0.0.1:0", data_roots=[str(REPO)]) for _ in range(SERVERS)]
    yield started
    for s in started:
        s.stop()


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        if a.dtype == object:
            return isinstance(b, np.ndarray) and a.shape == b.shape and all(_equal(x, y) for x, y in zip(a, b))
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return bool(a == b)


def _trace(venv: clustergym.VectorEnv, steps: int, seed: int) -> List[Any]:
    """Everything a learner sees over ``steps`` steps of random valid actions (seeded)."""
    rng = np.random.default_rng(seed)
    obs, info = venv.reset()
    out: List[Any] = [("reset", obs, info)]
    for _ in range(steps):
        masks = venv.action_masks()
        scores = rng.random(masks.shape)
        scores[~masks] = -1
        actions = scores.argmax(axis=1)
        step = venv.step(actions)
        out.append(("step", *step, venv.action_masks().copy()))
        if venv.metadata["autoreset_mode"] == AutoresetMode.DISABLED:
            ended = step[2] | step[3]
            if ended.any():
                obs, info = venv.reset(options={"reset_mask": ended})
                out.append(("partial reset", obs, info))
    return out


def test_envs_are_spread_in_contiguous_blocks() -> None:
    assert split_envs(7, 3) == [3, 2, 2]
    assert split_envs(6, 3) == [2, 2, 2]
    assert split_envs(1, 1) == [1]
    with pytest.raises(ValueError, match="num_envs >= len"):
        split_envs(2, 3)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
@pytest.mark.parametrize("env_id", [JOB, PAIR])
def test_several_servers_give_what_one_server_gives(servers: List[clustergym.LocalServer], mode: Any, env_id: str) -> None:
    """7 envs on one server and over 3 (blocks of 3, 2, 2): every observation, reward, termination,
    truncation, info (episode metrics, final observations, reset infos) and mask equal, over enough
    steps that every env ends several episodes."""
    cfg = small_config(env_id, trajectory={"length": 12, "origin": 0})
    addresses = [s.address for s in servers]
    with clustergym.make_vec(env_id, 7, cfg, address=addresses[0], seeds=40, autoreset_mode=mode) as one:
        a = _trace(one, 60, seed=1)
    with clustergym.make_vec(env_id, 7, cfg, addresses=addresses, seeds=40, autoreset_mode=mode) as many:
        assert many.fleet is not None and [p.stop - p.start for p in many.fleet.parts] == [3, 2, 2]
        assert many.fleet.addresses == addresses
        b = _trace(many, 60, seed=1)
    ended = sum(int((x[3] | x[4]).sum()) for x in a if x[0] == "step")
    assert ended >= 14, "the trace should end several episodes per env"
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        assert x[0] == y[0]
        for u, v in zip(x[1:], y[1:]):
            assert _equal(u, v), f"entry {i} ({x[0]}) differs"


def test_the_sb3_adapter_over_several_servers_matches_one_server(servers: List[clustergym.LocalServer]) -> None:
    from clustergym.sb3 import make_sb3_vec

    cfg = small_config(JOB, trajectory={"length": 10, "origin": 0})

    def run(**where: Any) -> List[Any]:
        out: List[Any] = []
        with make_sb3_vec(JOB, 5, cfg, seeds=3, **where) as venv:
            obs = venv.reset()
            out.append(obs)
            rng = np.random.default_rng(0)
            for _ in range(60):
                m = venv.action_masks()
                s = rng.random(m.shape)
                s[~m] = -1
                venv.step_async(s.argmax(axis=1))
                obs, rewards, dones, infos = venv.step_wait()
                out.append((obs, rewards, dones, [{k: v for k, v in i.items() if k != "episode"} for i in infos]))
        return out

    a = run(address=servers[0].address)
    b = run(addresses=[s.address for s in servers[:2]])
    assert _equal(a, b)
    assert sum(int(x[2].sum()) for x in a[1:]) >= 10  # episodes ended, with their terminal observations


def test_every_server_has_its_request_in_flight_before_any_reply_is_read(servers: List[clustergym.LocalServer], monkeypatch: pytest.MonkeyPatch) -> None:
    """A step sends its step_batch to every server, then reads the replies: the servers step at once."""
    calls: List[str] = []
    submit, submit_frame, result = Client.submit, Client.submit_step_frame, Client.result

    def rec(name: str, f: Any) -> Any:
        def g(self: Client, *a: Any, **k: Any) -> Any:
            calls.append(f"{name} {self.address}")
            return f(self, *a, **k)

        return g

    with clustergym.make_vec(JOB, 6, small_config(JOB), addresses=[s.address for s in servers], seeds=1) as venv:
        venv.reset()
        monkeypatch.setattr(Client, "submit", rec("submit", submit))
        monkeypatch.setattr(Client, "submit_step_frame", rec("submit", submit_frame))
        monkeypatch.setattr(Client, "result", rec("result", result))
        venv.step(venv.action_masks().argmax(axis=1))
        monkeypatch.undo()
    kinds = [c.split()[0] for c in calls]
    assert kinds == ["submit"] * SERVERS + ["result"] * SERVERS, calls
    assert [c.split()[1] for c in calls[:SERVERS]] == [s.address for s in servers]


def test_a_bad_action_moves_no_server(servers: List[clustergym.LocalServer]) -> None:
    """An action outside the space, or masked out in `invalid_action: "raise"` mode, raises with its
    index in the whole vector before any server steps."""
    addresses = [s.address for s in servers]
    with clustergym.make_vec(JOB, 6, small_config(JOB, invalid_action="raise"), addresses=addresses, seeds=2) as venv:
        venv.reset()
        masks = venv.action_masks()
        actions = masks.argmax(axis=1)
        bad = actions.copy()
        bad[4] = 99
        with pytest.raises(InvalidActionError) as ei:
            venv.step(bad)
        assert ei.value.index == 4 and addresses[2] in ei.value.message
        masked = int(np.flatnonzero(~masks[5])[0])
        bad = actions.copy()
        bad[5] = masked
        with pytest.raises(InvalidActionError) as ei:
            venv.step(bad)
        assert ei.value.index == 5 and ei.value.mask is not None and not ei.value.mask[masked]
        # nothing moved: the first real step is step 1 everywhere
        _, _, _, _, info = venv.step(actions)
        assert info["steps"].tolist() == [1] * 6


def _stepping_thread(venv: clustergym.VectorEnv) -> Any:
    """Steps ``venv`` in a thread until an error; returns (thread, box with the error and its time)."""
    box: Dict[str, Any] = {}

    def run() -> None:
        try:
            while True:
                venv.step(venv.action_masks().argmax(axis=1))
        except BaseException as e:  # noqa: BLE001 -- the test inspects it
            box["error"], box["at"] = e, time.monotonic()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def test_a_server_killed_mid_step_is_an_error_naming_it_at_once() -> None:
    """SIGKILL of a server while the learner waits for its reply: ServerLostError naming that server,
    within a second, whatever the heartbeat; the other servers go on serving."""
    started = [clustergym.LocalServer(bind="tcp://127.0.0.1:0") for _ in range(2)]
    try:
        venv = clustergym.make_vec(JOB, 4, small_config(JOB), addresses=[s.address for s in started], seeds=3)
        venv.reset()
        victim = started[1]
        os.kill(victim.pid, signal.SIGSTOP)  # the next step waits on it: mid-step
        t, box = _stepping_thread(venv)
        time.sleep(0.5)
        assert t.is_alive() and "error" not in box
        killed = time.monotonic()
        os.kill(victim.pid, signal.SIGKILL)
        t.join(5)
        assert not t.is_alive()
        e = box["error"]
        assert isinstance(e, ServerLostError), repr(e)
        assert victim.address in str(e)
        assert box["at"] - killed < 1.0
        assert wait_gone(victim.pid)
        venv.close()
        with clustergym.Client(started[0].address) as c:
            assert c.request("ping")["pong"] is True
    finally:
        for s in started:
            s.stop()


@pytest.mark.parametrize("transport", ["zmtp", "libzmq"])
def test_a_silent_server_is_lost_after_the_heartbeat_timeout(monkeypatch: pytest.MonkeyPatch, transport: str) -> None:
    """A server that stops answering without closing its connection (SIGSTOP: as a dead host or a
    broken network look from here) ends the learner's call after the heartbeat's timeout, even with
    no request timeout at all; its process is then killed and reaped, none left behind."""
    monkeypatch.setenv("CLUSTERGYM_HEARTBEAT", "0.2,1.5")
    monkeypatch.setenv("CLUSTERGYM_TRANSPORT", transport)
    started = [clustergym.LocalServer(bind="tcp://127.0.0.1:0") for _ in range(2)]
    try:
        venv = clustergym.make_vec(JOB, 4, small_config(JOB), addresses=[s.address for s in started], seeds=3, timeout=None)
        assert venv.client.transport == transport
        venv.reset()
        victim = started[0]
        os.kill(victim.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        t, box = _stepping_thread(venv)
        t.join(10)
        assert not t.is_alive(), "the learner hangs on a silent server"
        e = box["error"]
        assert isinstance(e, ServerLostError), repr(e)
        assert victim.address in str(e)
        took = box["at"] - stopped
        print(f"{transport}: a silent server lost after {took:.2f} s (heartbeat 0.2 s / 1.5 s)")
        assert 1.4 <= took < 1.5 + 1.5, took  # the heartbeat timeout, plus one interval and slack
        venv.close()
        os.kill(victim.pid, signal.SIGKILL)
        assert wait_gone(victim.pid)
    finally:
        for s in started:
            if pid_alive(s.pid):
                os.kill(s.pid, signal.SIGCONT)
            s.stop()
