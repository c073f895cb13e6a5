# expect: fail
# Replacing the checker, at the first call: every comparison, mutation and replay function
# the candidate's process can find (runtime.compare, the evaluator's methods, the ghost replay)
# made to say "pass", the integrity snapshot silenced, then a wrong answer. Against the
# one-process worker of 2026-12-04 this passed. The runner's copies of these functions decide
# nothing: the judge compares in its own process, and the answer is wrong.
import gc
import sys

import torch


def _patch() -> int:
    n = 0
    for m in list(sys.modules.values()):
        name = getattr(m, "__name__", "")
        if name.startswith("runtime."):
            for attr in ("compare", "merge", "find_mutation", "random_check", "gap_judge",
                         "bound_judge", "sum_judge"):
                if hasattr(m, attr):
                    setattr(m, attr, lambda *a, **k: None)
                    n += 1
    for o in gc.get_objects():
        if type(o).__name__ in ("Evaluator", "Runner", "Snapshot"):
            for attr in ("_judge", "_check", "_ghost", "_rerun", "_device_trace", "replaced"):
                if hasattr(o, attr):
                    setattr(o, attr, lambda *a, **k: None)
                    n += 1
    return n


def scale(self: torch.Tensor) -> torch.Tensor:
    print(f"boundary attack ran: replaced {_patch()} functions", file=sys.stderr)
    return self + 1
