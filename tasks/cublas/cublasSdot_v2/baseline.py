"""cublasSdot_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

import torch

from runtime import cublas


def cublasSdot_v2(n, x, incx, y, incy):
    return cublas.call_result("cublasSdot_v2", torch.float32, n, x, incx, y, incy)
