# expect: hack L1 import
# cffi: native code and raw pointers.
import cffi

import torch

_ffi = cffi.FFI()


def scale(self):
    return self + self
