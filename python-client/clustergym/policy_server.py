"""A Python policy for a live Slurm: :func:`serve_policy` answers ``clustergym slurm-agent --bridge ENDPOINT``.

The agent keeps the env (Job-v0 or JobNode-v0) in step with the live cluster; at each of the env's
decision points it sends this process the env's observation and ``info`` (``action_mask``, ``time``,
``queue_length``, ``running``), decoded exactly as :meth:`clustergym.Env.step` returns
them in training (the same wire, the same arrays), and applies the action the policy returns::

    import numpy as np
    from clustergym.policy_server import serve_policy

    def policy(observation, info):          # the function used in training
        return int(np.flatnonzero(info["action_mask"])[0])

    serve_policy(policy, "tcp://127.0.0.1:5601")   # then: clustergym slurm-agent --bridge tcp://127.0.0.1:5601

Messages (msgpack maps, ZeroMQ REQ from the agent, REP here): ``{"op": "hello", "env_id",
"observation_space", "action_space"}`` -> ``{"ok": true}``; ``{"op": "act", "observation", "info"}``
-> ``{"action": int}`` (or ``{"error": message}`` when the policy raised); ``{"op": "bye"}`` ->
``{"ok": true}`` and :func:`serve_policy` returns.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional

import numpy as np
import zmq

from .env import observation_from_wire
from .wire import pack, unpack

#: A policy: ``(observation, info) -> action``, as in a training loop over :class:`clustergym.Env`.
Policy = Callable[[Any, Dict[str, Any]], Any]


def serve_policy(
    policy: Policy,
    bind: str = "tcp://127.0.0.1:5601",
    *,
    on_hello: Optional[Callable[[Dict[str, Any]], None]] = None,
    announce: bool = True,
) -> int:
    """Serves ``policy`` on ``bind`` until the agent says ``bye``; returns the number of actions given.

    ``on_hello`` receives the agent's hello (env id, observation and action spaces) before the first
    action, e.g. to build a network for the env's K and N. With ``announce``, the bound endpoint is
    printed as the first line of stdout (port 0 picks a free one).
    """
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.REP)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(bind)
    if announce:
        print(sock.getsockopt_string(zmq.LAST_ENDPOINT), flush=True)
    actions = 0
    try:
        while True:
            msg = unpack(sock.recv())
            op = msg.get("op") if isinstance(msg, dict) else None
            if op == "hello":
                if on_hello is not None:
                    on_hello(msg)
                sock.send(pack({"ok": True}))
            elif op == "act":
                try:
                    info = dict(msg["info"])
                    info["action_mask"] = np.asarray(info["action_mask"], dtype=np.uint8)
                    action = policy(observation_from_wire(msg["observation"]), info)
                    sock.send(pack({"action": int(action)}))
                    actions += 1
                except Exception as e:  # the agent reports it and stops
                    sock.send(pack({"error": f"{type(e).__name__}: {e}"}))
            elif op == "bye":
                sock.send(pack({"ok": True}))
                return actions
            else:
                sock.send(pack({"error": f"unknown op {op!r} (expected hello, act or bye)"}))
    finally:
        sock.close(0)


if __name__ == "__main__":  # pragma: no cover - a manual check: the first valid action
    serve_policy(lambda obs, info: int(np.flatnonzero(info["action_mask"])[0]), sys.argv[1] if len(sys.argv) > 1 else "tcp://127.0.0.1:5601")
