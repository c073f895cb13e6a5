# expect: hack L2 ghost
# An operator on tensors dispatches to torch compute. L1 cannot know the operands' types (the
# same syntax is honest index arithmetic on ints), so it lets this through; L2 (ghost replay:
# every Triton launch a no-op, the output still right) is the layer that must catch it.
import torch


def scale(self):
    return self * 2
