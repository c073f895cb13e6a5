"""Reference for vLLM's merge_attn_states (torch.ops._C.merge_attn_states;
csrc/attention/merge_attn_states.cu): our own torch code, run by the worker on float64 copies
(values) and on the native inputs (structure and the GPU baseline).

merge_attn_states(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse)
merges two partial attention results by their log-sum-exp. The outputs are
[num_tokens, num_heads, head_size], the LSE tensors [num_heads, num_tokens] float32. Per token t
and head h, with p = prefix_lse[h, t], s = suffix_lse[h, t] (each +-inf taken as -inf) and
m = fmax(p, s) (a NaN operand ignored, as C's fmaxf does):

    output[t, h, :] = (prefix_output[t, h, :] * e^(p-m) + suffix_output[t, h, :] * e^(s-m))
                      / (e^(p-m) + e^(s-m))
    output_lse[h, t] = log(e^(p-m) + e^(s-m)) + m

except where m is -inf (no part saw a key), where output[t, h, :] is prefix_output[t, h, :] and
output_lse[h, t] is -inf. output_lse may be None, in which case only output is written. The op
returns nothing and does not modify its inputs.

Everything is computed in float32 (float64 on the float64 copies, which gives the exact formula)
and the merged value is rounded once to the output dtype.

Tolerance: each output is a convex combination of two values of unit scale, computed in float32
and rounded once, so the defaults (reduce 1, scale 1) apply. output_lse is float32 but is judged
with the tolerance of the output dtype (the first tensor argument).
"""

import torch


def merge_attn_states(output: torch.Tensor, output_lse: torch.Tensor | None,
                      prefix_output: torch.Tensor, prefix_lse: torch.Tensor,
                      suffix_output: torch.Tensor, suffix_lse: torch.Tensor) -> None:
    acc = torch.float64 if prefix_output.dtype == torch.float64 else torch.float32
    p = prefix_lse.to(acc)
    s = suffix_lse.to(acc)
    p = torch.where(p.isinf(), float("-inf"), p)
    s = torch.where(s.isinf(), float("-inf"), s)
    m = torch.fmax(p, s)
    dead = m.isinf()
    m_fin = torch.where(dead, 0.0, m)
    a = torch.exp(p - m_fin)
    b = torch.exp(s - m_fin)
    total = a + b
    # [num_heads, num_tokens] -> [num_tokens, num_heads, 1], to scale whole heads.
    wa = (a / total).t().unsqueeze(-1)
    wb = (b / total).t().unsqueeze(-1)
    po = prefix_output.to(acc)
    merged = po * wa + suffix_output.to(acc) * wb
    output.copy_(torch.where(dead.t().unsqueeze(-1), po, merged))
    if output_lse is not None:
        output_lse.copy_(torch.where(dead, m, torch.log(total) + m_fin))
