"""Bad input from Python: exceptions carry the server's message and field paths; the env stays usable."""
from __future__ import annotations

import socket
from typing import Any

import numpy as np
import pytest

import clustergym
from clustergym.errors import BadRequestError, ClusterGymError, ClusterGymTimeoutError, ConfigError, ProtocolError, UnknownEnvError, UnknownEnvIdError

from conftest import small_config

JOB = "clustergym/Job-v0"


@pytest.fixture
def env(address: str) -> Any:
    e = clustergym.make(JOB, small_config(JOB), address=address)
    e.reset(seed=0)
    yield e
    e.close()


def _first_step_as_fresh(env: Any, address: str, action: int) -> None:
    """Steps ``env`` (reset with seed 0, then only refused requests) and checks it moved from the reset
    state: the same observation and info as a fresh env reset with seed 0 taking the same action."""
    obs, reward, terminated, truncated, info = env.step(action)
    with clustergym.make(JOB, small_config(JOB), address=address) as fresh:
        fresh.reset(seed=0)
        wobs, wreward, wterminated, wtruncated, winfo = fresh.step(action)
    assert obs.keys() == wobs.keys() and all(np.array_equal(obs[k], wobs[k]) for k in obs)
    assert (reward, terminated, truncated) == (wreward, wterminated, wtruncated)
    assert info["steps"] == winfo["steps"] == 1


@pytest.mark.parametrize("action", ["a", 1.5, [0, 1], {"x": 1}, None, True])
def test_wrong_action_type(env: Any, address: str, action: Any) -> None:
    mask = env.action_masks().copy()
    with pytest.raises(ClusterGymError) as ei:
        env.step(action)
    e = ei.value
    assert e.code in ("bad_request", "invalid_action")
    assert e.message and e.message in str(e)
    if isinstance(e, BadRequestError):
        assert "$.action" in e.paths, e.issues
        assert "action" in e.message
    # still usable, same state: the next valid step is the episode's first
    _first_step_as_fresh(env, address, int(np.flatnonzero(mask)[0]))


def test_float_ndarray_action_is_refused(env: Any, address: str) -> None:
    with pytest.raises(BadRequestError) as ei:
        env.step(np.array([0.5], dtype=np.float32))
    assert "$.action" in ei.value.paths
    _first_step_as_fresh(env, address, int(np.flatnonzero(env.action_masks())[0]))


def test_bad_config_names_every_field(client: clustergym.Client) -> None:
    with pytest.raises(ConfigError) as ei:
        clustergym.make(JOB, {"k": 0, "reward": "nope", "trajectory": {"length": -3}}, client=client)
    e = ei.value
    assert isinstance(e, ValueError) and e.code == "bad_config"
    for path in ("$.k", "$.reward", "$.trajectory.length"):
        assert path in e.message, e.message
        assert path in e.paths, e.paths
    # the connection (and server) still serve
    with clustergym.make(JOB, small_config(JOB), client=client) as env:
        env.reset(seed=0)


def test_unknown_config_field(client: clustergym.Client) -> None:
    with pytest.raises(ConfigError) as ei:
        clustergym.make(JOB, {"kk": 8}, client=client)
    assert "kk" in ei.value.message


def test_config_keywords_merge(client: clustergym.Client) -> None:
    with clustergym.make(JOB, {"trajectory": {"length": 10}}, client=client, k=4) as env:
        assert env.config == {"trajectory": {"length": 10}, "k": 4}
        assert env.action_space.n == 5


def test_unknown_env_id(client: clustergym.Client) -> None:
    with pytest.raises(UnknownEnvIdError) as ei:
        clustergym.make("clustergym/Nope-v0", client=client)
    assert "clustergym/Job-v0" in ei.value.message  # the valid ids are named
    assert isinstance(ei.value, LookupError)


def test_bad_reset_options_and_seed(env: Any) -> None:
    with pytest.raises(ClusterGymError) as ei:
        env.reset(seed=0, options={"bogus": 1})
    assert "bogus" in ei.value.message
    with pytest.raises(TypeError):
        env.reset(seed="x")  # type: ignore[arg-type]  (refused by the client, before anything is sent)
    with pytest.raises(ClusterGymError) as ei:
        env.client.request("reset", env=env.handle, seed="x")
    assert "$.seed" in ei.value.paths
    obs, info = env.reset(seed=0)
    assert info["steps"] == 0


def test_closed_handle_is_unknown(client: clustergym.Client) -> None:
    env = clustergym.make(JOB, small_config(JOB), client=client)
    client.request("close", env=env.handle)
    with pytest.raises(UnknownEnvError):
        env.reset(seed=0)
    env.close()  # closing again is fine


def test_unknown_op(client: clustergym.Client) -> None:
    with pytest.raises(clustergym.errors.UnknownOpError) as ei:
        client.request("fly")
    assert "fly" in ei.value.message
    assert client.hello()["protocol"] == clustergym.PROTOCOL_VERSION


def test_timeout_is_clear() -> None:
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ClusterGymTimeoutError) as ei:
        clustergym.Client(f"127.0.0.1:{port}", timeout=0.3)
    assert isinstance(ei.value, TimeoutError)
    assert f"tcp://127.0.0.1:{port}" in str(ei.value) and "0.3 s" in str(ei.value)


def test_protocol_version_mismatch(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clustergym.client, "PROTOCOL_VERSION", 999)
    with pytest.raises(ProtocolError, match="protocol"):
        clustergym.Client(address)
