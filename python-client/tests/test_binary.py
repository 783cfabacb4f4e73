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
    env = clustergym.make(ENV, small_config(ENV, invalid_action="raise"), address=address)
    try:
        env.reset(seed=3)
        forbidden = int(np.flatnonzero(~env.action_masks())[0])
        with pytest.raises(InvalidActionError):
            env.step(forbidden)
        # out-of-int32 actions go over msgpack
        with pytest.raises(InvalidActionError):
            env.step(2**40)
        # the state did not move: the next valid step is the episode's first, as in a fresh env reset with the same seed
        valid = int(np.flatnonzero(env.action_masks())[0])
        got = env.step(valid)
        assert got[0]["jobs"].shape == (8, 8)
        with clustergym.make(ENV, small_config(ENV, invalid_action="raise"), address=address) as fresh:
            fresh.reset(seed=3)
            want = fresh.step(valid)
        _same(got, want)
        assert got[4]["steps"] == 1
    finally:
        env.close()


def test_a_step_skips_late_replies_to_earlier_requests(address: str) -> None:
    """The step's receive fast path takes only its own reply: a late msgpack reply and a late binary
    reply (to requests whose caller gave up) that arrive first are skipped, as the slow path does."""
    from clustergym import wire

    with clustergym.Client(address) as c:
        env = clustergym.make(ENV, small_config(ENV), client=c)
        other = clustergym.make(ENV, small_config(ENV), client=c)
        with clustergym.make(ENV, small_config(ENV), address=address) as ref:
            env.reset(seed=8)
            other.reset(seed=9)
            ref.reset(seed=8)
            valid = int(np.flatnonzero(env.action_masks())[0])
            other_valid = int(np.flatnonzero(other.action_masks())[0])
            # two requests nobody waits for (ids the client never uses), answered before the step
            ping: dict = {"id": 2**31 + 5, "op": "ping"}
            if c._token is not None:  # noqa: SLF001
                ping["token"] = c._token  # noqa: SLF001
            c._sock.send(wire.pack(ping))  # noqa: SLF001
            c._sock.send(binary.encode_request("step", 2**32 - 3, other._handle_number, [other_valid], True, c._token_bytes))  # noqa: SLF001
            _same(env.step(valid), ref.step(valid))
            assert env.step(int(np.flatnonzero(env.action_masks())[0]))[4]["steps"] == 2
            # the late binary step did step the other env (its reply went unread)
            other._mask = None  # noqa: SLF001
            assert other.step(int(np.flatnonzero(other.action_masks())[0]))[4]["steps"] == 2
        env.close()
        other.close()


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
def test_vector_binary_and_msgpack_give_the_same_steps(address: str, mode: str) -> None:
    cfg = small_config(ENV, trajectory={"length": 8, "origin": "random"})
    with clustergym.Client(address) as cb, clustergym.Client(address, binary=False) as cm:
        vb = clustergym.make_vec(ENV, 3, cfg, client=cb, autoreset_mode=mode)
        vm = clustergym.make_vec(ENV, 3, cfg, client=cm, autoreset_mode=mode)
        # binary frames without info columns (what a client of binary format 1 alone asks)
        vn = clustergym.make_vec(ENV, 3, cfg, client=cb, autoreset_mode=mode)
        vn._columns = False  # noqa: SLF001
        assert vb._layout is not None and vm._layout is None  # noqa: SLF001
        assert cb.binary_columns and vb._columns and not cm.binary_columns  # noqa: SLF001
        _same(vb.reset(seed=[5, 6, 7]), vm.reset(seed=[5, 6, 7]))
        vn.reset(seed=[5, 6, 7])
        ends = 0
        fast = 0
        for _ in range(40):
            masks = vm.action_masks()
            _same(vb.action_masks(), masks)
            actions: List[int] = [int(np.flatnonzero(m)[-1]) for m in masks]
            rb = vb.step(np.asarray(actions))
            rm = vm.step(actions)
            _same(rb, rm)
            _same(vn.step(actions), rm)
            ends += int(np.sum(rm[2] | rm[3]))
            # the batched info of a step where nothing ended is the columns themselves, with shared masks
            if not (rm[2] | rm[3]).any() and mode == "SameStep":
                fast += 1
                assert rb[4]["steps"].dtype == np.int64 and not rb[4]["_steps"].flags.writeable
        assert ends >= 3
        assert mode != "SameStep" or fast >= 10
        vb.close()
        vm.close()
        vn.close()


def test_info_columns_decode_a_hand_built_reply() -> None:
    import struct

    import msgpack

    layout = binary.Layout({"version": 1, "arrays": [{"key": None, "dtype": "float32", "shape": [2]}], "mask": 2})
    n = 2
    spec = msgpack.packb([["time", "f8"], ["steps", "i8"]])
    rest = msgpack.packb([{}, {"invalid_action": True}])
    starts, masks, info_at = layout.offsets(n)
    columns = np.array([1.5, 2.25]).astype("<f8").tobytes() + np.array([3, -(2**40)]).astype("<i8").tobytes()
    info = columns + spec + rest
    b = bytearray(info_at + len(info))
    struct.pack_into("<BBBBIIIII", b, 0, 0xC1, 2, binary.INFO_COLUMNS, binary.VERSION, 4, n, len(info), 2, len(spec))
    struct.pack_into("<2d", b, 32, 0.5, -1.0)
    b[starts[0] : starts[0] + 16] = np.arange(4, dtype="<f4").tobytes()
    b[masks : masks + 4] = bytes([1, 0, 0, 1])
    b[info_at:] = info
    raw = bytes(b)
    r = binary.decode_step_batch(layout, raw, n)
    cols = r["info_columns"]
    assert list(cols) == ["time", "steps"]
    assert cols["time"].dtype == np.float64 and cols["time"].tolist() == [1.5, 2.25]
    assert cols["steps"].dtype == np.int64 and cols["steps"].tolist() == [3, -(2**40)]
    assert r["infos"] == [{}, {"invalid_action": True}]
    assert r["observations"].tolist() == [[0.0, 1.0], [2.0, 3.0]] and r["action_masks"].tolist() == [[1, 0], [0, 1]]
    merged = binary.merged_infos(cols, r["infos"])
    assert merged == [{"time": 1.5, "steps": 3}, {"time": 2.25, "steps": -(2**40), "invalid_action": True}]
    assert type(merged[0]["steps"]) is int and type(merged[0]["time"]) is float
    # the spec is parsed once: a second reply reuses it
    assert list(layout._specs.values()) == [[("time", np.dtype("<f8")), ("steps", np.dtype("<i8"))]]  # noqa: SLF001
    binary.decode_step_batch(layout, raw, n)
    assert len(layout._specs) == 1  # noqa: SLF001
    # the request flag asks for columns
    assert binary.encode_request("step_batch", 1, [1, 2], [0, 0], True, b"", True)[2] == binary.AUTORESET | binary.INFO_COLUMNS
    # a spec that is not [[key, "i8" | "f8"], ...] is refused
    bad = raw.replace(spec, msgpack.packb([["time", "f4"], ["steps", "i8"]]))
    with pytest.raises(ValueError, match="info column spec"):
        binary.decode_step_batch(binary.Layout({"version": 1, "arrays": [{"key": None, "dtype": "float32", "shape": [2]}], "mask": 2}), bad, n)


def test_request_frame_layout() -> None:
    frame = binary.encode_request("step_batch", 0x01020304, [17, 2], [3, -1], True, b"tok")
    assert frame[:4] == bytes([0xC1, 2, 1, 3])
    assert frame[4:8] == bytes([4, 3, 2, 1])
    assert np.frombuffer(frame[12:20], "<u4").tolist() == [17, 2]
    assert np.frombuffer(frame[20:28], "<i4").tolist() == [3, -1]
    assert frame[28:] == b"tok"
    assert binary.handle_number("e17") == 17 and binary.handle_number("x17") is None and binary.handle_number("e99999999999") is None
    # one env (the fast path of Env.step): the same bytes as the general layout
    one = binary.encode_request("step", 7, [5], [-2], False, b"")
    assert one[:4] == bytes([0xC1, 1, 0, 0])
    assert np.frombuffer(one[4:12], "<u4").tolist() == [7, 1]
    assert np.frombuffer(one[12:16], "<u4").tolist() == [5]
    assert np.frombuffer(one[16:20], "<i4").tolist() == [-2]
    assert len(one) == 20


def _one_env_reply(layout: binary.Layout, reward: float, info: bytes) -> bytes:
    """A well-formed binary ``step`` reply for ``layout`` (observations 0.5, mask all ones)."""
    import struct

    starts, masks, info_at = layout.offsets(1)
    b = bytearray(info_at + len(info))
    struct.pack_into("<BBBBIII", b, 0, 0xC1, 1, 0, binary.VERSION, 9, 1, len(info))
    struct.pack_into("<d", b, 32, reward)
    b[40] = 1  # terminated
    for (_, dt, shape, size), at in zip(layout.arrays, starts):
        b[at : at + size] = np.full(shape, 0.5, dt).tobytes()
    b[masks : masks + layout.mask] = bytes([1]) * layout.mask
    b[info_at:] = info
    return bytes(b)


def test_decode_step_reads_a_hand_built_reply_and_refuses_malformed_ones() -> None:
    import msgpack

    layout = binary.Layout({"version": 1, "arrays": [{"key": "jobs", "dtype": "float32", "shape": [2, 3]}, {"key": "g", "dtype": "float64", "shape": [2]}], "mask": 3})
    raw = _one_env_reply(layout, -1.25, msgpack.packb({"time": 4.0}))
    obs, reward, terminated, truncated, info = binary.decode_step(layout, raw)
    assert obs["jobs"].shape == (2, 3) and obs["jobs"].dtype == np.float32 and np.all(obs["jobs"] == 0.5)
    assert obs["g"].dtype == np.float32 and obs["g"].tolist() == [0.5, 0.5]  # float64 arrays arrive as float32
    assert (reward, terminated, truncated) == (-1.25, True, False)
    assert info["time"] == 4.0 and info["action_mask"].tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="bytes, the layout needs"):
        binary.decode_step(layout, raw[:-1])
    with pytest.raises(ValueError, match="envs where 1 were stepped"):
        binary.decode_step(layout, raw[:8] + (2).to_bytes(4, "little") + raw[12:])
