# expect: fail
# A forged environment error: a "fatal env_error" line, which kgb treats as the machine's
# failure (nothing stored, the candidate retried later as if it never ran). Against the
# one-process worker it dropped the candidate from the store. From the runner it reaches only
# the runner's own stderr; the judge alone decides environment errors.
import os
import sys

import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    line = b'{"type": "fatal", "stage": "setup", "verdict": "env_error", "message": "GPU lost"}\n'
    for fd in range(0, 32):
        try:
            os.write(fd, line)
        except OSError:
            pass
    print("boundary attack ran: forged env_error written", file=sys.stderr)
    os._exit(4)
