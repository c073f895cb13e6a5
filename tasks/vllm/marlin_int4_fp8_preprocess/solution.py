"""Shipped solution for vLLM's marlin_int4_fp8_preprocess: one elementwise Triton kernel.

A program re-encodes BLOCK consecutive words. Each word is bitcast to uint32 and its 8 nibbles
are handled in a static loop: the nibble v and its zero z (8, or the nibble at the same position
of qzeros[k // G, c] for the AWQ form, k = word // C, c = word % C) give v - z or 15 - v, OR-ed
back at the same position. The result goes to a new tensor, or over qweight with inplace (each
word is read before it is written by the same program, so in place is safe).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _preprocess_kernel(q_ptr, z_ptr, out_ptr, total, C, G,
                       HAS_ZP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    val = tl.load(q_ptr + offs, mask=ok, other=0).to(tl.uint32, bitcast=True)
    if HAS_ZP:
        row = offs // C
        col = offs % C
        zw = tl.load(z_ptr + (row // G) * C + col, mask=ok, other=0).to(tl.uint32, bitcast=True)
    res = tl.zeros([BLOCK], tl.uint32)
    for i in tl.static_range(8):
        v = (val >> (4 * i)) & 0xF
        if HAS_ZP:
            z = (zw >> (4 * i)) & 0xF
        else:
            z = tl.full([BLOCK], 8, tl.uint32)
        nv = tl.where(v >= z, v - z, 15 - v)
        res |= nv << (4 * i)
    tl.store(out_ptr + offs, res.to(tl.int32, bitcast=True), mask=ok)


def marlin_int4_fp8_preprocess(qweight: torch.Tensor, qzeros_or_none=None,
                               inplace: bool = False) -> torch.Tensor:
    if qweight.dtype != torch.int32 or not qweight.is_contiguous():
        raise ValueError("qweight must be a contiguous int32 tensor")
    has_zp = qzeros_or_none is not None
    if has_zp:
        qz = qzeros_or_none
        if qz.dtype != torch.int32 or not qz.is_contiguous() or qweight.dim() != 2:
            raise ValueError("qzeros must be a contiguous int32 [K / G, N / 8]")
        K, C = qweight.shape
        if qz.shape[1] != C or K % qz.shape[0] or K % 32 or (K // qz.shape[0]) % 8:
            raise ValueError("qzeros must be [K / G, N / 8] with K % 32 == 0 and G % 8 == 0")
        G = K // qz.shape[0]
    else:
        if qweight.numel() % 32:
            raise ValueError("qweight.numel() must be a multiple of 32")
        qz, C, G = qweight, 1, 1
    out = qweight if inplace else torch.empty_like(qweight)
    total = qweight.numel()
    if total == 0:
        return out
    block = 1024 if qweight.device.type != "cpu" else 65536
    _preprocess_kernel[(triton.cdiv(total, block),)](qweight, qz, out, total, C, G,
                                                     HAS_ZP=has_zp, BLOCK=block, num_warps=4)
    return out
