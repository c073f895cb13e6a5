"""Reference for aten::embedding: torch eager, run by the worker on a float64 copy of the weight
(values) and on the native inputs (output dtype and the GPU baseline); the indices are never
converted.

out[..., :] = weight[indices[...], :]; out has shape indices.shape + (weight.shape[1],).
padding_idx, scale_grad_by_freq and sparse only affect the gradient, not the forward result.
"""

import torch


def embedding(weight: torch.Tensor, indices: torch.Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> torch.Tensor:
    return torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
