"""Reference for vLLM's selective_scan_fwd (torch.ops._C.selective_scan_fwd;
csrc/mamba/mamba_ssm/selective_scan_fwd.cu, selective_scan_fwd and selective_scan_fwd_kernel):
our own torch code, run by the worker on float64 copies (values) and on the native inputs
(structure and the GPU baseline).

The op is Mamba-1's selective state-space scan over whole sequences (prefill), with the final
states kept in a cache. Layouts: in varlen mode (query_start_loc given) the tokens of all
sequences are concatenated, u, delta and z are [dim, total_tokens], B and C
[n_groups, dstate, total_tokens], and sequence b is tokens query_start_loc[b] ..
query_start_loc[b + 1] - 1; otherwise u, delta, z are [batch, dim, seqlen] and B, C
[batch, n_groups, dstate, seqlen]. A is [dim, dstate] (float32), D and delta_bias [dim]
(float32), ssm_states [cache_size, dim, dstate]. Channel d reads B and C of group
d // (dim / n_groups).

For every sequence b with cache slot s = cache_indices[b] (or b without cache_indices), unless
s == pad_slot_id (then nothing of that sequence is read or written), for every channel d and
token t of the sequence, in order:

    dt       = delta[d, t] + delta_bias[d]            (delta_bias absent: 0)
    dt       = dt <= 20 ? log(1 + exp(dt)) : dt        (only if delta_softplus)
    h[n]     = exp(dt * A[d, n]) * h[n] + dt * B[g, n, t] * u[d, t]     for n < dstate
    y        = sum over n of h[n] * C[g, n, t] + D[d] * u[d, t]          (D absent: 0)
    delta[d, t] = y                                    (the output overwrites delta)
    z[d, t]     = y * silu(z[d, t])                    (only when z is given)

with h starting as ssm_states[s, d, :] when has_initial_state[b] (given and true), as zeros
otherwise; the final h is written to ssm_states[s, d, :]. A sequence without tokens writes
nothing. Everything is computed in float32 (float64 on the copies), rounded once per stored
value. Tokens outside every sequence and cache slots no sequence names keep their values.

Only the non-prefix-caching path is covered: block_idx_first_scheduled_token,
block_idx_last_scheduled_token and initial_state_idx are None (block_size is then unused).
"""

import torch


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                       cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size,
                       block_idx_first_scheduled_token, block_idx_last_scheduled_token,
                       initial_state_idx) -> None:
    if block_idx_first_scheduled_token is not None or initial_state_idx is not None:
        raise NotImplementedError("selective_scan_fwd: prefix caching (APC) is not covered")
    acc = torch.float64 if u.dtype == torch.float64 else torch.float32
    varlen = query_start_loc is not None
    if varlen:
        dim = u.shape[0]
        starts = [int(v) for v in query_start_loc.tolist()]
        spans = [(starts[b], starts[b + 1]) for b in range(len(starts) - 1)]
    else:
        batch, dim, seqlen = u.shape
        spans = [(0, seqlen)] * batch
    ngroups = B.shape[0] if varlen else B.shape[1]
    group = torch.arange(dim, device=u.device) // (dim // ngroups)
    a = A.to(acc)
    dvec = D_.to(acc) if D_ is not None else torch.zeros(dim, dtype=acc, device=u.device)
    bias = (delta_bias_.to(acc) if delta_bias_ is not None
            else torch.zeros(dim, dtype=acc, device=u.device))
    slots = cache_indices.tolist() if cache_indices is not None else list(range(len(spans)))
    init = has_initial_state.tolist() if has_initial_state is not None else [False] * len(spans)
    for b, (lo, hi) in enumerate(spans):
        slot = int(slots[b])
        if slot == pad_slot_id or hi <= lo:
            continue
        if varlen:
            uu, dd, zz = u[:, lo:hi], delta[:, lo:hi], (z_[:, lo:hi] if z_ is not None else None)
            bb, cc = B[:, :, lo:hi], C[:, :, lo:hi]
        else:
            uu, dd, zz = u[b], delta[b], (z_[b] if z_ is not None else None)
            bb, cc = B[b], C[b]
        uu = uu.to(acc)
        dt = dd.to(acc) + bias[:, None]
        if delta_softplus:
            dt = torch.where(dt <= 20, torch.log1p(torch.exp(dt)), dt)
        bb, cc = bb.to(acc)[group], cc.to(acc)[group]  # [dim, dstate, L]
        h = (ssm_states[slot].to(acc) if init[b]
             else torch.zeros(a.shape, dtype=acc, device=u.device))
        ys = []
        for t in range(hi - lo):
            h = torch.exp(dt[:, t, None] * a) * h + (dt[:, t] * uu[:, t])[:, None] * bb[:, :, t]
            ys.append((h * cc[:, :, t]).sum(dim=1) + dvec * uu[:, t])
        y = torch.stack(ys, dim=1)
        dd.copy_(y)
        if zz is not None:
            zf = zz.to(acc)
            zz.copy_(y * zf * torch.sigmoid(zf))
        ssm_states[slot].copy_(h)
    return None
