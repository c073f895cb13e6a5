"""Reference for vLLM's concat_and_cache_mla (torch.ops._C_cache_ops.concat_and_cache_mla;
csrc/cache_kernels.cu): our own torch code, run by the worker on float64 copies (values) and on
the native inputs (structure and the GPU baseline).

The op stores the new tokens of a step into the paged latent cache of multi-head latent
attention (MLA): a token's cache entry is its compressed latent kv_c (kv_lora_rank elements)
followed by its rotary key part k_pe (pe_dim elements). kv_c is [rows, kv_lora_rank] and k_pe
[rows, pe_dim]; only the first num_tokens = slot_mapping.size(0) rows are tokens (vLLM pads the
inputs for CUDA graphs, never the slot mapping). kv_cache is [num_blocks, block_size,
kv_lora_rank + pe_dim]. Token t goes to slot s = slot_mapping[t]: block b = s // block_size,
position p = s % block_size, and kv_cache[b, p, :kv_lora_rank] = kv_c[t],
kv_cache[b, p, kv_lora_rank:] = k_pe[t]. A negative slot (vLLM's -1, a padding token) writes
nothing; every other element of the cache keeps its value. The op returns nothing and does not
modify kv_c, k_pe or slot_mapping.

kv_cache_dtype "auto" stores the values as they are (the cache has the dtype of kv_c and k_pe),
and scale is not used. The fp8 variants ("fp8", "fp8_e4m3", "fp8_e5m2": scaled conversion to an
8-bit cache; "fp8_ds_mla": DeepSeek's 656-byte entries with per-128 tile scales) are not covered
by this task.

Slots are distinct in vLLM. The cases draw random slots (with negatives) only where kv_c and
k_pe are expanded views (row stride 0: every token carries the same rows) or there is one token,
so a slot named by several tokens gets the same data whichever of them lands; the other cases
map token t to slot t (arange), with rows of their own.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def concat_and_cache_mla(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor,
                         slot_mapping: torch.Tensor, kv_cache_dtype: str,
                         scale: torch.Tensor) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"kv_cache_dtype {kv_cache_dtype!r}: only 'auto' is covered")
    num_tokens = slot_mapping.shape[0]
    rank = kv_c.shape[1]
    block_size = kv_cache.shape[1]
    if kv_cache.shape[2] != rank + k_pe.shape[1]:
        raise ValueError("concat_and_cache_mla: kv_cache.size(2) must be kv_lora_rank + pe_dim")
    tokens = torch.nonzero(slot_mapping >= 0).reshape(-1)
    slots = slot_mapping[tokens]
    blocks, positions = slots // block_size, slots % block_size
    kv_cache[blocks, positions, :rank] = kv_c[:num_tokens][tokens]
    kv_cache[blocks, positions, rank:] = k_pe[:num_tokens][tokens]
