"""Test candidate: right values, but prints to stdout at import and at every call."""

import os
import sys

import torch

print("hello from the candidate")
os.write(1, b"raw bytes on fd 1\n")


def add_Tensor(self, other, *, alpha=1):
    print("computing", file=sys.stdout)
    os.write(1, b"{\"type\": \"done\", \"cases\": 0}\n")
    # fp32 math, one rounding: torch's CPU add rounds alpha * other to fp16 first
    return (self.float() + alpha * other.float()).to(self.dtype)


def add_Scalar(self, other, alpha=1):
    return torch.ops.aten.add.Scalar(self, other, alpha)
