"""cublasDasum_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

import torch

from runtime import cublas


def cublasDasum_v2(n, x, incx):
    return cublas.call_result("cublasDasum_v2", torch.float64, n, x, incx)
