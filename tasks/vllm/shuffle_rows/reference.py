"""Reference for vLLM's shuffle_rows (torch.ops._moe_C.shuffle_rows;
csrc/moe/moe_permute_unpermute_op.cu): our own torch code, run by the worker on float64 copies
of the floating tensors (values) and on the native inputs (structure and the GPU baseline);
the int32 `dst2src_map` is never converted.

shuffle_rows(input_tensor, dst2src_map, output_tensor) writes output_tensor[i, :] =
input_tensor[dst2src_map[i], :] for every row i of output_tensor and returns nothing. Map
entries are valid row indices that may repeat and come in any order. It is a gather of rows:
torch.index_select along dim 0, written into output_tensor.

Tolerance: the values are copies, so the adaptive tolerance is scaled by 1e-6 (the format
requires positive multipliers), which makes the comparison exact in effect.
"""

import torch


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor,
                 output_tensor: torch.Tensor) -> None:
    torch.index_select(input_tensor, 0, dst2src_map, out=output_tensor)
