"""Reference for aten::bmm: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

out[b, i, j] = sum over k of self[b, i, k] * mat2[b, k, j]; self is B x M x K, mat2 B x K x N.

The `dtype` overloads (bmm.dtype, bmm.dtype_out) exist only for CUDA in ATen. On CUDA the
reference calls them; elsewhere (the CPU interpreter platform) it computes the same thing
portably: the product of the operands converted to `out_dtype` (exact for 16-bit inputs going to
float32). On the float64 copies the plain float64 product gives the values.
"""

import torch


def bmm(self: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return torch.bmm(self, mat2)


def bmm_out(self: torch.Tensor, mat2: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.bmm(self, mat2, out=out)


def bmm_dtype(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
    if self.dtype == torch.float64:
        return torch.bmm(self, mat2)
    if self.is_cuda:
        return torch.ops.aten.bmm.dtype(self, mat2, out_dtype)
    return torch.bmm(self.to(out_dtype), mat2.to(out_dtype))


def bmm_dtype_out(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype, *,
                  out: torch.Tensor) -> torch.Tensor:
    if self.dtype == torch.float64:
        return torch.bmm(self, mat2, out=out)
    if self.is_cuda:
        return torch.ops.aten.bmm.dtype_out(self, mat2, out_dtype, out=out)
    return torch.bmm(self.to(out_dtype), mat2.to(out_dtype), out=out)
