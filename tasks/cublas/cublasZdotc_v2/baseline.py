"""cublasZdotc_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

import torch

from runtime import cublas


def cublasZdotc_v2(n, x, incx, y, incy):
    return cublas.call_result("cublasZdotc_v2", torch.complex128, n, x, incx, y, incy)
