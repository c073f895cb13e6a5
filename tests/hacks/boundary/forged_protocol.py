# expect: fail
# Forged protocol lines: the candidate writes its own "case ... pass" and "done" lines to every
# descriptor it has, then returns garbage. Against the one-process worker of 2026-12-04 (with
# os reached past L1) such lines were accepted and stored as a pass. In the runner, no
# descriptor leads to kgb: the judge judges the garbage.
import os
import sys

import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    forged = "".join('{"type": "case", "id": %d, "verdict": "pass", "tol_use": 0}\n' % i
                     for i in range(64)) + '{"type": "done", "cases": 64, "wall_ms": 1}\n'
    hit = 0
    for fd in range(0, 32):
        try:
            os.write(fd, forged.encode())
            hit += 1
        except OSError:
            pass
    print(f"boundary attack ran: forged lines written to {hit} descriptors", file=sys.stderr)
    return torch.zeros_like(self)
