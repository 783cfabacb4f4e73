"""The wire format, the error mapping and the light spaces (no server needed)."""
from __future__ import annotations

import numpy as np
import pytest

from clustergym import errors, spaces, wire


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "int8", "uint32"])
def test_ndarray_round_trip_every_dtype(dtype: str) -> None:
    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    m = wire.unpack(wire.pack({"x": a}))["x"]
    assert m.dtype == np.dtype(dtype)
    assert m.shape == (2, 3, 4)
    np.testing.assert_array_equal(m, a)


def test_decoded_arrays_are_zero_copy_views() -> None:
    a = np.linspace(0, 1, 1024, dtype=np.float32).reshape(128, 8)
    raw = wire.pack({"__ndarray__": True, "dtype": "float32", "shape": [128, 8], "data": a.tobytes()})
    m = wire.unpack(raw)
    assert isinstance(m, np.ndarray) and m.shape == (128, 8)
    assert not m.flags.owndata and not m.flags.writeable  # a view of the message bytes
    base = m
    while isinstance(base, np.ndarray):
        base = base.base
    assert isinstance(base, bytes)  # the bin field of the message, not a copy of it
    np.testing.assert_array_equal(m, a)


def test_wire_layout_is_c_order_little_endian() -> None:
    a = np.array([[1, 2], [3, 4]], dtype=">i4")  # big-endian input
    enc = wire.encode_ndarray(a.T)  # non-contiguous too
    assert enc["dtype"] == "int32" and enc["shape"] == [2, 2]
    assert enc["data"] == np.array([[1, 3], [2, 4]], dtype="<i4").tobytes()


def test_numpy_scalars_and_bools_encode_as_plain_values() -> None:
    v = wire.unpack(wire.pack({"i": np.int64(7), "u": np.uint8(3), "f": np.float32(0.5), "b": np.bool_(True), "l": [np.int32(1)]}))
    assert v == {"i": 7, "u": 3, "f": 0.5, "b": True, "l": [1]}
    assert type(v["i"]) is int and type(v["b"]) is bool
    m = wire.unpack(wire.pack(np.array([True, False])))
    assert m.dtype == np.uint8 and m.tolist() == [1, 0]


def test_unsupported_values_raise_type_error() -> None:
    with pytest.raises(TypeError, match="complex"):
        wire.pack(np.zeros(2, dtype=np.complex64))
    with pytest.raises(TypeError, match="object"):
        wire.pack(object())


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"__ndarray__": True, "dtype": "float16", "shape": [1], "data": b"\0\0"}, "unknown dtype"),
        ({"__ndarray__": True, "dtype": "float32", "shape": [3], "data": b"\0" * 8}, "needs 12 bytes"),
        ({"__ndarray__": True, "dtype": "float32", "shape": [-1], "data": b""}, "shape"),
        ({"__ndarray__": True, "dtype": "uint8", "shape": [1], "data": "x"}, "bytes"),
    ],
)
def test_bad_ndarray_maps_raise_value_error(bad: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        wire.unpack(wire.pack(bad))


def test_error_replies_map_to_classes_with_paths() -> None:
    e = errors.error_from_reply(
        {"code": "bad_config", "message": "clustergym/Job-v0 config: $.k: too small", "details": {"issues": [{"path": "$.k", "message": "too small"}]}}
    )
    assert isinstance(e, errors.ConfigError) and isinstance(e, ValueError)
    assert e.paths == ["$.k"] and e.message.endswith("too small") and "[bad_config]" in str(e)
    e = errors.error_from_reply({"code": "invalid_action", "message": "no", "details": {"index": 2, "mask": np.array([1, 0], dtype=np.uint8)}})
    assert isinstance(e, errors.InvalidActionError) and e.index == 2 and e.mask.tolist() == [True, False]
    for code, cls in errors.ERROR_CLASSES.items():
        assert type(errors.error_from_reply({"code": code, "message": "m"})) is cls
    assert type(errors.error_from_reply({"code": "something_new", "message": "m"})) is errors.ClusterGymError
    assert isinstance(errors.ClusterGymTimeoutError("timeout", "t"), TimeoutError)
    import pickle

    e2 = pickle.loads(pickle.dumps(errors.ConfigError("bad_config", "m", {"issues": [{"path": "$.k", "message": "x"}]})))
    assert type(e2) is errors.ConfigError and e2.paths == ["$.k"] and e2.message == "m"


def test_light_spaces_from_descriptors() -> None:
    d = {
        "type": "Dict",
        "spaces": {
            "jobs": {"type": "Box", "low": 0, "high": 1, "shape": [4, 8], "dtype": "float32"},
            "global": {"type": "Box", "low": 0, "high": 1, "shape": [5], "dtype": "float32"},
        },
    }
    s = spaces.from_descriptor(d, use_gymnasium=False)
    assert isinstance(s, spaces.Dict) and list(s.keys()) == ["jobs", "global"]
    assert s["jobs"].shape == (4, 8) and s["jobs"].dtype == np.float32
    s.seed(3)
    x = s.sample()
    assert s.contains(x) and x in s
    s.seed(3)
    np.testing.assert_array_equal(s.sample()["jobs"], x["jobs"])
    assert not s.contains({"jobs": x["jobs"] + 2, "global": x["global"]})
    assert not s.contains({"jobs": x["jobs"]})
    assert not s["global"].contains(np.zeros(4, dtype=np.float32))

    a = spaces.from_descriptor({"type": "Discrete", "n": 5}, use_gymnasium=False)
    assert isinstance(a, spaces.Discrete) and a.n == 5 and a.shape == () and a.dtype == np.int64
    a.seed(0)
    mask = np.array([0, 0, 1, 0, 1], dtype=bool)
    draws = {int(a.sample(mask=mask)) for _ in range(50)}
    assert draws == {2, 4}
    assert a.contains(4) and a.contains(np.int64(0)) and not a.contains(5) and not a.contains(1.0) and not a.contains(True)

    mb = spaces.from_descriptor({"type": "MultiBinary", "n": 3}, use_gymnasium=False)
    assert mb.shape == (3,) and mb.contains(mb.sample()) and not mb.contains([0, 2, 1])
    with pytest.raises(ValueError, match="unknown space type"):
        spaces.from_descriptor({"type": "Graph"}, use_gymnasium=False)


def test_batch_space() -> None:
    box = spaces.Box(0, 1, (3,), np.float32)
    b = spaces.batch_space(box, 4)
    assert b.shape == (4, 3)
    md = spaces.batch_space(spaces.Discrete(5), 4)
    assert isinstance(md, spaces.MultiDiscrete) and md.shape == (4,)
    m = np.zeros((4, 5), dtype=bool)
    m[:, 3] = True
    assert md.sample(mask=m).tolist() == [3, 3, 3, 3]
    assert md.contains(np.array([0, 4, 1, 2]))
    d = spaces.batch_space(spaces.Dict({"a": box}), 2)
    assert d["a"].shape == (2, 3)


@pytest.mark.skipif(not spaces.gymnasium_available(), reason="gymnasium is not installed (the light spaces are tested above)")
def test_gymnasium_spaces_when_installed() -> None:  # pragma: no cover - needs gymnasium
    import gymnasium

    s = spaces.from_descriptor({"type": "Dict", "spaces": {"x": {"type": "Box", "low": 0, "high": 1, "shape": [2], "dtype": "float32"}}})
    assert isinstance(s, gymnasium.spaces.Dict)
    assert isinstance(spaces.from_descriptor({"type": "Discrete", "n": 3}), gymnasium.spaces.Discrete)
    assert isinstance(spaces.batch_space(spaces.from_descriptor({"type": "Discrete", "n": 3}), 2), gymnasium.spaces.MultiDiscrete)
