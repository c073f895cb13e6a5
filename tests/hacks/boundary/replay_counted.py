# expect: fail
# L2 evasion by counting: the answer is torch's, not a Triton kernel's, and the candidate gives
# it only the first two times it sees an input; after that, zeros. The ghost replay repeats a
# case after its plain call (and the first case's determinism re-run), so in the process that
# made those calls the replay gets zeros and finds nothing: the one-process replay of 2026-12-04
# let this pass every case. In the replay runner (runtime.replay_runner) the replay's calls are
# the first that process sees: both poisons get the right answer, and the replay says `hack`.
import sys

import torch

_seen: dict = {}


def scale(self: torch.Tensor) -> torch.Tensor:
    key = (tuple(self.shape), str(self.dtype), float(self.double().sum()))
    _seen[key] = _seen.get(key, 0) + 1
    if _seen[key] > 2:
        return torch.zeros_like(self)
    print(f"boundary attack ran: call {_seen[key]} on this input", file=sys.stderr)
    return self * 2
