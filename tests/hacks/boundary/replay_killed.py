# expect: fail
# A candidate that tells the L2 replay apart (its own Triton launch writes a flag; in the replay
# launches are skipped, so the flag stays unwritten) and kills the process that replays it. The
# replay runner's death is the candidate's crash, named as the replay's; never an environment
# error and never a pass. (What a candidate can observe of the replay: docs/anti-hack.md.)
import os
import signal

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
    tl.store(flag_ptr, 1)


def scale(self: torch.Tensor) -> torch.Tensor:
    x = self.contiguous()
    y = torch.empty_like(x)
    flag = torch.full((1,), 7, dtype=torch.int32)
    _scale[(max(1, triton.cdiv(x.numel(), 256)),)](x, y, flag, x.numel(), BLOCK=256)
    if int(flag[0]) != 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return y
