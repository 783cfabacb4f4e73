#!/usr/bin/env python3
"""sb3-contrib's MaskablePPO on RLScheduler's SchedGym against clustergym's Job-v0, side by side.

    python3 examples/bench_schedgym.py --schedgym ../ext/deep-batch-scheduler --steps 8192

RLScheduler (Zhang et al., SC'20; github.com/DIR-LAB/deep-batch-scheduler) ships its scheduling
environment, ``HPCSimPickJobs.HPCEnv`` ("SchedGym"), as a Python module written for the old ``gym``
API (and importing TensorFlow 1 for its own PPO). This script imports it from ``--schedgym`` (or
``$SCHEDGYM_DIR``), never from this repository, with two stand-ins put into ``sys.modules`` first:
a ``gym`` made of Gymnasium's ``Env``/``spaces`` plus the old ``gym.utils.seeding.np_random`` (a
``RandomState``, whose ``randint`` SchedGym calls), and an empty ``tensorflow`` (SchedGym only uses
it in helpers that are not called). An adapter (:func:`schedgym_env`) gives it Gymnasium's 5-tuple API and the
action mask RLScheduler's own PPO computes from the observation (a slot is invalid when its 8
features are the padding ``[0, 1, 1, 1, 1, 1, 1, 0]`` or all ones).

The same MaskablePPO settings on both (MlpPolicy, flat vector observations, ``lublin_256.swf``,
K = 128 visible jobs, 256-job trajectories, n_steps, batch size, epochs). clustergym runs with each
of ``--observations``: ``jobs`` (its job window and 5 global values: 1,029 values, SchedGym's shape
of 1,024) and ``flat`` (also 7 values for each of the 256 nodes: 2,821), since the observation's size
sets the policy network's first layer and so the learner's own speed. On 1 env (SB3's ``DummyVecEnv``
of SchedGym against ``make_sb3_vec("clustergym/Job-v0", 1)``) and on 8 envs (``DummyVecEnv`` of 8
SchedGyms against ``make_sb3_vec(..., 8)``: one ``step_batch`` message a step). The runs alternate
in ``--rounds`` slices, SchedGym then, per observation, clustergym and a zero-cost env of its spaces (the
learner's own limit: MaskablePPO with an env that costs nothing), each slice a fresh model (the
machine's load changes under all alike). Also the envs stepped alone (random valid actions, no learning), in
alternating slices too. Prints ONE JSON line (steps/s of each and the ratios clustergym/SchedGym).

Exits with status 3 and a ``skipped:`` line when sb3-contrib, gymnasium or the SchedGym sources
or trace are absent.
"""
from __future__ import annotations

import os

# One BLAS/OpenMP thread, set before numpy and torch load their BLAS, for both sides alike: on a
# machine with few cores, idle BLAS threads spin-wait after each matrix product and starve any other
# process, here the clustergym server (measured on 2 cores: MaskablePPO, 8 envs, 2,048 steps took
# 5.4 s with the default threads, 3.1 s with one). SchedGym runs in this process and gains too.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

import numpy as np  # noqa: E402

import _common  # noqa: F401, E402
import clustergym  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def skip(why: str) -> None:
    print(f"skipped: {why}", file=sys.stderr)
    sys.exit(3)


def import_schedgym(folder: Path) -> Any:
    """``HPCSimPickJobs`` from ``folder``, with the ``gym`` and ``tensorflow`` stand-ins."""
    import gymnasium

    gym = types.ModuleType("gym")
    gym.Env = gymnasium.Env  # type: ignore[attr-defined]
    gym.spaces = gymnasium.spaces  # type: ignore[attr-defined]
    utils = types.ModuleType("gym.utils")
    seeding = types.ModuleType("gym.utils.seeding")

    def np_random(seed: Any = None) -> Any:
        seed = int(np.random.SeedSequence(seed).generate_state(1)[0]) if seed is None else int(seed)
        return np.random.RandomState(seed), seed

    seeding.np_random = np_random  # type: ignore[attr-defined]
    utils.seeding = seeding  # type: ignore[attr-defined]
    gym.utils = utils  # type: ignore[attr-defined]
    sys.modules.update({"gym": gym, "gym.spaces": gymnasium.spaces, "gym.utils": utils, "gym.utils.seeding": seeding})
    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    sys.path.insert(0, str(folder))
    import HPCSimPickJobs  # type: ignore[import-not-found]

    return HPCSimPickJobs



def schedgym_env(mod: Any, trace: str, seed: int) -> Any:
    import gymnasium

    class Adapter(gymnasium.Env):  # type: ignore[misc]
        metadata = {"render_modes": []}

        def __init__(self) -> None:
            import contextlib
            import io

            with contextlib.redirect_stdout(io.StringIO()):  # SchedGym prints while loading
                self.env = mod.HPCEnv(shuffle=False, backfil=False, skip=False, job_score_type=0, batch_job_slice=0, build_sjf=False)
                self.env.seed(seed)
                self.env.my_init(workload_file=trace)
            self.action_space = self.env.action_space
            self.observation_space = gymnasium.spaces.Box(0.0, 1.0, self.env.observation_space.shape, np.float32)
            self.k, self.f = mod.MAX_QUEUE_SIZE, mod.JOB_FEATURES
            pad = np.array([0] + [1] * (self.f - 2) + [0], dtype=np.float32)
            self._pad, self._ones = pad, np.ones(self.f, dtype=np.float32)
            self._obs = np.zeros(self.observation_space.shape, np.float32)

        def _set(self, o: Any) -> np.ndarray:
            self._obs = np.asarray(o, dtype=np.float32)
            return self._obs

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            if seed is not None:
                self.env.seed(seed)
            o, _ = self.env.reset()
            return self._set(o), {}

        def step(self, a: Any) -> Any:
            o, r, d, *_ = self.env.step(int(a))
            if o is None:  # the end: SchedGym returns no observation
                return self._obs, float(r), True, False, {}
            return self._set(o), float(r), bool(d), False, {}

        def action_masks(self) -> np.ndarray:
            rows = self._obs.reshape(self.k, self.f)
            return ~((rows == self._pad).all(axis=1) | (rows == self._ones).all(axis=1))

    return Adapter()


def zero_cost_env(observation_space: Any, action_space: Any, length: int) -> Any:
    """The learner's own limit: an env of the given spaces that costs nothing. ``step`` returns one
    preallocated observation and reward 0, ends an episode every ``length`` steps, and every action is
    valid. The same training on it measures MaskablePPO alone (its rollout, its updates, SB3's
    ``DummyVecEnv``), so ``x_over_zero_cost`` says how much of the learner's limit an env keeps."""
    import gymnasium

    class ZeroCost(gymnasium.Env):  # type: ignore[misc]
        metadata = {"render_modes": []}

        def __init__(self) -> None:
            self.observation_space, self.action_space = observation_space, action_space
            self._obs = np.zeros(observation_space.shape, observation_space.dtype)
            self._mask = np.ones(action_space.n, dtype=bool)
            self._t = 0

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            self._t = 0
            return self._obs, {}

        def step(self, a: Any) -> Any:
            self._t += 1
            return self._obs, 0.0, self._t >= length, False, {}

        def action_masks(self) -> np.ndarray:
            return self._mask

    return ZeroCost()


def train(make_venv: Any, steps: int, seed: int, n_steps: int) -> Dict[str, Any]:
    from sb3_contrib import MaskablePPO

    venv = make_venv()
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=256, n_epochs=4, seed=seed, verbose=0, device="cpu")
        t0 = time.perf_counter()
        model.learn(total_timesteps=steps)
        dt = time.perf_counter() - t0
    finally:
        venv.close()
    return {"steps": int(model.num_timesteps), "seconds": dt}


def step_alone(env: Any, steps: int, seed: int) -> float:
    """Seconds for ``steps`` random valid steps (resets included), after as many untimed ones (a
    first episode warms a server's JIT and caches; SchedGym gets the same)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        m = np.asarray(env.action_masks())
        _, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if t or tr:
            env.reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        m = np.asarray(env.action_masks())
        _, _, t, tr, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if t or tr:
            env.reset()
    return time.perf_counter() - t0


def total(parts: List[Dict[str, Any]]) -> Dict[str, Any]:
    steps, seconds = sum(p["steps"] for p in parts), sum(p["seconds"] for p in parts)
    return {"steps": steps, "seconds": round(seconds, 2), "steps_per_s": round(steps / seconds, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--schedgym", default=os.environ.get("SCHEDGYM_DIR", str(REPO.parent / "ext" / "deep-batch-scheduler")), help="a checkout of DIR-LAB/deep-batch-scheduler")
    p.add_argument("--trace", default=None, help="lublin_256.swf (default: the checkout's data/lublin_256.swf)")
    p.add_argument("--steps", type=int, default=8192, help="MaskablePPO training steps per run")
    p.add_argument("--alone-steps", type=int, default=3000, help="steps of each env stepped alone")
    p.add_argument("--envs", default="1,8")
    p.add_argument("--rounds", type=int, default=4, help="alternating slices per side (each a fresh model of --steps / --rounds steps)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--address", help="a running clustergym serve (default: a local server)")
    p.add_argument("--observations", default="jobs,flat",
                   help="clustergym's observations to run (comma-separated): jobs (the job window and 5 global values, 1,029 values at K 128, "
                        "the size of SchedGym's 1,024) and flat (also 7 values per node: 2,821 on lublin_256's 256 nodes)")
    a = p.parse_args()
    try:
        import gymnasium  # noqa: F401
        import sb3_contrib  # noqa: F401
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as e:
        skip(f"needs gymnasium, stable-baselines3 and sb3-contrib ({e}); pip install -e 'python-client[sb3]'")
    folder = Path(a.schedgym)
    trace = Path(a.trace) if a.trace else folder / "data" / "lublin_256.swf"
    if not (folder / "HPCSimPickJobs.py").is_file():
        skip(f"no SchedGym sources at {folder} (clone github.com/DIR-LAB/deep-batch-scheduler; --schedgym or $SCHEDGYM_DIR)")
    if not trace.is_file() or trace.stat().st_size < 1000:
        skip(f"no lublin_256 trace at {trace}")
    mod = import_schedgym(folder)
    from clustergym.sb3 import make_sb3_vec

    observations = [o.strip() for o in a.observations.split(",") if o.strip()]
    configs = {o: {"workload": str(trace.resolve()), "k": mod.MAX_QUEUE_SIZE, "trajectory": {"length": mod.JOB_SEQUENCE_SIZE, "origin": "random"},
                   "observation": o, "unfit": "reserve", "reward": "bsld"} for o in observations}
    server = None
    address = a.address
    if address is None:
        server = clustergym.LocalServer(data_roots=[str(trace.resolve().parent)])
        address = server.address
    out: Dict[str, Any] = {"settings": {"algo": "MaskablePPO MlpPolicy", "trace": trace.name, "k": mod.MAX_QUEUE_SIZE, "trajectory": mod.JOB_SEQUENCE_SIZE,
                                        "steps": a.steps, "n_steps_per_env": 256, "batch_size": 256, "n_epochs": 4}}
    try:
        import torch

        torch.set_num_threads(1)
        # stepped alone, alternating slices
        sg = schedgym_env(mod, str(trace), a.seed)
        cgs = {o: clustergym.make("clustergym/Job-v0", configs[o], address=address) for o in observations}
        spaces = {o: (e.observation_space, e.action_space) for o, e in cgs.items()}
        out["observation_size"] = {"schedgym": int(np.prod(sg.observation_space.shape)), **{o: int(np.prod(sp[0].shape)) for o, sp in spaces.items()}}
        ts = 0.0
        tc = {o: 0.0 for o in observations}
        per = max(1, a.alone_steps // a.rounds)
        for r in range(a.rounds):
            ts += step_alone(sg, per, a.seed + r)
            for o, e in cgs.items():
                tc[o] += step_alone(e, per, a.seed + r)
        for e in cgs.values():
            e.close()
        out["alone_steps_per_s"] = {"schedgym": round(per * a.rounds / ts, 1), **{f"clustergym_{o}": round(per * a.rounds / t, 1) for o, t in tc.items()}}
        runs: List[Dict[str, Any]] = []
        for n in [int(x) for x in a.envs.split(",")]:
            sp: List[Dict[str, Any]] = []
            cp: Dict[str, List[Dict[str, Any]]] = {o: [] for o in observations}
            zp: Dict[str, List[Dict[str, Any]]] = {o: [] for o in observations}
            for r in range(a.rounds):
                sp.append(train(lambda: DummyVecEnv([lambda i=i: schedgym_env(mod, str(trace), a.seed + r * n + i) for i in range(n)]), a.steps // a.rounds, a.seed + r, 256))
                for o in observations:
                    cp[o].append(train(lambda: make_sb3_vec("clustergym/Job-v0", n, configs[o], address, seeds=a.seed + r * n), a.steps // a.rounds, a.seed + r, 256))
                    zp[o].append(train(lambda: DummyVecEnv([lambda: zero_cost_env(*spaces[o], mod.JOB_SEQUENCE_SIZE) for _ in range(n)]), a.steps // a.rounds, a.seed + r, 256))
            s = total(sp)
            for o in observations:
                c, z = total(cp[o]), total(zp[o])
                runs.append({
                    "envs": n, "observation": o, "schedgym": s, "clustergym": c, "zero_cost": z,
                    "clustergym_over_schedgym": round(c["steps_per_s"] / s["steps_per_s"], 2),
                    # the most any env of these spaces could reach against SchedGym with this learner, and what clustergym keeps of it
                    "zero_cost_over_schedgym": round(z["steps_per_s"] / s["steps_per_s"], 2),
                    "clustergym_over_zero_cost": round(c["steps_per_s"] / z["steps_per_s"], 2),
                })
        out["training"] = runs
        out["load_average"] = list(os.getloadavg())
    finally:
        if server is not None:
            server.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
