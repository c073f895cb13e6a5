"""An RL reward loop against `kgb serve`: the shape a trainer's rollout workers take.

Each step asks the policy for one kernel per task, sends the whole batch to the server at once
(POST /v1/evaluations:batch, up to 64), waits for every result, and hands the policy the
rewards (docs/service.md: pass 1 + 0.5·clamp(log2 speedup, -1, 1), hack -1, other failures 0,
None when the fault is not the candidate's: leave those samples out of the update).

`policy` here is a stand-in that returns the same source every time; put the model there.

    python rl_reward_loop.py URL TOKEN TASK FILE [STEPS]
"""

from __future__ import annotations

import sys
import time
from typing import Callable

from kgb_client import Client

Policy = Callable[[str, str], str]  # (task, prompt) -> Python source


def rollout(client: Client, policy: Policy, tasks: list[str]) -> list[float | None]:
    prompts = {t: client.prompt(t) for t in tasks}
    batch = [{"task": t, "code": policy(t, prompts[t])} for t in tasks]
    answers = client._call("POST", "/v1/evaluations:batch", {"evaluations": batch})[1]
    rewards: list[float | None] = []
    for a in answers["evaluations"]:
        if "error" in a:  # refused (unknown task, too large): no sample
            rewards.append(None)
            continue
        while a["status"] != "done":
            a = client.get(a["id"], wait_s=30)
        rewards.append(a["reward"])
    return rewards


def main(argv: list[str]) -> int:
    if len(argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        return 2
    client = Client(argv[1], argv[2] or None)
    source = open(argv[4]).read()
    steps = int(argv[5]) if len(argv) == 6 else 3
    for step in range(steps):
        t0 = time.monotonic()
        # A new comment per step: other bytes, judged anew (the same bytes are answered
        # from the store at once).
        rewards = rollout(client, lambda task, prompt: f"{source}\n# step {step}\n", [argv[3]])
        print(f"step {step}: rewards {rewards} in {time.monotonic() - t0:.1f} s")
        # policy.update(samples, rewards) goes here
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
