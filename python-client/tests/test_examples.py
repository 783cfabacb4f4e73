"""The examples run, the numpy policy-gradient agent improves its return, bench prints one JSON line,
the PyTorch PPO (when torch is importable) prints a finite, deterministic comparison with FCFS."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from typing import Any, Dict, List

import pytest

from conftest import PKG_ROOT

EXAMPLES = PKG_ROOT / "examples"


def _run(script: str, args: List[str], timeout: float = 300) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PKG_ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode == 0, f"{script} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r.stdout


def _last_json(out: str) -> Dict[str, Any]:
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])


def test_reinforce_improves_its_return(address: str) -> None:
    out = _run("reinforce_numpy.py", ["--address", address, "--updates", "25", "--quiet"])
    r = _last_json(out)
    # -mean bsld on the same held-out episodes, same sampling seed: clearly better after training
    assert r["eval_return_after"] > r["eval_return_before"] + 0.1 * abs(r["eval_return_before"]), r


def test_reinforce_is_deterministic(address: str) -> None:
    a = _last_json(_run("reinforce_numpy.py", ["--address", address, "--updates", "2", "--quiet"]))
    b = _last_json(_run("reinforce_numpy.py", ["--address", address, "--updates", "2", "--quiet"]))
    for k in ("eval_return_before", "eval_return_after", "eval_return_after_greedy"):
        assert a[k] == b[k]


def test_fcfs_agent(address: str) -> None:
    out = json.loads(_run("fcfs_agent.py", ["--address", address, "--k", "8", "--length", "30"]))
    assert out["metrics"]["jobs_finished"] == 30


def test_random_masked_agent(address: str) -> None:
    for env_id in ("clustergym/Job-v0", "clustergym/JobNode-v0", "clustergym/PolicyPair-v0"):
        out = _run("random_masked_agent.py", ["--address", address, "--env", env_id, "--episodes", "1", "--length", "20"])
        assert json.loads(out.splitlines()[-1])["steps"] > 0


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_agent(address: str, mode: str) -> None:
    out = _run("vector_agent.py", ["--address", address, "--envs", "3", "--length", "12", "--episodes", "5", "--autoreset-mode", mode])
    lines = [json.loads(l) for l in out.strip().splitlines()]
    *episodes, summary = lines
    assert summary["episodes"] == len(episodes) >= 5 and summary["autoreset_mode"] == mode
    for e in episodes:  # the return summed over the steps is the env's own (0 on NEXT_STEP reset steps)
        assert e["return"] == pytest.approx(e["episode_return"]) and e["mean_bsld"] >= 1
    for i in range(3):  # env i's episodes take the seeds of its stream, in order
        seeds = [e["seed"] for e in episodes if e["env"] == i]
        assert len(seeds) == len(set(seeds))


@pytest.mark.parametrize("envs,mode", [(1, "NextStep"), (4, "NextStep"), (4, "SameStep")])
def test_bench_prints_one_json_line(address: str, envs: int, mode: str) -> None:
    out = _run("bench.py", ["--address", address, "--k", "16", "--envs", str(envs), "--steps", "400", "--warmup", "40", "--autoreset-mode", mode])
    lines = out.strip().splitlines()
    assert len(lines) == 1
    r = json.loads(lines[0])
    assert set(r) == {"envs", "steps", "seconds", "steps_per_s"} and r["envs"] == envs and r["steps"] == 400 and r["steps_per_s"] > 0


def test_bench_wire_runs_bridge_and_raw_side_by_side() -> None:
    out = _run("bench_wire.py", ["--k", "16", "--envs", "1,4", "--seconds", "0.4", "--rounds", "2"])
    r = _last_json(out)
    assert [x["envs"] for x in r["results"]] == [1, 4]
    assert [x["op"] for x in r["results"]] == ["step", "step_batch"]
    for x in r["results"]:
        assert x["reply_bytes"] > x["request_bytes"] > 0
        assert x["bridge_steps_per_s"] > 0 and x["raw_steps_per_s"] > 0
        assert 0 < x["bridge_over_raw"] == pytest.approx(x["bridge_round_trips_per_s"] / x["raw_round_trips_per_s"], rel=0.01)
        t = x["us_per_trip"]
        assert t["server_env"] > 0 and t["server_bridge"] > 0 and t["total"] > t["server_env"] + t["server_bridge"]
        # raw_sim: the raw ping-pong whose server steps its own copies of the envs (no bridge code)
        assert x["raw_sim_round_trips_per_s"] > 0 and t["raw_sim_total"] > 0
        assert x["raw_sim_over_raw"] == pytest.approx(x["raw_sim_round_trips_per_s"] / x["raw_round_trips_per_s"], rel=0.01)
        assert x["bridge_over_raw_sim"] == pytest.approx(x["bridge_round_trips_per_s"] / x["raw_sim_round_trips_per_s"], rel=0.01)


def test_ppo_torch_short_run_is_well_formed_and_deterministic(address: str) -> None:
    pytest.importorskip("torch", reason="examples/ppo_torch.py needs PyTorch (Debian: apt-get install python3-torch)")
    # 2 updates of 4 envs x 128 steps on the demo env, then greedy PPO and FCFS on 6 held-out episodes
    args = ["--address", address, "--total-steps", "1024", "--num-envs", "4", "--num-steps", "128", "--eval-episodes", "6", "--quiet"]
    out = _run("ppo_torch.py", args, timeout=120)
    lines = out.strip().splitlines()
    assert len(lines) == 1, out  # --quiet: only the JSON line
    a = json.loads(lines[0])
    assert {"ppo_mean_bsld", "fcfs_mean_bsld", "ppo_wins", "eval_episodes", "steps", "seconds"} <= set(a), a
    assert a["steps"] == 1024 and a["updates"] == 2 and a["eval_episodes"] == 6 and 0 <= a["ppo_wins"] <= 6
    for k in ("ppo_mean_bsld", "fcfs_mean_bsld", "seconds"):
        assert isinstance(a[k], (int, float)) and math.isfinite(a[k]), a
    assert a["ppo_mean_bsld"] >= 1 and a["fcfs_mean_bsld"] >= 1  # bounded slowdowns are at least 1
    # the same arguments: the same training and evaluation (torch seed, env seeds, one torch thread)
    b = _last_json(_run("ppo_torch.py", args, timeout=120))
    for k in ("ppo_mean_bsld", "fcfs_mean_bsld", "ppo_wins", "steps", "updates"):
        assert a[k] == b[k], (k, a, b)
    # PPO < FCFS is not asserted: short runs do not beat FCFS reliably (4096 steps, training seeds 1-3 on 8
    # held-out episodes: 15.8, 17.1 and 24.5 against 17.7); the default 60k steps do (11.1 against 22.4)


def _importable(*mods: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in mods)


SB3_EXAMPLES = [("sb3_maskable_ppo.py", ("sb3_contrib",)), ("sb3_ppo.py", ("stable_baselines3", "gymnasium"))]


@pytest.mark.parametrize("script,mods", SB3_EXAMPLES)
def test_sb3_examples_train(address: str, script: str, mods: Any) -> None:
    if not _importable(*mods):
        pytest.skip(f"{script} needs {', '.join(mods)} (not importable here; the README has a run against the real libraries, and test_sb3.py / test_gym_contract.py test the same env properties without them)")
    out = _last_json(_run(script, ["--address", address, "--steps", "256", "--envs", "2", "--length", "12", "--eval-episodes", "1"]))
    assert out["steps"] >= 256 and out["steps_per_s"] > 0 and math.isfinite(out["eval_mean_bsld_trained"])


@pytest.mark.parametrize("script,mods", SB3_EXAMPLES + [("rllib_ppo.py", ("ray",)), ("bench_schedgym.py", ("sb3_contrib", "gymnasium"))])
def test_optional_library_examples_say_what_is_missing(script: str, mods: Any) -> None:
    if _importable(*mods):
        pytest.skip(f"{', '.join(mods)} importable: test_sb3_examples_train runs {script}")
    env = dict(os.environ, PYTHONPATH=str(PKG_ROOT))
    r = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 3 and "skipped:" in r.stderr and "pip install" in r.stderr


def test_bench_fleet_measures_one_learner_against_several_servers() -> None:
    out = _last_json(_run("bench_fleet.py", ["--servers", "1,2", "--envs", "4", "--seconds", "0.3", "--rounds", "2", "--env-id", "clustergym/Job-v0"]))
    assert [s["servers"] for s in out["servers"]] == [1, 2]
    for s in out["servers"]:
        assert s["steps_per_s_min"] > 0 and s["steps_per_s_min"] <= s["steps_per_s_median"] <= s["steps_per_s_max"]
        assert s["server_max_us"] <= s["servers_sum_us"] and s["learner_cpu_us"] > 0
    assert out["servers"][0]["speedup_over_first"] == 1.0
    # with one server, that server does all of a step's serving
    assert out["servers"][0]["server_max_us"] == out["servers"][0]["servers_sum_us"]
