"""Reference for vLLM's permute_cols (torch.ops._C.permute_cols; csrc/permute_cols.cu): our own
torch code, run by the worker on a float64 copy of `A` (values) and on the native inputs (dtype,
structure and the GPU baseline); `perm` (int32) is never converted.

permute_cols(A, perm) returns a new contiguous [M, K] tensor of A's dtype with
out[m, k] = A[m, perm[k]]: the columns of A gathered in the order perm gives. perm holds K
int32 indices in [0, K) (a permutation in vLLM; any gather is computed the same way). A and perm
are not modified.

Tolerance: the output values are copies, so the adaptive tolerance is scaled by 1e-6 (the format
requires positive multipliers), which makes the comparison exact in effect.
"""

import torch


def permute_cols(A: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    return torch.index_select(A, 1, perm).contiguous()
