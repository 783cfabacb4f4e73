"""make_vec: Gymnasium 1.x vector semantics over step_batch / reset_batch, checked against single
envs stepped one by one (NEXT_STEP, SAME_STEP and DISABLED autoreset), infos as a dict of arrays
with `_key` masks, seeds and determinism."""
from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
import pytest

import clustergym
from clustergym import AutoresetMode, batch_infos
from clustergym.errors import BadStateError, InvalidActionError

from conftest import small_config

JOB = "clustergym/Job-v0"
N = 4


def make(address: str, mode: Any = AutoresetMode.NEXT_STEP, n: int = N, seeds: Any = 10, **cfg: Any) -> clustergym.VectorEnv:
    return clustergym.make_vec(JOB, n, small_config(JOB, **cfg), address=address, seeds=seeds, autoreset_mode=mode)


@pytest.fixture
def venv(address: str) -> Any:
    v = make(address)
    yield v
    v.close()


@pytest.fixture
def singles(address: str) -> Any:
    envs = [clustergym.make(JOB, small_config(JOB), address=address) for _ in range(N)]
    yield envs
    for e in envs:
        e.close()


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scores = rng.random(masks.shape)
    scores[~masks] = -1
    return scores.argmax(axis=1)


def unbatch(infos: Dict[str, Any], i: int) -> Dict[str, Any]:
    """Env i's info dict out of a vector info (keys whose `_key` mask is set for i), recursively."""
    out: Dict[str, Any] = {}
    for k, v in infos.items():
        if k.startswith("_") or not infos["_" + k][i]:
            continue
        out[k] = unbatch(v, i) if isinstance(v, dict) else v[i]
    return out


def assert_info_equal(vector_info: Dict[str, Any], single_info: Dict[str, Any]) -> None:
    """The same keys and values (numbers compared as numbers: a batch may hold ints as float64)."""
    single = {k: v for k, v in single_info.items() if k != "action_mask"}
    assert set(vector_info) == set(single), (sorted(vector_info), sorted(single))
    for k, v in single.items():
        if isinstance(v, dict):
            assert_info_equal(vector_info[k], v)
        else:
            assert vector_info[k] == v, (k, vector_info[k], v)


def deep_equal(a: Any, b: Any) -> bool:
    """Equality of nested tuples, lists, dicts and arrays (object arrays element by element), dtypes included."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b) and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape):
            return False
        if a.dtype == object:
            return all(deep_equal(x, y) for x, y in zip(a.ravel(), b.ravel()))
        return bool(np.array_equal(a, b))
    return bool(a == b)


def assert_obs_row(batch: Any, i: int, obs: Any) -> None:
    for k in obs:
        np.testing.assert_array_equal(batch[k][i], obs[k])


# -- spaces, shapes, metadata ---------------------------------------------------------------------


def test_shapes_spaces_and_metadata(venv: Any) -> None:
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # Gymnasium's default
    assert isinstance(venv.metadata["autoreset_mode"], AutoresetMode)
    obs, infos = venv.reset()
    assert venv.num_envs == N and len(venv) == N
    assert isinstance(obs, dict)
    for k, v in obs.items():
        assert v.dtype == np.float32 and v.shape == (N, *venv.single_observation_space[k].shape)
    assert venv.observation_space.contains(obs)
    assert int(venv.single_action_space.n) == 9 and list(venv.action_space.nvec) == [9] * N
    assert isinstance(infos, dict)
    masks = venv.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (N, int(venv.single_action_space.n)) and masks.any(axis=1).all()
    obs, rewards, term, trunc, infos = venv.step(_pick(masks, np.random.default_rng(0)))
    assert rewards.dtype == np.float64 and rewards.shape == (N,)
    assert term.dtype == np.bool_ and term.shape == (N,) and trunc.dtype == np.bool_ and trunc.shape == (N,)
    assert venv.observation_space.contains(obs)
    assert isinstance(infos, dict)


def test_infos_are_a_dict_of_arrays_with_masks(venv: Any) -> None:
    obs, infos = venv.reset()
    assert set(infos) == {"time", "_time", "steps", "_steps", "queue_length", "_queue_length", "running", "_running"}
    for k in ("time", "steps", "queue_length", "running"):
        assert isinstance(infos[k], np.ndarray) and infos[k].shape == (N,)
        m = infos["_" + k]
        assert m.dtype == np.bool_ and m.shape == (N,) and m.all()
    assert (infos["steps"] == 0).all()
    # a step: every env has the per-step keys; only the envs whose episode ended have metrics/episode
    rng = np.random.default_rng(3)
    for _ in range(200):
        obs, rewards, term, trunc, infos = venv.step(_pick(venv.action_masks(), rng))
        done = term | trunc
        assert infos["_time"].all()
        if done.any():
            np.testing.assert_array_equal(infos["_metrics"], done)
            np.testing.assert_array_equal(infos["_episode"], done)
            m = infos["metrics"]  # nested dict, batched the same way
            assert isinstance(m, dict) and m["mean_bsld"].dtype == np.float64 and m["mean_bsld"].shape == (N,)
            np.testing.assert_array_equal(m["_mean_bsld"], done)
            assert (m["mean_bsld"][~done] == 0).all() and (m["mean_bsld"][done] >= 1).all()
            np.testing.assert_array_equal(infos["episode"]["_return"], done)
            assert infos["episode"]["steps"].dtype == np.int64
            break
    else:
        pytest.fail("no episode ended")


# -- batch_infos: the layout of Gymnasium's VectorEnv._add_info -------------------------------------


def test_batch_infos_layout() -> None:
    obs2 = {"a": np.ones(2, np.float32)}
    out = batch_infos(
        [
            {"x": 1, "flag": True, "name": "w", "arr": np.array([1, 2], np.uint8), "final_obs": obs2, "sub": {"y": 2.5}},
            None,
            {"x": 2.5, "arr": np.array([3, 4], np.uint8), "sub": {"y": 1, "z": [1]}},
        ],
        3,
    )
    assert list(out) == ["x", "_x", "flag", "_flag", "name", "_name", "arr", "_arr", "final_obs", "_final_obs", "sub", "_sub"]
    # numbers: one dtype that holds every env's value (an int then a float: float64)
    assert out["x"].dtype == np.float64 and out["x"].tolist() == [1.0, 0.0, 2.5]
    np.testing.assert_array_equal(out["_x"], [True, False, True])
    assert out["flag"].dtype == np.bool_ and out["flag"].tolist() == [True, False, False]
    np.testing.assert_array_equal(out["_flag"], [True, False, False])
    # anything else: an object array, None where absent
    assert out["name"].dtype == object and out["name"].tolist() == ["w", None, None]
    # arrays: stacked, zeros where absent
    assert out["arr"].dtype == np.uint8 and out["arr"].tolist() == [[1, 2], [0, 0], [3, 4]]
    # final_obs: an object array of the per-env observations
    assert out["final_obs"].dtype == object and out["final_obs"].shape == (3,)
    assert out["final_obs"][0] is obs2 and out["final_obs"][1] is None and out["final_obs"][2] is None
    # nested dicts: batched recursively, with their own masks
    sub = out["sub"]
    np.testing.assert_array_equal(out["_sub"], [True, False, True])
    assert sub["y"].tolist() == [2.5, 0.0, 1.0] and sub["_y"].tolist() == [True, False, True]
    assert sub["z"].dtype == object and sub["z"].tolist() == [None, None, [1]] and sub["_z"].tolist() == [False, False, True]
    # ints alone stay ints; no info at all: {}
    assert batch_infos([{"n": 1}, {"n": 2}])["n"].dtype == np.int64
    assert batch_infos([{}, None], 2) == {}


def add_info_reference(vector_infos: Dict[str, Any], env_info: Dict[str, Any], i: int, n: int) -> Dict[str, Any]:
    """Gymnasium's rules for adding env i's info, one env at a time: the array of a key is made when
    the first env that has it is added (its type fixes the dtype), `final_obs` is an object array,
    a dict recurses, and `_key` marks the envs that have the key."""
    for key, value in env_info.items():
        if key == "final_obs":
            arr = vector_infos.get(key, np.full(n, None, dtype=object))
            arr[i] = value
        elif isinstance(value, dict):
            arr = add_info_reference(vector_infos.get(key, {}), value, i, n)
        else:
            if key in vector_infos:
                arr = vector_infos[key]
            elif type(value) in (int, float, bool) or isinstance(value, np.number):
                arr = np.zeros(n, dtype=type(value))
            elif isinstance(value, np.ndarray):
                arr = np.zeros((n, *value.shape), dtype=value.dtype)
            else:
                arr = np.full(n, None, dtype=object)
            arr[i] = value
        mask = vector_infos.get("_" + key, np.zeros(n, dtype=np.bool_))
        mask[i] = True
        vector_infos[key], vector_infos["_" + key] = arr, mask
    return vector_infos


def assert_same_layout(ours: Dict[str, Any], ref: Dict[str, Any]) -> None:
    """Same keys in the same order, same masks, same values; where Gymnasium made an int array from
    an int seen first, ours holds floats that truncate to Gymnasium's values."""
    assert list(ours) == list(ref)
    for k, r in ref.items():
        o = ours[k]
        if isinstance(r, dict):
            assert_same_layout(o, r)
        elif k == "final_obs":
            assert o.dtype == object and [x is None for x in o] == [x is None for x in r]
        elif o.dtype == r.dtype:
            np.testing.assert_array_equal(o, r)
        else:
            assert r.dtype.kind in "iu" and o.dtype.kind == "f", (k, o.dtype, r.dtype)
            np.testing.assert_array_equal(o.astype(r.dtype), r)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_infos_laid_out_as_gymnasium(address: str, mode: str) -> None:
    v = make(address, mode)
    rng = np.random.default_rng(5)
    seen_final = False
    try:
        _, mask, per_env = v._reset_lists()
        ref: Dict[str, Any] = {}
        for i, info in enumerate(per_env):
            add_info_reference(ref, info, i, N)
        assert_same_layout(batch_infos(per_env, N), ref)
        for _ in range(150):
            *_, per_env = v._step_lists(_pick(v.action_masks(), rng))
            ref = {}
            for i, info in enumerate(per_env):
                add_info_reference(ref, info, i, N)
            assert_same_layout(batch_infos(per_env, N), ref)
            seen_final = seen_final or "final_info" in ref or "metrics" in ref
    finally:
        v.close()
    assert seen_final


# -- NEXT_STEP, step by step against single envs -------------------------------------------------


def test_next_step_against_single_envs(venv: Any, singles: List[Any]) -> None:
    """NEXT_STEP: the ending step returns the last observation, reward and info; the next step resets
    that env (its action ignored, even an invalid one), with reward 0 and no flags."""
    vobs, vinfos = venv.reset()
    for i, e in enumerate(singles):
        o, info = e.reset(seed=10 + i)
        assert_obs_row(vobs, i, o)
        assert_info_equal(unbatch(vinfos, i), info)
    rng = np.random.default_rng(1)
    pending = np.zeros(N, dtype=bool)  # envs the next step resets
    boundaries = resets = 0
    for _ in range(600):
        masks = venv.action_masks()
        assert masks[pending].all(), "an env awaiting its reset accepts any action"
        for i, e in enumerate(singles):
            if not pending[i]:
                np.testing.assert_array_equal(masks[i], e.action_masks())
        actions = _pick(masks, rng)
        actions[pending] = 10_000  # ignored
        vobs, vrew, vterm, vtrunc, vinfos = venv.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                o, info = e.reset()  # the next seed of its stream, as the vector env did
                assert vrew[i] == 0.0 and not vterm[i] and not vtrunc[i]
                resets += 1
            else:
                o, r, t, tr, info = e.step(int(actions[i]))
                assert vrew[i] == r and vterm[i] == t and vtrunc[i] == tr
                if t or tr:
                    assert "metrics" in info and "episode" in info
                    boundaries += 1
            assert_obs_row(vobs, i, o)
            assert_info_equal(unbatch(vinfos, i), info)
        assert "final_obs" not in vinfos and "final_info" not in vinfos
        pending = vterm | vtrunc
        if boundaries >= 3 and resets >= 3 and not pending.any():
            break
    assert boundaries >= 3 and resets >= 3, (boundaries, resets)


def test_next_step_when_every_env_ends_together(address: str) -> None:
    """All envs end on the same step (same seed, same actions): the next step is a reset of all."""
    v = make(address, n=2, seeds=[5, 5])
    try:
        v.reset()
        for _ in range(500):
            obs, r, t, tr, infos = v.step(v.action_masks().argmax(axis=1))
            if (t | tr).any():
                break
        assert (t | tr).all() and v.action_masks().all()
        obs, r, t, tr, infos = v.step([0, 0])
        assert (r == 0).all() and not (t | tr).any() and (infos["steps"] == 0).all() and "metrics" not in infos
        obs, r, t, tr, infos = v.step(v.action_masks().argmax(axis=1))  # and then they step again
        assert (infos["steps"] == 1).all()
    finally:
        v.close()


# -- SAME_STEP, step by step against single envs -------------------------------------------------


def test_same_step_against_single_envs(address: str, singles: List[Any]) -> None:
    """SAME_STEP: the ending step resets the env at once; final_obs/final_info hold the end of the
    episode, the top-level infos and the observation row the start of the next."""
    v = make(address, AutoresetMode.SAME_STEP)
    try:
        assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        vobs, _ = v.reset()
        for i, e in enumerate(singles):
            assert_obs_row(vobs, i, e.reset(seed=10 + i)[0])
        rng = np.random.default_rng(1)
        ended = 0
        for _ in range(600):
            masks = v.action_masks()
            np.testing.assert_array_equal(masks, np.stack([e.action_masks() for e in singles]))
            actions = _pick(masks, rng)
            vobs, vrew, vterm, vtrunc, vinfos = v.step(actions)
            done = vterm | vtrunc
            if done.any():
                np.testing.assert_array_equal(vinfos["_final_obs"], done)
                np.testing.assert_array_equal(vinfos["_final_info"], done)
                assert vinfos["final_obs"].dtype == object and vinfos["final_obs"].shape == (N,)
            else:
                assert "final_obs" not in vinfos and "final_info" not in vinfos
            for i, e in enumerate(singles):
                o, r, t, tr, info = e.step(int(actions[i]))
                assert vrew[i] == r and vterm[i] == t and vtrunc[i] == tr
                if t or tr:
                    ended += 1
                    final = vinfos["final_obs"][i]
                    for k in o:
                        np.testing.assert_array_equal(final[k], o[k])
                    assert_info_equal(unbatch(vinfos["final_info"], i), info)
                    assert info["metrics"]["jobs_finished"] == vinfos["final_info"]["metrics"]["jobs_finished"][i]
                    o, info = e.reset()  # the vector env reset it with the next seed of its stream
                elif "final_obs" in vinfos:
                    assert vinfos["final_obs"][i] is None and not vinfos["_final_info"][i]
                assert_obs_row(vobs, i, o)
                top = {k: x for k, x in unbatch(vinfos, i).items() if k not in ("final_obs", "final_info")}
                assert_info_equal(top, info)
            if ended >= 3:
                break
        assert ended >= 3, "too few episodes ended: the autoreset was not exercised"
    finally:
        v.close()


def test_modes_play_the_same_episodes(address: str) -> None:
    """NEXT_STEP and SAME_STEP with the same seeds and policy play the same episodes (the new
    episodes take the same seeds), NEXT_STEP taking one more step per boundary."""
    runs: Dict[str, List[List[Any]]] = {}
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        v = make(address, mode)
        episodes: List[List[Any]] = [[] for _ in range(N)]
        try:
            v.reset()
            for _ in range(400):
                obs, r, t, tr, infos = v.step(v.action_masks().argmax(axis=1))
                fin = infos.get("final_info", infos)
                for i in np.flatnonzero(t | tr):
                    episodes[i].append((fin["episode"]["seed"][i], fin["episode"]["return"][i], fin["metrics"]["mean_bsld"][i]))
        finally:
            v.close()
        runs[mode.value] = episodes
    for i in range(N):
        k = min(len(runs["NextStep"][i]), len(runs["SameStep"][i]))
        assert k >= 2
        assert runs["NextStep"][i][:k] == runs["SameStep"][i][:k]


# -- DISABLED, reset_mask -------------------------------------------------------------------------


def test_disabled_and_reset_mask(address: str) -> None:
    v = make(address, "Disabled", n=2, seeds=[3, 4])
    try:
        assert v.metadata["autoreset_mode"] == AutoresetMode.DISABLED
        obs0, _ = v.reset()
        for _ in range(500):
            obs, r, t, tr, infos = v.step(v.action_masks().argmax(axis=1))
            if (t | tr).any():
                break
        done = t | tr
        assert done.any() and "final_obs" not in infos
        assert not v.action_masks()[done].any()  # an ended env accepts nothing until it is reset
        if not done.all():
            with pytest.raises(BadStateError):
                v.step(v.action_masks().argmax(axis=1))
        before = {k: a.copy() for k, a in obs.items()}
        obs2, infos2 = v.reset(options={"reset_mask": done})
        np.testing.assert_array_equal(infos2["_steps"], done)
        assert (infos2["steps"][done] == 0).all()
        for k in obs2:  # the other rows are unchanged
            np.testing.assert_array_equal(obs2[k][~done], before[k][~done])
        assert v.action_masks()[done].any(axis=1).all()
        v.step(v.action_masks().argmax(axis=1))  # every env steps again
        with pytest.raises(ValueError, match="reset_mask"):
            v.reset(options={"reset_mask": [True, False]})
        with pytest.raises(ValueError, match="at least one"):
            v.reset(options={"reset_mask": np.zeros(2, bool)})
    finally:
        v.close()


# -- seeds, determinism, errors -------------------------------------------------------------------


def test_reset_seeds(venv: Any) -> None:
    a, _ = venv.reset(seed=[1, 2, 3, 4])
    b, _ = venv.reset(seed=1)  # env i gets 1 + i
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    with pytest.raises(ValueError, match="4 seeds"):
        venv.reset(seed=[1, 2])
    x = venv.np_random.random()
    venv.reset(seed=1)
    assert venv.np_random.random() == x  # reset(seed=int) seeds np_random, as in Gymnasium


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_determinism(address: str, mode: str) -> None:
    """The same seeds and actions give the same observations, rewards, flags and infos, boundaries
    included; another seed gives another run."""

    def run(seed: int) -> List[Any]:
        v = make(address, mode, seeds=seed, trajectory={"length": 30, "origin": "random"})  # the seed picks the jobs
        rng = np.random.default_rng(7)
        out: List[Any] = []
        try:
            obs, infos = v.reset()
            out.append((obs, infos))
            for _ in range(120):
                out.append(v.step(_pick(v.action_masks(), rng)))
        finally:
            v.close()
        return out

    a, b, c = run(1), run(1), run(2)
    assert deep_equal(a, b)
    assert not deep_equal(a, c)
    assert not np.array_equal(a[0][0]["jobs"], c[0][0]["jobs"])
    assert any(bool((s[2] | s[3]).any()) for s in a[1:]), "no boundary in the run"


def test_invalid_action_in_a_batch(venv: Any) -> None:
    venv.reset(seed=0)
    masks = venv.action_masks().copy()
    actions = masks.argmax(axis=1)
    bad = actions.copy()
    bad[2] = masks.shape[1] + 3
    with pytest.raises(InvalidActionError) as ei:
        venv.step(bad)
    assert ei.value.index == 2 and ei.value.mask is not None
    np.testing.assert_array_equal(venv.action_masks(), masks)
    venv.step(actions)  # still usable
    venv.step(list(venv.action_masks().argmax(axis=1)))  # a list of numpy ints works too
    with pytest.raises(ValueError, match="4 actions"):
        venv.step([0, 0])


def test_invalid_action_while_an_env_awaits_its_reset(address: str) -> None:
    """NEXT_STEP steps only the running envs; the refused env's index is its index in the vector."""
    v = make(address, n=3, seeds=[5, 6, 7])
    rng = np.random.default_rng(0)
    try:
        v.reset()
        for _ in range(1000):
            obs, r, t, tr, infos = v.step(_pick(v.action_masks(), rng))
            pending = t | tr
            # an env awaiting its reset before a running one: their indices in the sub-batch differ
            if pending.any() and (~pending[np.argmax(pending):]).any():
                break
        else:
            pytest.fail("no step left an env awaiting its reset before a running one")
        j = int(np.argmax(pending)) + int(np.argmax(~pending[np.argmax(pending):]))
        assert pending[:j].any() and not pending[j]
        masks = v.action_masks().copy()
        bad = masks.argmax(axis=1)
        bad[j] = 99
        with pytest.raises(InvalidActionError) as ei:
            v.step(bad)
        assert ei.value.index == j and f"(index {j})" in str(ei.value)
        np.testing.assert_array_equal(v.action_masks(), masks)  # nothing moved, nothing was reset
        obs, r, t, tr, infos = v.step(masks.argmax(axis=1))
        assert (infos["steps"][pending] == 0).all() and (r[pending] == 0).all()
    finally:
        v.close()


def test_autoreset_modes_by_name(address: str) -> None:
    for name, mode in [("SameStep", AutoresetMode.SAME_STEP), ("same_step", AutoresetMode.SAME_STEP), ("next-step", AutoresetMode.NEXT_STEP), ("DISABLED", AutoresetMode.DISABLED)]:
        v = clustergym.make_vec(JOB, 1, small_config(JOB), address=address, autoreset_mode=name)
        assert v.metadata["autoreset_mode"] is mode and v.autoreset_mode is mode
        v.close()
    with pytest.raises(ValueError, match="autoreset mode"):
        clustergym.make_vec(JOB, 1, small_config(JOB), address=address, autoreset_mode="sometimes")
    with pytest.raises(TypeError, match="autoreset_mode"):
        clustergym.make_vec(JOB, 1, small_config(JOB), address=address, autoreset=True)


def test_close_twice(address: str) -> None:
    v = clustergym.make_vec(JOB, 2, small_config(JOB), address=address)
    v.reset()
    v.close()
    v.close()
    with pytest.raises(RuntimeError, match="closed"):
        v.reset()


def test_without_gymnasium_the_light_equivalents(venv: Any) -> None:
    """In this interpreter gymnasium may be absent: then the light classes stand in (the
    gymnasium-present path is tested with a stand-in package in test_gymnasium_path.py)."""
    if clustergym.GYMNASIUM:
        pytest.skip("gymnasium is installed")
    from clustergym import spaces, vector

    assert AutoresetMode is vector._AutoresetMode and [m.value for m in AutoresetMode] == ["NextStep", "SameStep", "Disabled"]
    assert type(venv).__mro__[-1] is object and isinstance(venv.single_observation_space, spaces.Dict)
    assert isinstance(venv.action_space, spaces.MultiDiscrete) and venv.unwrapped is venv and venv.render() is None
    venv.reset(seed=3)
    assert isinstance(venv.np_random, np.random.Generator)
