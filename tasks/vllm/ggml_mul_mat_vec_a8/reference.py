"""Reference for vLLM's ggml_mul_mat_vec_a8 (torch.ops._C.ggml_mul_mat_vec_a8;
csrc/quantization/gguf/gguf_kernel.cu: quantize_q8_1, quantize_row_q8_1_cuda,
ggml_mul_mat_vec_a8; mmvq.cuh: mul_mat_vec_q; vecdotq.cuh: vec_dot_q4_0_q8_1,
vec_dot_q8_0_q8_1, vec_dot_q4_K_q8_1 and their _impl functions; block layouts of
ggml-common.h): our own torch code, run by the worker on the native inputs.

Y[v, r] = sum over the K = X.shape[1] inputs of W[r, k] * X[v, k], W a GGUF-quantized weight of
`row` rows (raw blocks, row-major: row r is the K / QK consecutive blocks starting at block
r * K / QK), computed the way vLLM's vector kernel does it, which is NOT dequantize-then-matmul:

1. Each row of X is quantized to q8_1 blocks of 32 values (float32 arithmetic): amax = max |x|,
   d = amax / 127 (correctly rounded division), q_i = 0 if amax == 0 else roundf(x_i / d)
   (correctly rounded division, then rounding half away from zero), s = sum of the 32 x_i. The
   block stores q_i (int8), fp16(d) and fp16(s); the dot products below only see D8 = fp16(d)
   and S8 = fp16(s) (as floats) and the integers q_i.
2. Per weight block and activation block, integer dot products scaled in float32:
   - Q8_0 (type 8): d_w * D8 * sum(qw_i * q_i).
   - Q4_0 (type 2): d_w * (D8 * sum(nib_i * q_i) - 8 * S8) (the -8 offset applied through S8,
     the sum of the unquantized x, not through the q_i).
   - Q4_K (type 12), per 256-value super-block and its 8 q8_1 blocks j:
     d * sum_j D8_j * sc_j * sum(nib * q) - dmin * sum_j D8_j * mn_j * sum(q)
     (d and dmin as floats: no fp16 rounding of d * sc here, unlike the dequantizer).
3. Y[v, r] = float32 sum of the terms, converted to X's dtype.

The reference evaluates step 2-3 in float64 (exact integer sums, one final rounding), so it
differs from any float32 order of evaluation by float32 rounding only. Step 1 is reproduced
exactly (float32 division via torch, half-away rounding in float64). The cases draw X as small
integers, so the block sums s are exact in any order.

Tolerance: float32 rounding of the per-block terms and their sum: `reduce` is the number of
q8_1 blocks per row (K / 32) and `scale` a per-case bound on the magnitude of the per-block
float32 intermediates (e.g. d_w * 8 * S8 for Q4_0, which cancels against d_w * D8 * sum), measured
on the case distribution; the output dtype's rounding is added by the rtol.
"""

import torch

# type -> (values per block, bytes per block)
_BLOCK = {2: (32, 18), 8: (32, 34), 12: (256, 144)}


def _half(b: torch.Tensor) -> torch.Tensor:
    """[..., 2] uint8 (little-endian) -> [...] float64 value of the float16 bit pattern."""
    shp = b.shape[:-1]
    return b.contiguous().view(torch.float16).reshape(shp).to(torch.float64)


def _q8_1(X: torch.Tensor):
    """X [V, K] -> (q [V, K/32, 32] int64, D8 [V, K/32] float64, S8 [V, K/32] float64)."""
    V, K = X.shape
    x = X.to(torch.float32).reshape(V, K // 32, 32)
    amax = x.abs().amax(dim=-1)
    d = amax / torch.full_like(amax, 127.0)  # float32, correctly rounded
    t = (x / d[..., None]).to(torch.float64)  # correctly rounded float32 quotients
    q = torch.sign(t) * torch.floor(t.abs() + 0.5)  # roundf: half away from zero
    q = torch.where((amax == 0)[..., None], torch.zeros_like(q), q).to(torch.int64)
    s = x.to(torch.float64).sum(dim=-1).to(torch.float32)
    D8 = d.to(torch.float16).to(torch.float64)
    S8 = s.to(torch.float16).to(torch.float64)
    return q, D8, S8


def _q4_k_scales(sc: torch.Tensor):
    """[..., 12] uint8 -> (scales, mins), each [..., 8] int64 (get_scale_min_k4)."""
    q = sc.to(torch.int64)
    scales, mins = [], []
    for j in range(8):
        if j < 4:
            scales.append(q[..., j] & 63)
            mins.append(q[..., j + 4] & 63)
        else:
            scales.append((q[..., j + 4] & 0xF) | ((q[..., j - 4] >> 6) << 4))
            mins.append((q[..., j + 4] >> 4) | ((q[..., j] >> 6) << 4))
    return torch.stack(scales, -1), torch.stack(mins, -1)


def _quant_matmul(W: torch.Tensor, X: torch.Tensor, type: int, row: int,
                  mmq_mins: bool) -> torch.Tensor:
    """float64 [V, row] for one weight W (the first row * K / QK blocks of its bytes).
    mmq_mins: Q4_K min term through S8 (the MMQ kernels) instead of D8 * sum(q) (the vector
    kernels). Loops over the q8_1 blocks, so memory stays O(V * row)."""
    if type not in _BLOCK:
        raise ValueError(f"GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    V, K = X.shape
    if K % qk != 0:
        raise ValueError(f"K = {K} is not a multiple of {qk}")
    nbk = K // qk
    raw = W.contiguous().reshape(-1)[: row * nbk * bs].reshape(row, nbk, bs)
    q, D8, S8 = _q8_1(X)  # [V, K/32, 32], [V, K/32]
    qd = q.double()
    out = torch.zeros(V, row, dtype=torch.float64, device=X.device)
    if type in (2, 8):
        dw = _half(raw[..., 0:2])  # [row, nbk]
        for b in range(nbk):
            if type == 8:
                qw = raw[:, b, 2:].view(torch.int8).double()  # [row, 32]
            else:
                qs = raw[:, b, 2:].to(torch.int64)
                qw = torch.cat([qs & 0xF, qs >> 4], dim=-1).double()
            sumi = qd[:, b] @ qw.T  # exact integers, [V, row]
            if type == 8:
                out += sumi * D8[:, b, None] * dw[None, :, b]
            else:
                out += dw[None, :, b] * (sumi * D8[:, b, None] - 8.0 * S8[:, b, None])
        return out
    d = _half(raw[..., 0:2])
    dmin = _half(raw[..., 2:4])
    scales, mins = _q4_k_scales(raw[..., 4:16])  # [row, nbk, 8]
    for b in range(nbk):
        qs = raw[:, b, 16:].to(torch.int64).reshape(row, 4, 32)
        nib = torch.stack([qs & 0xF, qs >> 4], dim=2).reshape(row, 8, 32).double()
        for s in range(8):
            j = 8 * b + s
            sumi = qd[:, j] @ nib[:, s].T  # [V, row]
            part_d = D8[:, j, None] * scales[None, :, b, s].double() * sumi
            if mmq_mins:
                part_m = S8[:, j, None] * mins[None, :, b, s].double()
            else:
                part_m = D8[:, j, None] * mins[None, :, b, s].double() * qd[:, j].sum(-1)[:, None]
            out += d[None, :, b] * part_d - dmin[None, :, b] * part_m
    return out

def ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    return _quant_matmul(W, X, type, row, mmq_mins=False).to(X.dtype)
