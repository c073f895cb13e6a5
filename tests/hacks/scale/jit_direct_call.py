# expect: hack L1 triton-api
# A "kernel" called like a function: the CPU interpreter runs its body as plain Python on the
# torch tensor, where the operator computes with torch. (A torch method in the body, x.mul(2),
# is an `attribute` finding of its own: it is no Triton tensor method.)
import torch
import triton
import triton.language as tl


@triton.jit
def _double(x):
    return x * 2


def scale(self):
    return _double(self)
