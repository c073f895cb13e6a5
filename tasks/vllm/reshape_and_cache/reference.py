"""Reference for vLLM's reshape_and_cache (torch.ops._C_cache_ops.reshape_and_cache;
csrc/cache_kernels.cu): our own torch code, run by the worker on float64 copies (values) and on
the native inputs (structure and the GPU baseline).

The op stores the key and value vectors of new tokens into the paged KV cache of the layout of
vLLM's paged-attention kernels. key and value are [rows, num_heads, head_size]; only the first
num_tokens = slot_mapping.size(0) rows are tokens (vLLM pads key and value for CUDA graphs,
never the slot mapping). Token t goes to slot s = slot_mapping[t]: block b = s // block_size,
position p = s % block_size. The key cache is [num_blocks, num_heads, head_size / x, block_size,
x], with x = 16 bytes / element size (8 for float16 and bfloat16, 4 for float32), so element d of
a key head lands at key_cache[b, h, d // x, p, d % x]; the value cache is [num_blocks, num_heads,
head_size, block_size], value element d at value_cache[b, h, d, p]. A negative slot (vLLM's -1,
a padding token) writes nothing; every other element of both caches keeps its value. The op
returns nothing and does not modify key, value or slot_mapping.

kv_cache_dtype "auto" stores the values as they are (the caches have the dtype of key and
value), and k_scale and v_scale are not used. The fp8 variants ("fp8", "fp8_e4m3", "fp8_e5m2":
scaled conversion to an 8-bit cache) are not covered by this task. x is read from the key
cache's last dimension, so the float64 copies keep the native layout.

Slots are distinct in vLLM. The cases draw random slots (with negatives) only where key and
value are expanded views (token stride 0: every token carries the same rows), so a slot named by
several tokens gets the same data whichever of them lands; the other cases map token t to slot t
(arange), with rows of their own.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def reshape_and_cache(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                      value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str,
                      k_scale: torch.Tensor, v_scale: torch.Tensor) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"kv_cache_dtype {kv_cache_dtype!r}: only 'auto' is covered")
    num_tokens = slot_mapping.shape[0]
    _, num_heads, chunks, block_size, x = key_cache.shape
    tokens = torch.nonzero(slot_mapping >= 0).reshape(-1)
    slots = slot_mapping[tokens]
    blocks, positions = slots // block_size, slots % block_size
    keys = key[:num_tokens][tokens]
    # Indexing dims 0 and 3 (split by slices) puts the selected tokens first:
    # key_cache[blocks, :, :, positions, :] is [n, num_heads, head_size / x, x].
    key_cache[blocks, :, :, positions, :] = keys.reshape(-1, num_heads, chunks, x)
    value_cache[blocks, :, :, positions] = value[:num_tokens][tokens]
