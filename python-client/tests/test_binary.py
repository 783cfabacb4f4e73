"""Binary step frames (clustergym.binary) against the real server: the client uses them by default,
and an env (or vector) stepping over them gives the same episodes as one stepping over msgpack maps,
value for value, across episode ends, in every autoreset mode; errors still raise the error classes."""
from __future__ import annotations

from typing import Any, List

import numpy as np
import pytest

import clustergym
from clustergym import binary
from clustergym.errors import InvalidActionError

from conftest import small_config

ENV = "clustergym/Job-v0"


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (sorted(a), sorted(b) if isinstance(b, dict) else b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:  # batched infos: per-env values (None, dicts of arrays)
            for x, y in zip(a.ravel(), b.ravel()):
                _same(x, y)
        else:
            np.testing.assert_array_equal(a, b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b and type(a) is type(b), (a, b)


def test_client_uses_binary_frames_when_offered(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with clustergym.Client(address) as c:
        assert c.binary
        env = clustergym.make(ENV, small_config(ENV), client=c)
        assert env._layout is not None and not env._layout.box  # noqa: SLF001
        assert [k for k, *_ in env._layout.arrays] == ["jobs", "nodes", "global"]  # noqa: SLF001
        env.close()
    with clustergym.Client(address, binary=False) as c:
        assert not c.binary
    monkeypatch.setenv("CLUSTERGYM_BINARY", "0")
    with clustergym.Client(address) as c:
        assert not c.binary


def test_env_binary_and_msgpack_give_the_same_episodes(address: str) -> None:
    with clustergym.Client(address) as cb, clustergym.Client(address, binary=False) as cm:
        eb = clustergym.make(ENV, small_config(ENV), client=cb)
        em = clustergym.make(ENV, small_config(ENV), client=cm)
        assert eb._layout is not None and em._layout is None  # noqa: SLF001
        for episode in range(2):
            _same(eb.reset(seed=11 + episode), em.reset(seed=11 + episode))
            rng = np.random.default_rng(episode)
            steps = 0
            while True:
                mask = em.action_masks()
                _same(eb.action_masks(), mask)
                a = int(rng.choice(np.flatnonzero(mask)))
                ob, rb, tb, trb, ib = eb.step(np.int64(a) if steps % 2 else a)
                om, rm, tm, trm, im = em.step(a)
                _same((ob, rb, tb, trb, ib), (om, rm, tm, trm, im))
                assert ob["jobs"].dtype == np.float32 and not ob["jobs"].flags.writeable
                steps += 1
                if tm or trm:
                    assert "metrics" in ib and "episode" in ib
                    break
            assert steps >= 30
        eb.close()
        em.close()


def test_binary_step_errors_raise_the_error_classes(address: str) -> None:
    env = clustergym.make(ENV, small_config(ENV), address=address)
    try:
        env.reset(seed=3)
        forbidden = int(np.flatnonzero(~env.action_masks())[0])
        with pytest.raises(InvalidActionError):
            env.step(forbidden)
        # the state did not move: a valid action still works, and out-of-int32 actions go over msgpack
        with pytest.raises(InvalidActionError):
            env.step(2**40)
        obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert obs["jobs"].shape == (8, 8)
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
def test_vector_binary_and_msgpack_give_the_same_steps(address: str, mode: str) -> None:
    cfg = small_config(ENV, trajectory={"length": 8, "origin": "random"})
    with clustergym.Client(address) as cb, clustergym.Client(address, binary=False) as cm:
        vb = clustergym.make_vec(3, ENV, cfg, client=cb, autoreset_mode=mode)
        vm = clustergym.make_vec(3, ENV, cfg, client=cm, autoreset_mode=mode)
        assert vb._layout is not None and vm._layout is None  # noqa: SLF001
        _same(vb.reset(seed=[5, 6, 7]), vm.reset(seed=[5, 6, 7]))
        ends = 0
        for _ in range(40):
            masks = vm.action_masks()
            _same(vb.action_masks(), masks)
            actions: List[int] = [int(np.flatnonzero(m)[-1]) for m in masks]
            rb = vb.step(np.asarray(actions))
            rm = vm.step(actions)
            _same(rb, rm)
            ends += int(np.sum(rm[2] | rm[3]))
        assert ends >= 3
        vb.close()
        vm.close()


def test_request_frame_layout() -> None:
    frame = binary.encode_request("step_batch", 0x01020304, [17, 2], [3, -1], True, b"tok")
    assert frame[:4] == bytes([0xC1, 2, 1, 3])
    assert frame[4:8] == bytes([4, 3, 2, 1])
    assert np.frombuffer(frame[12:20], "<u4").tolist() == [17, 2]
    assert np.frombuffer(frame[20:28], "<i4").tolist() == [3, -1]
    assert frame[28:] == b"tok"
    assert binary.handle_number("e17") == 17 and binary.handle_number("x17") is None and binary.handle_number("e99999999999") is None
