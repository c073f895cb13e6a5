# expect: hack L2 ghost
# A real Triton launch beside the real work: the kernel only touches a scratch buffer, the
# answer comes from a torch operator. A "did a Triton kernel run?" check passes it; L2 does not,
# because the output is still right when the launch is skipped.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


def scale(self):
    scratch = torch.empty(16, dtype=torch.float32, device=self.device)
    _touch[(1,)](scratch, 16, BLOCK=16)
    return self + self
