#!/usr/bin/env python3
"""PPO with action masks in PyTorch, one file in the style of CleanRL's ppo.py, on the demo env.

Environment: the demo's (``data/configs/ppo-demo.json``): ``clustergym/Job-v0`` on the
heterogeneous ``hetero-20`` platform (20 nodes, 496 cores), a fresh Lublin-Feitelson trajectory of
256 jobs per episode, queue window K = 64, ``unfit: "reserve"`` with EASY backfilling (the agent
picks the job to commit next; a job that does not fit is reserved and the others are backfilled
around it; there is no ``wait``), reward ``-mean bsld`` at the end of the episode.

Network (the DESIGN's / RLScheduler's "kernel"): ONE small MLP, shared by the K job slots, scores
each visible job from its row (the job's 8 features and the 5 global ones), giving one logit per
slot; a ``wait`` logit and, in a separate network, the critic read the mean of the row embeddings
over the slots that hold a job. Invalid actions get a logit of -1e8 before the Categorical, so they
are never sampled and carry no gradient.

Training: ``make_vec`` over the bridge (SAME_STEP autoreset), GAE (gamma = lambda = 1 by default:
the reward comes at the episode's end), clipped surrogate, clipped value loss, entropy bonus,
global grad-norm clipping, Adam with linear LR annealing. Rewards are divided by the running RMS
of the episode returns (bsld varies a lot between workloads). Evaluation: the greedy policy and
FCFS (the valid visible job that waited longest, i.e. the head of the queue; with the env's EASY
backfilling this is the batch scheduler's FCFS+EASY) on the same held-out seeds.
Deterministic: ``torch.manual_seed`` and seeded envs, one torch thread; the same arguments print
the same numbers (except ``seconds``). Prints one JSON line at the end:
``{"ppo_mean_bsld", "fcfs_mean_bsld", "steps", "seconds", ...}``.

    python3 examples/ppo_torch.py                       # default budget (see Args)
    python3 examples/ppo_torch.py --total-steps 8192    # a short run
    python3 examples/ppo_torch.py --address tcp://127.0.0.1:5555 --platform /abs/path/hetero-20.json
    python3 examples/ppo_torch.py --addresses tcp://node1:5555,tcp://node2:5555   # envs over several servers

With ``--addresses`` (or ``$CLUSTERGYM_ADDRESSES``, as deploy/slurm/fleet.sbatch sets it) the vector
env spreads over several servers (clustergym.fleet), each server stepping its envs at the same time;
the run is the same as on one server, number for number: ``first_episodes`` in the JSON line (the
first training episodes that ended: step, env, return) says so at a glance.
"""
import argparse
import dataclasses
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical

import _common  # noqa: F401
import clustergym

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Args:
    address: Optional[str] = None
    """endpoint of a running `clustergym serve` (default: start a local server)"""
    addresses: str = os.environ.get("CLUSTERGYM_ADDRESSES", "")
    """comma-separated endpoints of several running servers: the envs spread over them (default $CLUSTERGYM_ADDRESSES)"""
    platform: str = os.path.join(REPO, "data", "platforms", "hetero-20.json")
    """platform file, as a path the server can read (absolute: the server's working directory may differ)"""
    jobs: int = 256
    """jobs per episode (the demo: 256)"""
    seed: int = 1
    """torch seed, and the training envs' seeds"""
    total_steps: int = 60_000
    """env steps of training (all envs together)"""
    num_envs: int = 8
    """envs of the vector env"""
    num_steps: int = 128
    """steps per env per rollout (rollout = num_envs * num_steps)"""
    learning_rate: float = 3e-3
    anneal_lr: bool = True
    """linear decay of the learning rate to 0"""
    gamma: float = 1.0
    """no discount: the reward, -mean bsld, comes at the end of the episode"""
    gae_lambda: float = 1.0
    """1: advantage = return - value (with RLScheduler's 0.97, training seed 2 did not beat FCFS in 60k steps)"""
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    eval_episodes: int = 20
    """held-out episodes of the final comparison (the same for PPO and FCFS)"""
    eval_seed: int = 1 << 32
    """the held-out episodes take seeds eval_seed, eval_seed + 1, ... (training seeds are far below)"""
    threads: int = 1
    """torch threads (1: deterministic and light)"""
    quiet: bool = False
    """no progress lines, only the final JSON line"""
    save: str = ""
    """save the trained agent (torch state_dict) to this file: `examples/leaderboard_play.py --policy ppo_torch:FILE` puts it on the leaderboard"""


def parse_args() -> Args:
    """An argparse parser built from the fields of Args (``--total-steps 8192``, ``--no-anneal-lr``)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if isinstance(f.default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument(flag, type=type(f.default) if f.default is not None else str, default=f.default)
    return Args(**vars(p.parse_args()))


def where(args: Args) -> Dict[str, Any]:
    """make_vec's server arguments: several servers, one, or a local one."""
    many = [a for a in args.addresses.split(",") if a.strip()]
    return {"addresses": many} if many else {"address": args.address}


def env_config(args: Args) -> Dict[str, Any]:
    """The env config of data/configs/ppo-demo.json, with the platform as a path the server reads."""
    return {
        "platform": args.platform,
        "generator": {"model": "lublin", "jobs": args.jobs, "maxProcs": 256, "params": {"aarr": 9}, "reqTimeFactor": {"min": 1, "max": 3}},
        "k": 64,
        "unfit": "reserve",
        "backfilling": "easy",
        "reward": "bsld",
    }


def layer(i: int, o: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    """CleanRL's layer_init: orthogonal weights, zero bias."""
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    """Actor: a kernel MLP per job row -> one logit per slot; pooled rows -> the wait logit.
    Critic: its own kernel MLP per row, mean over the present rows (+ global) -> value."""

    def __init__(self, fj: int, fg: int) -> None:
        super().__init__()
        row = fj + fg
        self.actor_rows = nn.Sequential(layer(row, 32), nn.Tanh(), layer(32, 16), nn.Tanh(), layer(16, 8), nn.Tanh())
        self.actor_slot = layer(8, 1, std=0.01)  # near-uniform policy at the start (CleanRL)
        self.actor_wait = layer(8 + fg, 1, std=0.01)
        self.critic_rows = nn.Sequential(layer(row, 32), nn.Tanh(), layer(32, 32), nn.Tanh())
        self.critic_head = nn.Sequential(layer(32 + fg, 64), nn.Tanh(), layer(64, 1, std=1.0))

    @staticmethod
    def rows(jobs: torch.Tensor, glob: torch.Tensor) -> torch.Tensor:
        """[B, K, fj] jobs and [B, fg] global -> [B, K, fj + fg] rows (the global features on every row)."""
        return torch.cat([jobs, glob.unsqueeze(1).expand(-1, jobs.shape[1], -1)], dim=-1)

    @staticmethod
    def pool(h: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        """Mean of the row embeddings over the slots that hold a job (0 for an empty window)."""
        return (h * present.unsqueeze(-1)).sum(1) / present.sum(1, keepdim=True).clamp(min=1.0)

    def get_value(self, jobs: torch.Tensor, glob: torch.Tensor) -> torch.Tensor:
        h = self.critic_rows(self.rows(jobs, glob))
        return self.critic_head(torch.cat([self.pool(h, jobs[..., 0]), glob], dim=-1)).squeeze(-1)

    def logits(self, jobs: torch.Tensor, glob: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.actor_rows(self.rows(jobs, glob))  # [B, K, 8]: the same kernel on every slot
        slot = self.actor_slot(h).squeeze(-1)  # [B, K]
        wait = self.actor_wait(torch.cat([self.pool(h, jobs[..., 0]), glob], dim=-1))  # [B, 1]
        logits = torch.cat([slot, wait], dim=-1)  # actions 0..K-1 = slots, K = wait
        return torch.where(mask, logits, torch.full_like(logits, -1e8))  # action mask

    def get_action_and_value(self, jobs, glob, mask, action=None, generator=None):
        dist = Categorical(logits=self.logits(jobs, glob, mask))
        if action is None:
            action = torch.multinomial(dist.probs, 1, generator=generator).squeeze(-1)
        return action, dist.log_prob(action), dist.entropy(), self.get_value(jobs, glob)


def tensors(obs: Dict[str, np.ndarray], masks: np.ndarray):
    """Writable torch copies of a batch of observations (read-only numpy arrays) and masks."""
    return torch.tensor(obs["jobs"]), torch.tensor(obs["global"]), torch.tensor(masks)


def fcfs_actions(obs: Dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
    """FCFS: the valid visible job with the largest wait feature (first slot on ties: the window is in
    arrival order, so slot 0, the head); wait when no job is valid."""
    k = obs["jobs"].shape[1]
    score = np.where(masks[:, :k], obs["jobs"][:, :, 1], -1.0)
    return np.where(masks[:, :k].any(1), score.argmax(1), k)


def evaluate(args: Args, policy, seeds: List[int]) -> List[float]:
    """Mean bsld of one episode per seed (one env per seed, stepped together); policy(obs, masks) -> actions."""
    with clustergym.make_vec("clustergym/Job-v0", len(seeds), env_config(args), autoreset_mode="SameStep", **where(args)) as venv:
        obs, _ = venv.reset(seed=seeds)
        bsld: List[Optional[float]] = [None] * len(seeds)
        while any(b is None for b in bsld):
            obs, _, term, trunc, infos = venv.step(policy(obs, venv.action_masks()))
            for i in np.flatnonzero(term | trunc):
                if bsld[i] is None:  # the first episode of env i is the one of seeds[i]
                    bsld[i] = float(infos["final_info"]["metrics"]["mean_bsld"][i])
    return [float(b) for b in bsld]


def main() -> None:
    args = parse_args()
    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(args.seed)  # action sampling
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_steps // batch_size)

    # env i plays seeds base_i, base_i + 1, ... (its own stream); bases 100,000 apart so envs never share an episode
    seeds = [args.seed * 10_000_000 + i * 100_000 for i in range(args.num_envs)]
    envs = clustergym.make_vec("clustergym/Job-v0", args.num_envs, env_config(args), seeds=seeds, autoreset_mode="SameStep", **where(args))
    servers = 1 if envs.fleet is None else len(envs.fleet.parts)
    log(f"{args.num_envs} envs on {servers} server(s): {envs!r}")
    K, fj = envs.single_observation_space["jobs"].shape
    fg = envs.single_observation_space["global"].shape[0]
    A = envs.single_action_space.n
    agent = Agent(fj, fg)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # rollout storage
    S, N = args.num_steps, args.num_envs
    jobs_b = torch.zeros((S, N, K, fj))
    glob_b = torch.zeros((S, N, fg))
    masks_b = torch.zeros((S, N, A), dtype=torch.bool)
    actions = torch.zeros((S, N), dtype=torch.long)
    logprobs = torch.zeros((S, N))
    rewards = torch.zeros((S, N))
    dones = torch.zeros((S, N))
    values = torch.zeros((S, N))
    ret_sq, ret_n = 0.0, 0  # running mean of squared episode returns (reward scale)
    recent: List[float] = []  # mean bsld of the training episodes of the last update
    first_episodes: List[List[Any]] = []  # the first training episodes that ended: [step, env, return]

    global_step = 0
    obs, _ = envs.reset()
    next_jobs, next_glob, next_mask = tensors(obs, envs.action_masks())
    next_done = torch.zeros(N)
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate

        # 1. rollout: num_steps steps of every env
        recent.clear()
        for step in range(S):
            global_step += N
            jobs_b[step], glob_b[step], masks_b[step], dones[step] = next_jobs, next_glob, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_jobs, next_glob, next_mask, generator=gen)
            values[step], actions[step], logprobs[step] = value, action, logprob
            # SAME_STEP: an env whose episode ended is reset in this step; obs/masks are the new episode's
            obs, reward, term, trunc, infos = envs.step(action.numpy())
            rewards[step] = torch.tensor(reward, dtype=torch.float32)
            next_jobs, next_glob, next_mask = tensors(obs, envs.action_masks())
            ended = term | trunc
            next_done = torch.as_tensor(ended, dtype=torch.float32)
            for i in np.flatnonzero(ended):
                ep_return = float(infos["final_info"]["episode"]["return"][i])
                if len(first_episodes) < 8:
                    first_episodes.append([global_step, int(i), ep_return])
                ret_sq, ret_n = ret_sq + ep_return**2, ret_n + 1
                recent.append(float(infos["final_info"]["metrics"]["mean_bsld"][i]))

        # 2. advantages: rewards divided by the RMS of the episode returns so far, then GAE
        scale = 1.0 / (np.sqrt(ret_sq / ret_n) + 1e-8) if ret_n else 1.0
        scaled = rewards * scale
        with torch.no_grad():
            next_value = agent.get_value(next_jobs, next_glob)
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(N)
            for t in reversed(range(S)):
                if t == S - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = scaled[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        # 3. flatten the batch
        b_jobs, b_glob, b_masks = jobs_b.reshape(-1, K, fj), glob_b.reshape(-1, fg), masks_b.reshape(-1, A)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)

        # 4. optimise the policy and value networks: update_epochs epochs of num_minibatches minibatches
        clipfracs = []
        for epoch in range(args.update_epochs):
            b_inds = torch.randperm(batch_size, generator=gen)
            for start in range(0, batch_size, minibatch_size):
                mb = b_inds[start : start + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_jobs[mb], b_glob[mb], b_masks[mb], b_actions[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_adv = b_advantages[mb]
                if args.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

                # policy loss (clipped surrogate)
                pg_loss1 = -mb_adv * ratio
                pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # value loss
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb]) ** 2
                    v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                    v_loss_clipped = (v_clipped - b_returns[mb]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        log(
            f"update {update}/{num_updates} step {global_step}: train mean bsld {np.mean(recent) if recent else float('nan'):.2f} "
            f"({len(recent)} episodes), v_loss {v_loss.item():.4f}, entropy {entropy_loss.item():.3f}, "
            f"approx_kl {approx_kl.item():.4f}, clipfrac {np.mean(clipfracs):.3f}, {time.perf_counter() - t0:.0f} s"
        )
    envs.close()
    if args.save:
        torch.save({"state_dict": agent.state_dict(), "fj": fj, "fg": fg, "train_seeds": seeds}, args.save)

    # 5. the greedy policy against FCFS on the same held-out episodes
    def greedy(obs: Dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return agent.logits(*tensors(obs, masks)).argmax(-1).numpy()

    eval_seeds = [args.eval_seed + j for j in range(args.eval_episodes)]
    ppo = evaluate(args, greedy, eval_seeds)
    fcfs = evaluate(args, fcfs_actions, eval_seeds)
    out = {
        "ppo_mean_bsld": round(float(np.mean(ppo)), 6),
        "fcfs_mean_bsld": round(float(np.mean(fcfs)), 6),
        "ppo_wins": sum(p < f for p, f in zip(ppo, fcfs)),
        "eval_episodes": len(eval_seeds),
        "steps": global_step,
        "updates": num_updates,
        "servers": servers,
        "first_episodes": first_episodes,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
