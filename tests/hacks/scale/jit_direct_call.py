# expect: hack L1 triton-api
# A "kernel" called like a function: the CPU interpreter runs its body as plain Python on the
# torch tensor, and method calls inside a Triton function are not judged as torch's.
import torch
import triton
import triton.language as tl


@triton.jit
def _double(x):
    return x.mul(2)


def scale(self):
    return _double(self)
