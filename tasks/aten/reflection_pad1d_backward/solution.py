"""Shipped solution for aten::reflection_pad1d_backward: one gather kernel over grad_input.

Forward reflection padding reads input position |o - pl| mirrored at the right end, so input
position j is read by at most three output positions: j + pl (itself), pl - j (its mirror in the
left pad, for 1 <= j <= pl) and pl + 2 (W - 1) - j (its mirror in the right pad, for
W - 1 - pr <= j <= W - 2). Each program takes a tile of (row, j) grad_input elements, loads
those up to three grad_output values through grad_output's strides, sums them in float32 and
stores the rounded sum through grad_input's strides. No atomics are needed.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _reflection_pad1d_bw_kernel(go_ptr, gi_ptr, R, C, W, PL, PR,
                                s_gn, s_gc, s_gw, s_in, s_ic, s_iw, n_col_blocks,
                                BR: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_w = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_w.to(tl.int64) * BW + tl.arange(0, BW)
    n = rows // C
    c = rows - n * C
    m = (rows < R)[:, None] & (cols < W)[None, :]
    base = go_ptr + (n * s_gn + c * s_gc)[:, None]
    j = cols[None, :]
    acc = tl.load(base + (j + PL) * s_gw, mask=m, other=0.0).to(tl.float32)
    left = m & (j >= 1) & (j <= PL)
    acc += tl.load(base + (PL - j) * s_gw, mask=left, other=0.0).to(tl.float32)
    right = m & (j >= W - 1 - PR) & (j <= W - 2)
    acc += tl.load(base + (PL + 2 * (W - 1) - j) * s_gw, mask=right, other=0.0).to(tl.float32)
    dst = gi_ptr + (n * s_in + c * s_ic)[:, None] + j * s_iw
    tl.store(dst, acc.to(gi_ptr.dtype.element_ty), mask=m)


def _pow2(n):
    return triton.next_power_of_2(max(int(n), 1))


def _bw_into(grad_output, self, padding, grad_input):
    pl, pr = [int(p) for p in padding]
    if self.dim() not in (2, 3):
        raise RuntimeError("reflection_pad1d_backward: self must be 2-D or 3-D")
    W = self.shape[-1]
    if pl < 0 or pr < 0 or pl >= max(W, 1) or pr >= max(W, 1):
        raise RuntimeError("reflection_pad1d_backward: padding must be non-negative and smaller "
                           "than the input width")
    shape = list(self.shape)
    if list(grad_output.shape) != shape[:-1] + [W + pl + pr]:
        raise RuntimeError("reflection_pad1d_backward: grad_output has the wrong shape")
    if grad_input is None:
        grad_input = torch.empty(shape, dtype=grad_output.dtype, device=grad_output.device)
    elif list(grad_input.shape) != shape or grad_input.dtype != grad_output.dtype:
        raise RuntimeError(f"reflection_pad1d_backward: grad_input must be {grad_output.dtype} "
                           f"of shape {shape}")
    if grad_input.numel() == 0:
        return grad_input
    go = grad_output if grad_output.dim() == 3 else grad_output.unsqueeze(0)
    gi = grad_input if grad_input.dim() == 3 else grad_input.unsqueeze(0)
    N, C = gi.shape[0], gi.shape[1]
    R = N * C
    gpu = grad_output.device.type != "cpu"
    bw = min(_pow2(W), 1024 if gpu else 65536)
    br = min(_pow2(R), max(1, (4096 if gpu else 65536) // bw))
    n_col_blocks = triton.cdiv(W, bw)
    grid = (triton.cdiv(R, br) * n_col_blocks,)
    _reflection_pad1d_bw_kernel[grid](go, gi, R, C, W, pl, pr,
                                      go.stride(0), go.stride(1), go.stride(2),
                                      gi.stride(0), gi.stride(1), gi.stride(2), n_col_blocks,
                                      BR=br, BW=bw, num_warps=4)
    return grad_input


def reflection_pad1d_backward(grad_output: torch.Tensor, self: torch.Tensor,
                              padding) -> torch.Tensor:
    return _bw_into(grad_output, self, padding, None)


def reflection_pad1d_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor, padding,
                                         *, grad_input: torch.Tensor) -> torch.Tensor:
    return _bw_into(grad_output, self, padding, grad_input)
