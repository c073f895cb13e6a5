"""Reference for aten::log_sigmoid_backward: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

grad_input = grad_output * d/dx log(sigmoid(x)) = grad_output * sigmoid(-x), elementwise, with
x = self. `buffer` is the workspace that log_sigmoid_forward returns. The two torch backends
disagree on it: the CUDA forward returns an empty buffer and the CUDA backward ignores it,
computing from self alone; the CPU forward saves exp(-|x|) there and the CPU backward reads it.
The task follows CUDA (the buffer passed is empty and is not part of the semantics), so on the
CPU the reference first recomputes the buffer the CPU backward needs from self. The CUDA
baseline is the plain backward call.

Tolerance: elementwise, the default one.
"""

import torch


def _buffer(self: torch.Tensor, buffer: torch.Tensor) -> torch.Tensor:
    if self.device.type == "cpu":
        return torch.ops.aten.log_sigmoid_forward.default(self)[1]
    return buffer


def log_sigmoid_backward(grad_output: torch.Tensor, self: torch.Tensor,
                         buffer: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.log_sigmoid_backward.default(grad_output, self, _buffer(self, buffer))


def log_sigmoid_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor,
                                    buffer: torch.Tensor, *,
                                    grad_input: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.log_sigmoid_backward.grad_input(grad_output, self,
                                                          _buffer(self, buffer),
                                                          grad_input=grad_input)
