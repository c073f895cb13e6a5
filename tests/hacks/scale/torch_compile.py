# expect: hack L1 torch-api
# torch.compile emits Triton kernels named triton_*: it would fool a profiler check (L3).
import torch

_compiled = torch.compile(lambda x: x * 2)


def scale(self):
    return _compiled(self)
