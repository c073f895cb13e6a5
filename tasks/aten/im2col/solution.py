"""Shipped solution for aten::im2col: one 2-D gather kernel over the output.

The output is seen as rows x columns: a row is (batch n, channel c, kernel offset i, j), i.e.
the output's rows n * C * kh * kw + (c * kh + i) * kw + j, a column is an output position
(oy, ox) of the sliding window, oy * out_w + ox. Each element reads
input[n, c, oy * sh - ph + i * dh, ox * sw - pw + j * dw] through the input's strides, or 0
where that position lies in the zero padding, and is stored through the output's strides (a
fresh contiguous tensor or a possibly non-contiguous `out`). Values are copied exactly.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _im2col_kernel(x_ptr, y_ptr, R, L, C, H, W, KH, KW, OW,
                   sxn, sxc, sxh, sxw, syn, syr, syl,
                   DH, DW, PH, PW, SH, SW, n_col_blocks,
                   BR: tl.constexpr, BL: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_l = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_l.to(tl.int64) * BL + tl.arange(0, BL)
    r_ok = rows < R
    l_ok = cols < L
    # row -> (n, c, i, j); the output row inside sample n is rr = (c * KH + i) * KW + j
    ckk = C * KH * KW
    n = rows // ckk
    rr = rows - n * ckk
    j = rr % KW
    t = rr // KW
    i = t % KH
    c = t // KH
    # column -> (oy, ox)
    oy = cols // OW
    ox = cols - oy * OW
    h = oy[None, :] * SH - PH + (i * DH)[:, None]
    w = ox[None, :] * SW - PW + (j * DW)[:, None]
    inside = (h >= 0) & (h < H) & (w >= 0) & (w < W)
    m = r_ok[:, None] & l_ok[None, :]
    src = x_ptr + ((n * sxn + c * sxc)[:, None] + h * sxh + w * sxw)
    v = tl.load(src, mask=m & inside, other=0.0)
    dst = y_ptr + ((n * syn + rr * syr)[:, None] + cols[None, :] * syl)
    tl.store(dst, v, mask=m)


def _pow2(n):
    return triton.next_power_of_2(max(int(n), 1))


def _pair(v, name):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise RuntimeError(f"im2col: {name} must have two elements")
    return int(v[0]), int(v[1])


def _im2col_into(self, kernel_size, dilation, padding, stride, out):
    kh, kw = _pair(kernel_size, "kernel_size")
    dh, dw = _pair(dilation, "dilation")
    ph, pw = _pair(padding, "padding")
    sh, sw = _pair(stride, "stride")
    if min(kh, kw, dh, dw, sh, sw) <= 0 or min(ph, pw) < 0:
        raise RuntimeError("im2col: kernel_size, dilation and stride must be positive, padding "
                           "non-negative")
    if self.dim() not in (3, 4):
        raise RuntimeError("im2col: expected a 3-D or 4-D input")
    x = self if self.dim() == 4 else self.unsqueeze(0)
    N, C, H, W = x.shape
    oh = (H + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (W + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError("im2col: the sliding window does not fit in the padded input")
    L = oh * ow
    ckk = C * kh * kw
    shape = [N, ckk, L] if self.dim() == 4 else [ckk, L]
    if out is None:
        out = torch.empty(shape, dtype=self.dtype, device=self.device)
    elif list(out.shape) != shape or out.dtype != self.dtype:
        raise RuntimeError(f"im2col: out must be {self.dtype} of shape {shape}")
    if out.numel() == 0:
        return out
    y = out if out.dim() == 3 else out.unsqueeze(0)
    R = N * ckk
    gpu = self.device.type != "cpu"
    cap = 4096 if gpu else 65536
    bl = min(_pow2(L), 256 if gpu else cap)
    br = min(_pow2(R), max(1, cap // bl))
    n_col_blocks = triton.cdiv(L, bl)
    grid = (triton.cdiv(R, br) * n_col_blocks,)
    _im2col_kernel[grid](x, y, R, L, C, H, W, kh, kw, ow,
                         x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                         y.stride(0), y.stride(1), y.stride(2),
                         dh, dw, ph, pw, sh, sw, n_col_blocks,
                         BR=br, BL=bl, num_warps=4)
    return out


def im2col(self: torch.Tensor, kernel_size, dilation, padding, stride) -> torch.Tensor:
    return _im2col_into(self, kernel_size, dilation, padding, stride, None)


def im2col_out(self: torch.Tensor, kernel_size, dilation, padding, stride, *,
               out: torch.Tensor) -> torch.Tensor:
    return _im2col_into(self, kernel_size, dilation, padding, stride, out)
