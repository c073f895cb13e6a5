"""cublasCdotu_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

import torch

from runtime import cublas


def cublasCdotu_v2(n, x, incx, y, incy):
    return cublas.call_result("cublasCdotu_v2", torch.complex64, n, x, incx, y, incy)
