"""Reference for aten::rrelu_with_noise_backward: torch eager, run by the worker on float64
copies of the floating inputs (values) and on the native inputs (output dtype and the GPU
baseline).

training: grad_output * noise; otherwise grad_output where self > 0 and
grad_output * (lower + upper) / 2 elsewhere. Every training case has upper - lower > 1e-6:
older ATen versions fall back to the fixed slope below that gap, newer ones do not.
"""

import torch


def rrelu_with_noise_backward(grad_output: torch.Tensor, self: torch.Tensor,
                              noise: torch.Tensor, lower: float, upper: float, training: bool,
                              self_is_result: bool) -> torch.Tensor:
    return torch.ops.aten.rrelu_with_noise_backward(grad_output, self, noise, lower, upper,
                                                    training, self_is_result)


def rrelu_with_noise_backward_out(grad_output: torch.Tensor, self: torch.Tensor,
                                  noise: torch.Tensor, lower: float, upper: float,
                                  training: bool, self_is_result: bool, *,
                                  out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rrelu_with_noise_backward.out(grad_output, self, noise, lower, upper,
                                                        training, self_is_result, out=out)
