# expect: hack L1 import
# ctypes reaches native libraries (cuBLAS, libc) and raw memory.
import ctypes

import torch


def scale(self):
    libc = ctypes.CDLL(None)
    y = torch.empty_like(self)
    y.copy_(self)
    libc.memcpy(y.data_ptr(), self.data_ptr(), 0)
    return y + y
