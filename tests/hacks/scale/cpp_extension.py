# expect: hack L1 torch-api
# Native code compiled at import: the work leaves Triton entirely.
import torch
from torch.utils.cpp_extension import load_inline


def scale(self):
    return self + self
