"""Reference for vLLM's apply_repetition_penalties_cuda (torch.ops._C.apply_repetition_penalties_;
csrc/sampler.cu, kernel apply_repetition_penalties_kernel): our own torch code, run by the worker
on float64 copies (values) and on the native inputs (structure and the GPU baseline).

apply_repetition_penalties_(logits, prompt_mask, output_mask, repetition_penalties) rewrites
`logits` ([num_seqs, vocab_size]) in place. A token v of sequence s is "repeated" when
prompt_mask[s, v] or output_mask[s, v] is true; the logit of a repeated token is divided by the
sequence's penalty repetition_penalties[s] when it is greater than zero, and multiplied by it
otherwise (zero, negative, -inf and NaN logits); the logits of other tokens are left as they
are. The op returns nothing and does not modify the masks or the penalties.

On the float64 copies the quotient and the product are exact to float64, so the reference value
is the exact result; vLLM's kernel does one division or one multiplication in the logits' dtype,
i.e. one rounding, which the format's default relative tolerance covers.

Tolerance: every output is one element times or over one number, no reduction: `reduce` 1.
"""

import torch


def apply_repetition_penalties_cuda(logits: torch.Tensor, prompt_mask: torch.Tensor,
                                    output_mask: torch.Tensor,
                                    repetition_penalties: torch.Tensor) -> None:
    repeated = prompt_mask | output_mask
    penalty = repetition_penalties.unsqueeze(1)
    penalised = torch.where(logits > 0, logits / penalty, logits * penalty)
    logits.copy_(torch.where(repeated, penalised, logits))
