# expect: hack L1 torch-api
# Under the CPU interpreter a kernel body is plain Python: torch runs inside the "kernel".
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr):
    torch.mul(x_ptr, 2, out=y_ptr)


def scale(self):
    y = torch.empty_like(self)
    _scale[(1,)](self, y)
    return y
