"""Shipped solution for vLLM's selective_scan_fwd: one Triton kernel, one pass over the tokens.

A program owns one sequence and BD channels of it; the state h of those channels, [BD, dstate]
in float32, lives in registers for the whole sequence. The program walks the sequence's tokens
in order: for each it loads u, delta (and z) of its channels and B, C of their groups, updates
h = exp(dt * A) * h + dt * u * B, writes y = sum(h * C) + D * u over delta (and y * silu(z)
over z), and at the end stores h into the sequence's cache slot. Consecutive tokens are adjacent
in memory, so successive steps reuse the cache lines the first step brought in. A sequence whose
slot is pad_slot_id, or which has no tokens, runs no step and writes nothing.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _scan_kernel(u_ptr, dl_ptr, a_ptr, b_ptr, c_ptr, dd_ptr, z_ptr, bias_ptr, qsl_ptr, ci_ptr,
                 init_ptr, st_ptr, pad, seqlen, dim, ds, ratio,
                 su_b, su_d, su_t, sd_b, sd_d, sd_t, sz_b, sz_d, sz_t,
                 sb_b, sb_g, sb_n, sb_t, sc_b, sc_g, sc_n, sc_t,
                 sa_d, sa_n, ss_s, ss_d, ss_n,
                 VARLEN: tl.constexpr, HAS_CI: tl.constexpr, HAS_INIT: tl.constexpr,
                 HAS_D: tl.constexpr, HAS_Z: tl.constexpr, HAS_BIAS: tl.constexpr,
                 SOFTPLUS: tl.constexpr, BD: tl.constexpr, DSP: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1).to(tl.int64) * BD + tl.arange(0, BD)
    n = tl.arange(0, DSP)
    d_ok = d < dim
    n_ok = n < ds
    m2 = d_ok[:, None] & n_ok[None, :]
    if VARLEN:
        lo = tl.load(qsl_ptr + b).to(tl.int64)
        hi = tl.load(qsl_ptr + b + 1).to(tl.int64)
    else:
        lo = b * 0
        hi = lo + seqlen
    if HAS_CI:
        slot = tl.load(ci_ptr + b).to(tl.int64)
    else:
        slot = b
    # A padded sequence runs no step and keeps its state slot untouched.
    hi = tl.where(slot == pad, lo, hi)
    g = d // ratio
    a = tl.load(a_ptr + d[:, None] * sa_d + n[None, :] * sa_n, mask=m2, other=0.0)
    st = st_ptr + slot * ss_s + d[:, None] * ss_d + n[None, :] * ss_n
    h = tl.zeros([BD, DSP], tl.float32)
    if HAS_INIT:
        init = tl.load(init_ptr + b).to(tl.int32)
        h = tl.load(st, mask=m2 & (init != 0) & (hi > lo), other=0.0).to(tl.float32)
    dvec = tl.zeros([BD], tl.float32)
    if HAS_D:
        dvec = tl.load(dd_ptr + d, mask=d_ok, other=0.0)
    bias = tl.zeros([BD], tl.float32)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + d, mask=d_ok, other=0.0)
    ub = u_ptr + b * su_b + d * su_d
    db = dl_ptr + b * sd_b + d * sd_d
    zb = z_ptr + b * sz_b + d * sz_d
    bb = b_ptr + b * sb_b + g[:, None] * sb_g + n[None, :] * sb_n
    cb = c_ptr + b * sc_b + g[:, None] * sc_g + n[None, :] * sc_n
    for t in range(lo, hi):
        uv = tl.load(ub + t * su_t, mask=d_ok, other=0.0).to(tl.float32)
        dt = tl.load(db + t * sd_t, mask=d_ok, other=0.0).to(tl.float32) + bias
        if SOFTPLUS:
            # log1p(exp(dt)) to float32 accuracy for small exp(dt): log(w) * e / (w - 1),
            # w = 1 + e rounded, cancels the rounding of w (and is e where w rounds to 1).
            e = tl.exp(tl.minimum(dt, 20.0))
            w = 1.0 + e
            sp = tl.where(w == 1.0, e, tl.log(w) * (e / (w - 1.0)))
            dt = tl.where(dt <= 20.0, sp, dt)
        bv = tl.load(bb + t * sb_t, mask=m2, other=0.0).to(tl.float32)
        cv = tl.load(cb + t * sc_t, mask=m2, other=0.0).to(tl.float32)
        h = tl.exp(dt[:, None] * a) * h + (dt * uv)[:, None] * bv
        y = tl.sum(h * cv, axis=1) + dvec * uv
        tl.store(db + t * sd_t, y.to(dl_ptr.dtype.element_ty), mask=d_ok)
        if HAS_Z:
            zv = tl.load(zb + t * sz_t, mask=d_ok, other=0.0).to(tl.float32)
            tl.store(zb + t * sz_t, (y * zv * tl.sigmoid(zv)).to(z_ptr.dtype.element_ty),
                     mask=d_ok)
    tl.store(st, h.to(st_ptr.dtype.element_ty), mask=m2 & (hi > lo))


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                       cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size,
                       block_idx_first_scheduled_token, block_idx_last_scheduled_token,
                       initial_state_idx) -> None:
    if (block_idx_first_scheduled_token is not None or block_idx_last_scheduled_token is not None
            or initial_state_idx is not None):
        raise NotImplementedError("selective_scan_fwd: prefix caching (APC) is not supported")
    varlen = query_start_loc is not None
    if varlen:
        if u.dim() != 2 or B.dim() != 3:
            raise ValueError("selective_scan_fwd: varlen u must be [dim, tokens], B [groups, "
                             "dstate, tokens]")
        batch = query_start_loc.shape[0] - 1
        dim, seqlen = u.shape
        ngroups = B.shape[0]
        # batch strides 0: every sequence indexes the shared token axis directly
        su = (0, u.stride(0), u.stride(1))
        sd = (0, delta.stride(0), delta.stride(1))
        sz = (0, z_.stride(0), z_.stride(1)) if z_ is not None else (0, 0, 0)
        sb = (0, B.stride(0), B.stride(1), B.stride(2))
        sc = (0, C.stride(0), C.stride(1), C.stride(2))
    else:
        if u.dim() != 3 or B.dim() != 4:
            raise ValueError("selective_scan_fwd: u must be [batch, dim, seqlen], B [batch, "
                             "groups, dstate, seqlen]")
        batch, dim, seqlen = u.shape
        ngroups = B.shape[1]
        su, sd = tuple(u.stride()), tuple(delta.stride())
        sz = tuple(z_.stride()) if z_ is not None else (0, 0, 0)
        sb, sc = tuple(B.stride()), tuple(C.stride())
    ds = A.shape[1]
    if dim % ngroups:
        raise ValueError(f"selective_scan_fwd: dim {dim} is not a multiple of n_groups {ngroups}")
    if batch <= 0 or dim == 0 or ds == 0:
        return None
    dsp = triton.next_power_of_2(ds)
    if u.device.type == "cpu":
        # The interpreter runs programs one after another: one wide program per sequence.
        bd = min(triton.next_power_of_2(dim), max(1, 16384 // dsp))
    else:
        # About 1024 state elements a program (64 channels of dstate 16, 8 a thread over 4
        # warps): a state that stays in registers, and batch * dim / 64 programs.
        bd = min(triton.next_power_of_2(dim), max(1, 1024 // dsp))
    dummy = u
    _scan_kernel[(batch, triton.cdiv(dim, bd))](
        u, delta, A, B, C, D_ if D_ is not None else dummy, z_ if z_ is not None else dummy,
        delta_bias_ if delta_bias_ is not None else dummy,
        query_start_loc if varlen else dummy,
        cache_indices if cache_indices is not None else dummy,
        has_initial_state if has_initial_state is not None else dummy,
        ssm_states, int(pad_slot_id), seqlen, dim, ds, dim // ngroups,
        *su, *sd, *sz, *sb, *sc, A.stride(0), A.stride(1), *ssm_states.stride(),
        VARLEN=varlen, HAS_CI=cache_indices is not None, HAS_INIT=has_initial_state is not None,
        HAS_D=D_ is not None, HAS_Z=z_ is not None, HAS_BIAS=delta_bias_ is not None,
        SOFTPLUS=bool(delta_softplus), BD=bd, DSP=dsp, num_warps=4)
    return None
